import assert from "node:assert/strict";
import { schemaToTs } from "../../src/connectors/typegen/mod.ts";

const S = { type: "string" };
const N = { type: "number" };

/** `{ type: "object", properties, required }`. */
function obj(properties: Record<string, unknown>, required: string[] = [], extra = {}) {
  return { type: "object", properties, required, ...extra };
}

Deno.test("schemaToTs() maps primitive types and type arrays", () => {
  assert.equal(schemaToTs(S), "string");
  assert.equal(schemaToTs(N), "number");
  assert.equal(schemaToTs({ type: "integer" }), "number");
  assert.equal(schemaToTs({ type: "boolean" }), "boolean");
  assert.equal(schemaToTs({ type: "null" }), "null");
  assert.equal(schemaToTs({ type: ["string", "integer", "number"] }), "string | number");
  assert.equal(schemaToTs({ type: "bogus" }), "unknown");
});

Deno.test("schemaToTs() marks properties optional unless required", () => {
  assert.equal(schemaToTs(obj({ a: N, b: S }, ["a"])), "{ a: number; b?: string }");
  assert.equal(schemaToTs(obj({ a: N }, ["a", "z"])), "{ a: number; z: unknown }");
});

Deno.test("schemaToTs() gives empty and unconstrained objects distinct types", () => {
  assert.equal(schemaToTs(obj({})), "Record<string, never>");
  assert.equal(
    schemaToTs({ type: "object", additionalProperties: false }),
    "Record<string, never>",
  );
  assert.equal(schemaToTs({ type: "object" }), "{ [key: string]: unknown }");
});

Deno.test("schemaToTs() turns additionalProperties into an index signature", () => {
  assert.equal(
    schemaToTs({ type: "object", additionalProperties: N }),
    "{ [key: string]: number }",
  );
  assert.equal(
    schemaToTs(obj({ a: S }, ["a"], { additionalProperties: true })),
    "{ a: string; [key: string]: unknown }",
  );
  assert.equal(
    schemaToTs(obj({ a: S }, ["a"], { additionalProperties: false })),
    "{ a: string }",
  );
  // Named properties must fit the index signature, optional ones with `undefined`.
  assert.equal(
    schemaToTs(obj({ a: S, b: { type: "boolean" } }, ["a"], { additionalProperties: N })),
    "{ a: string; b?: boolean; [key: string]: number | string | boolean | undefined }",
  );
});

Deno.test("schemaToTs() folds patternProperties into the index signature with a note", () => {
  const ts = schemaToTs(
    obj({ name: S }, ["name"], {
      patternProperties: { "^x-": S, "^n_": N },
      additionalProperties: false,
    }),
  );
  assert.match(
    ts,
    /\/\*\*\n {3}\* Keys matching the pattern \^x-\n {3}\* Keys matching the pattern \^n_\n {3}\*\/\n {2}\[key: string\]: string \| number;/,
  );
  assert.match(ts, /^\{\n {2}name: string;\n/);
  assert.equal(
    schemaToTs({ patternProperties: { "^a": N } }, { compact: true }),
    "{ [key: string]: number }",
  );
});

Deno.test("schemaToTs() quotes property names that are not identifiers", () => {
  assert.equal(
    schemaToTs(
      obj({ "content-type": S, "x.y": S, "1st": S, $ok: S, _ok: S, 'say "hi"': S }),
      { compact: true },
    ),
    '{ "content-type"?: string; "x.y"?: string; "1st"?: string; $ok?: string; _ok?: string; "say \\"hi\\""?: string }',
  );
});

Deno.test("schemaToTs() inlines local $refs to $defs, definitions, escaped pointers and the root", () => {
  const schema = {
    type: "object",
    $defs: { Point: obj({ x: N, y: N }, ["x", "y"]), "a/b~c": { type: "boolean" } },
    definitions: { Color: { enum: ["red", "blue"] } },
    properties: {
      at: { $ref: "#/$defs/Point" },
      color: { $ref: "#/definitions/Color" },
      flag: { $ref: "#/$defs/a~1b~0c" },
      pct: { $ref: "#/%24defs/Point" },
    },
    required: ["at", "color", "flag", "pct"],
  };
  assert.equal(
    schemaToTs(schema, { compact: true }),
    '{ at: { x: number; y: number }; color: "red" | "blue"; flag: boolean; pct: { x: number; y: number } }',
  );
  assert.equal(schemaToTs({ $defs: { S }, $ref: "#/$defs/S" }), "string");
});

Deno.test("schemaToTs() cuts recursive $refs with unknown", () => {
  const list = {
    $defs: { Node: obj({ value: N, next: { $ref: "#/$defs/Node" } }, ["value"]) },
    $ref: "#/$defs/Node",
  };
  assert.equal(schemaToTs(list), "{ value: number; next?: unknown }");
  const root = obj({ name: S, parent: { $ref: "#" } }, ["name"]);
  assert.equal(schemaToTs(root), "{ name: string; parent?: unknown }");
  // A cycle through two definitions stops where it comes back.
  const pingPong = {
    $defs: {
      A: obj({ b: { $ref: "#/$defs/B" } }, ["b"]),
      B: obj({ a: { $ref: "#/$defs/A" } }, ["a"]),
    },
    $ref: "#/$defs/A",
  };
  assert.equal(schemaToTs(pingPong), "{ b: { a: unknown } }");
});

Deno.test("schemaToTs() makes unresolvable refs unknown", () => {
  for (
    const ref of [
      "#/$defs/Missing",
      "https://example.com/s.json",
      "other.json#/$defs/A",
      "#anchor",
      "#/__proto__",
      "#/constructor",
      "#/%E0%A4%A",
      42,
      null,
    ]
  ) {
    assert.equal(schemaToTs(obj({ p: { $ref: ref } }, ["p"])), "{ p: unknown }", String(ref));
  }
});

Deno.test("schemaToTs() joins anyOf/oneOf as unions and allOf as intersections", () => {
  assert.equal(schemaToTs({ anyOf: [S, N] }), "string | number");
  assert.equal(schemaToTs({ oneOf: [S, { type: "null" }] }), "string | null");
  assert.equal(
    schemaToTs({ allOf: [obj({ a: S }, ["a"]), obj({ b: N }, ["b"])] }),
    "{ a: string } & { b: number }",
  );
  // A union inside an intersection, and inside an array, is parenthesized.
  assert.equal(
    schemaToTs({ allOf: [{ anyOf: [obj({ a: S }), obj({ b: S })] }, obj({ c: S })] }),
    "({ a?: string } | { b?: string }) & { c?: string }",
  );
  assert.equal(schemaToTs({ type: "array", items: { anyOf: [S, N] } }), "(string | number)[]");
  // Named properties beside a combinator intersect with it; a bare `type: object` adds nothing.
  assert.equal(
    schemaToTs({ ...obj({ id: S }, ["id"]), oneOf: [obj({ a: S }, ["a"]), obj({ b: S }, ["b"])] }),
    "{ id: string } & ({ a: string } | { b: string })",
  );
  assert.equal(
    schemaToTs({ type: "object", anyOf: [obj({ a: S }, ["a"]), obj({ b: S }, ["b"])] }),
    "{ a: string } | { b: string }",
  );
});

Deno.test("schemaToTs() writes enum and const as literal types", () => {
  assert.equal(schemaToTs({ type: "string", enum: ["a", "b"] }), '"a" | "b"');
  assert.equal(
    schemaToTs({ enum: [1, -2, true, null, 'q"uote'] }),
    '1 | -2 | true | null | "q\\"uote"',
  );
  assert.equal(schemaToTs({ enum: [{ k: [1, "x"] }] }), '{ "k": [1, "x"] }');
  assert.equal(schemaToTs({ enum: [] }), "never");
  assert.equal(schemaToTs({ const: "fixed" }), '"fixed"');
  assert.equal(schemaToTs({ const: null }), "null");
  assert.equal(schemaToTs({ type: "array", items: { const: -1 } }), "(-1)[]");
});

Deno.test("schemaToTs() adds null for nullable: true and a null type", () => {
  assert.equal(schemaToTs({ type: "string", nullable: true }), "string | null");
  assert.equal(schemaToTs({ type: ["number", "null"] }), "number | null");
  assert.equal(schemaToTs({ enum: ["a", null], nullable: true }), '"a" | null');
  assert.equal(
    schemaToTs({ type: ["object", "null"], properties: { a: S }, required: ["a"] }),
    "{ a: string } | null",
  );
});

Deno.test("schemaToTs() writes tuples from prefixItems and draft-07 array items", () => {
  const pair = { type: "array", prefixItems: [S, N], items: false, minItems: 2 };
  assert.equal(schemaToTs(pair), "[string, number]");
  assert.equal(
    schemaToTs({ type: "array", prefixItems: [S, N], minItems: 1 }),
    "[string, number?, ...unknown[]]",
  );
  assert.equal(
    schemaToTs({ type: "array", prefixItems: [S], items: N, minItems: 1 }),
    "[string, ...number[]]",
  );
  assert.equal(
    schemaToTs({ type: "array", prefixItems: [S, N], maxItems: 2 }),
    "[string?, number?]",
  );
  assert.equal(
    schemaToTs({
      type: "array",
      items: [S, { type: ["number", "null"] }],
      additionalItems: false,
      minItems: 1,
    }),
    "[string, (number | null)?]",
  );
  assert.equal(
    schemaToTs({ type: "array", items: [S], additionalItems: { type: "boolean" }, minItems: 1 }),
    "[string, ...boolean[]]",
  );
  assert.equal(schemaToTs({ type: "array", items: false }), "[]");
  assert.equal(schemaToTs({ type: "array" }), "unknown[]");
  assert.equal(schemaToTs({ type: "array", items: { type: "array", items: S } }), "string[][]");
});
