import assert from "node:assert/strict";
import {
  DEFAULT_MAX_DEPTH,
  MAX_INLINE_WIDTH,
  schemaToTs,
} from "../../src/connectors/typegen/mod.ts";

const S = { type: "string" };

/** `{ type: "object", properties, required }`. */
function obj(properties: Record<string, unknown>, required: string[] = [], extra = {}) {
  return { type: "object", properties, required, ...extra };
}

/** A schema whose values nest `levels` objects deep, ending in a string. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = S;
  for (let i = levels - 1; i >= 0; i--) schema = obj({ [`l${i}`]: schema }, [`l${i}`]);
  return schema;
}

Deno.test("schemaToTs() puts description, format, default, examples, deprecated and limits in JSDoc", () => {
  const ts = schemaToTs(obj({
    count: {
      type: "integer",
      description: "How many */ items\nat most",
      format: "int32",
      default: 10,
      examples: [5, 20, 30, 40],
      minimum: 1,
      maximum: 100,
    },
    old: { type: "string", deprecated: true, pattern: "^[a-z]+$", minLength: 2 },
    safe: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  }, ["count"]));
  assert.equal(
    ts,
    [
      "{",
      "  /**",
      "   * How many *\\/ items",
      "   * at most",
      "   * @format int32",
      "   * @default 10",
      "   * @example 5",
      "   * @example 20",
      "   * @example 30",
      "   * @minimum 1",
      "   * @maximum 100",
      "   */",
      "  count: number;",
      "  /**",
      "   * @deprecated",
      "   * @minLength 2",
      "   * @pattern ^[a-z]+$",
      "   */",
      "  old?: string;",
      "  safe?: number;",
      "}",
    ].join("\n"),
  );
  // A $ref property without a description borrows its target's.
  const withRef = {
    $defs: { Id: { type: "string", description: "An order id" } },
    ...obj({ id: { $ref: "#/$defs/Id" } }, ["id"]),
  };
  assert.equal(schemaToTs(withRef), "{\n  /** An order id */\n  id: string;\n}");
});

Deno.test("schemaToTs() reads true, {} and not as unknown, false as never", () => {
  assert.equal(schemaToTs(true as never), "unknown");
  assert.equal(schemaToTs({}), "unknown");
  assert.equal(schemaToTs({ not: { type: "string" } }), "unknown");
  assert.equal(schemaToTs(false as never), "never");
  assert.equal(schemaToTs(obj({ a: true, b: false }, ["a"])), "{ a: unknown; b?: never }");
});

Deno.test("schemaToTs() makes values nested deeper than maxDepth unknown", () => {
  const expected = (levels: number) => {
    let ts = "unknown";
    for (let i = levels - 1; i >= 0; i--) ts = `{ l${i}: ${ts} }`;
    return ts;
  };
  // The root is depth 0: with the default, the value of l7 (depth 8) is the last one typed.
  assert.equal(DEFAULT_MAX_DEPTH, 8);
  assert.equal(schemaToTs(nested(8), { compact: true }), expected(8).replace("unknown", "string"));
  assert.equal(schemaToTs(nested(12), { compact: true }), expected(9));
  assert.equal(schemaToTs(nested(3), { maxDepth: 1, compact: true }), expected(2));
  assert.equal(schemaToTs(nested(3), { maxDepth: 0 }), "{ l0: unknown }");
});

Deno.test("schemaToTs() stops expanding a $ref-heavy schema at the node budget", () => {
  // Each definition uses the next twice: 2^30 nodes if expanded in full.
  const defs: Record<string, unknown> = { D30: S };
  for (let i = 0; i < 30; i++) {
    defs[`D${i}`] = obj({ l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } });
  }
  const started = performance.now();
  const ts = schemaToTs({ $defs: defs, $ref: "#/$defs/D0" }, { maxDepth: 40, compact: true });
  assert.ok(performance.now() - started < 1_000, "the budget bounds the work");
  assert.ok(ts.length < 100_000, `output of ${ts.length} characters`);
  assert.match(ts, /unknown/);
});

Deno.test("schemaToTs() breaks long or documented objects over lines with the given indent", () => {
  const wide = obj(
    Object.fromEntries(
      ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"].map((k) => [k, S]),
    ),
  );
  const inline = schemaToTs(wide, { compact: true });
  assert.ok(inline.length > MAX_INLINE_WIDTH);
  assert.equal(
    schemaToTs(wide, { indent: "\t" }),
    "{\n\talpha?: string;\n\tbravo?: string;\n\tcharlie?: string;\n\tdelta?: string;\n\techo?: string;\n\tfoxtrot?: string;\n\tgolf?: string;\n}",
  );
  assert.equal(
    schemaToTs(obj({ inner: obj({ a: { type: "string", description: "A" } }, ["a"]) }, ["inner"])),
    "{\n  inner: {\n    /** A */\n    a: string;\n  };\n}",
  );
  // An indent that is not whitespace would produce invalid TypeScript: the default is used.
  assert.equal(schemaToTs(wide, { indent: "x" }), schemaToTs(wide));
});

Deno.test("schemaToTs() never throws on malformed input", () => {
  const hostile = new Proxy({}, {
    get() {
      throw new Error("boom");
    },
    has() {
      throw new Error("boom");
    },
    ownKeys() {
      throw new Error("boom");
    },
  });
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  let deepAnyOf: Record<string, unknown> = S;
  for (let i = 0; i < 50_000; i++) deepAnyOf = { anyOf: [deepAnyOf] };
  const cases: [unknown, string | RegExp][] = [
    [null, "unknown"],
    [undefined, "unknown"],
    [42, "unknown"],
    ["string", "unknown"],
    [[S], "unknown"],
    [hostile, "unknown"],
    [{ type: 5 }, "unknown"],
    [{ type: [] }, "unknown"],
    [{ properties: null, required: "a", type: "object" }, "{ [key: string]: unknown }"],
    [{ type: "object", properties: { a: null, b: 7 } }, "{ a?: unknown; b?: unknown }"],
    [{ enum: "abc" }, "unknown"],
    [{ enum: [NaN, Infinity] }, "number"],
    [{ enum: ["a", undefined, () => 1, 10n] }, "unknown"],
    [{ const: circular }, /^\{ "self": \{ "self": /],
    [{ anyOf: "x", allOf: {}, oneOf: [] }, "unknown"],
    [{ type: "array", prefixItems: "no", items: 3 }, "unknown[]"],
    [{
      get type() {
        throw new Error("boom");
      },
    }, "unknown"],
    [deepAnyOf, /^(string|unknown)$/],
  ];
  for (const [input, expected] of cases) {
    const ts = schemaToTs(input as never, { maxDepth: "x" as never });
    if (typeof expected === "string") assert.equal(ts, expected, Deno.inspect(input, { depth: 2 }));
    else assert.match(ts, expected);
  }
});
