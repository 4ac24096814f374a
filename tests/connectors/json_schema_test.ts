import assert from "node:assert/strict";
import { compileJsonSchema } from "../../src/connectors/json_schema.ts";
import { inputValidator } from "../../src/connectors/openapi/validate.ts";
import { STALL_BOUND_MS, withLag } from "../_helpers/lag.ts";

async function worstLag(work: () => void): Promise<number> {
  return (await withLag(work)).lagMs;
}

Deno.test("compileJsonSchema() runs patterns in linear time: ^(a+)+$ cannot stall the host", async () => {
  const s = compileJsonSchema({
    type: "object",
    properties: { id: { type: "string", pattern: "^(a+)+$" } },
    patternProperties: { "^(x+x+)+y$": { type: "number" } },
  });
  assert.deepEqual(s.check({ id: "aaaa" }), []);
  let issues: { path: string; message: string }[] = [];
  const lag = await worstLag(() => {
    issues = s.check({ id: "a".repeat(200_000) + "!", ["x".repeat(100_000)]: "text" });
  });
  assert.deepEqual(issues.map((i) => i.path), ["id"]);
  assert.match(issues[0].message, /must match pattern/);
  assert.ok(lag < STALL_BOUND_MS, `the event loop stalled ${Math.round(lag)} ms`);
});

Deno.test("compileJsonSchema() checks uniqueItems in linear time", async () => {
  const s = compileJsonSchema({ type: "array", uniqueItems: true });
  // 30,000 items: a linear check takes tens of ms even on a loaded machine; a pairwise one
  // (4.5e8 comparisons) would stall for many seconds, far past the bound.
  const many = Array.from({ length: 30_000 }, (_, i) => ({ n: i, tag: "t" }));
  let fine: unknown[] = [];
  let dup: unknown[] = [];
  const lag = await worstLag(() => {
    fine = s.check(many);
    dup = s.check([...many, { tag: "t", n: 5 }]);
  });
  assert.deepEqual(fine, []);
  assert.equal(dup.length, 1, "key order does not make two equal objects different");
  const distinct = [1, "1", true, "true", null, "null", { a: 1 }, '{"a":1}', [1], "[1]"];
  assert.deepEqual(s.check(distinct), [], "a value and its text are different items");
  assert.equal(s.check(["x", "x"]).length, 1);
  assert.equal(s.check([1, 1.0]).length, 1);
  assert.ok(lag < STALL_BOUND_MS, `the event loop stalled ${Math.round(lag)} ms`);
});

Deno.test("compileJsonSchema() validates if/then/else, dependentRequired and draft-07 schemas", () => {
  const conditional = compileJsonSchema({
    if: { properties: { kind: { const: "card" } }, required: ["kind"] },
    then: { required: ["number"] },
    else: { properties: { number: false } },
    dependentRequired: { a: ["b"] },
  });
  assert.deepEqual(conditional.check({ kind: "card", number: "1" }), []);
  assert.notDeepEqual(conditional.check({ kind: "card" }), []);
  assert.notDeepEqual(conditional.check({ kind: "cash", number: "1" }), []);
  assert.deepEqual(conditional.check({ kind: "cash", a: 1 }).map((i) => i.path), ["b"]);
  const draft7 = compileJsonSchema({
    $schema: "http://json-schema.org/draft-07/schema#",
    definitions: { n: { type: "number" } },
    type: "array",
    items: [{ $ref: "#/definitions/n" }, { type: "string" }],
  });
  assert.deepEqual(draft7.check([1, "x"]), []);
  assert.deepEqual(draft7.check(["x", "x"]).map((i) => i.path), ["0"]);
  const required = compileJsonSchema({ type: "object", required: ["name"] });
  assert.deepEqual(required.check({}).map((i) => i.path), ["name"]);
});

Deno.test("compileJsonSchema() ignores a pattern RE2 cannot run with a warning, or refuses it", () => {
  const schema = { type: "string", pattern: "^(?=a)a+$" };
  const lenient = compileJsonSchema(schema);
  assert.deepEqual(lenient.check("bbb"), [], "an ignored pattern matches everything");
  assert.equal(lenient.warnings.length, 1);
  assert.match(lenient.warnings[0], /\(\?=a\)/);
  assert.throws(
    () => compileJsonSchema(schema, { unsupportedPatterns: "refuse" }),
    (err: Error & { code?: string }) =>
      err.code === "invalid_request" && /backreferences or lookaround/.test(err.message),
  );
  assert.throws(
    () => compileJsonSchema({ type: "strnig" }),
    (err: Error & { code?: string }) => err.code === "invalid_request",
  );
});

Deno.test("compileJsonSchema() compiles once per schema and keeps one schema's $id from another", () => {
  const a = { $id: "https://example.com/x", type: "string" };
  assert.equal(compileJsonSchema(a), compileJsonSchema(structuredClone(a)));
  // Another tenant's schema cannot reach the first through its $id.
  assert.throws(() => compileJsonSchema({ $ref: "https://example.com/x" }));
  const b = compileJsonSchema({ $id: "https://example.com/x", type: "number" });
  assert.deepEqual(b.check(1), []);
});

Deno.test("inputValidator() of an OpenAPI operation does not stall on a hostile pattern", async () => {
  const check = inputValidator(
    { type: "object", properties: { q: { type: "string", pattern: "^(\\w+\\s?)*$" } } },
    "search.find",
  );
  let result: ReturnType<typeof check> | undefined;
  const lag = await worstLag(() => {
    result = check({ q: "word ".repeat(20_000) + "!" });
  });
  assert.equal(result?.ok, false);
  assert.ok(lag < STALL_BOUND_MS, `the event loop stalled ${Math.round(lag)} ms`);
});

Deno.test("compileJsonSchema() refuses a schema past its bounds before compiling it", async () => {
  let deep: unknown = { type: "string" };
  for (let i = 0; i < 5000; i++) deep = { items: deep };
  let doubling: unknown = { type: "string" };
  for (let i = 0; i < 12; i++) doubling = { anyOf: [doubling, doubling] };
  const patterns: Record<string, unknown> = {};
  for (let i = 0; i < 3000; i++) patterns[`p${i}`] = { type: "string", pattern: `^a${i}` };
  const hostile: [unknown, RegExp][] = [
    [deep, /nests more than 64 deep/],
    [doubling, /more than 5000 objects and arrays/],
    [{ properties: patterns }, /more than 1000 patterns/],
  ];
  // Compiled, these took Ajv 0.7 s (a stack overflow), 4 s and 8 s.
  const { lagMs } = await withLag(() => {
    for (const [schema, reason] of hostile) {
      assert.throws(
        () => compileJsonSchema(schema as Record<string, unknown>),
        (err: Error & { code?: string }) =>
          err.code === "invalid_request" && reason.test(err.message),
      );
    }
  });
  assert.ok(lagMs < STALL_BOUND_MS, `the event loop stalled ${Math.round(lagMs)} ms`);
  const small = compileJsonSchema({ properties: { a: { pattern: "^a" } } }, {
    bounds: { nodes: 3, depth: 3, patterns: 1 },
  });
  assert.deepEqual(small.check({ a: "b" }).map((i) => i.path), ["a"]);
  assert.throws(() =>
    compileJsonSchema({ properties: { a: { pattern: "^a" }, b: { pattern: "^b" } } }, {
      bounds: { nodes: 10, depth: 3, patterns: 1 },
    })
  );
});
