/**
 * The codec's fast paths change nothing but the cost: `forJson` gives the JSON the full encoder
 * gives, handing plain data over as it is, and `decodeValue` hands back untagged data as it is.
 */
import assert from "node:assert/strict";
import {
  CodecError,
  decodeValue,
  encodeValue,
  forJson,
  MAX_VALUE_DEPTH,
} from "../../src/rpc/codec.ts";

class Point {
  constructor(readonly x: number, readonly y: number) {}
}

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { v };
  return v;
};

/** Values the fast path must take, and values it must leave to the full encoder. */
const plain: unknown[] = [
  "text",
  true,
  0,
  3.5,
  null,
  [],
  [1, "a", null, [true]],
  { a: 1, b: { c: [1, 2, { d: "e" }] } },
  { kept: 1, dropped: undefined },
  Object.assign(Object.create(null), { a: 1 }),
  JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
  nested(MAX_VALUE_DEPTH - 1),
];
const notPlain: unknown[] = [
  undefined,
  -0,
  NaN,
  Infinity,
  12n,
  [1, undefined],
  // deno-lint-ignore no-sparse-arrays
  [1, , 3],
  { n: NaN },
  { d: new Date(0) },
  { m: new Map([[1, 2]]) },
  { s: new Set([1]) },
  { b: new Uint8Array([1, 2]) },
  { p: new Point(1, 2) },
  { $t: "date", v: "x" },
  { e: new Error("no") },
  nested(MAX_VALUE_DEPTH + 1),
];

Deno.test("forJson() hands plain data over as it is, and encodes anything else", () => {
  for (const v of plain) {
    assert.equal(forJson(v), v, `copied ${Deno.inspect(v).slice(0, 60)}`);
    assert.equal(JSON.stringify(forJson(v)), JSON.stringify(encodeValue(v)));
  }
  for (const v of notPlain) {
    const label = Deno.inspect(v, { depth: 2 }).slice(0, 60);
    let full: string | undefined;
    try {
      full = JSON.stringify(encodeValue(v));
    } catch (err) {
      assert.ok(err instanceof CodecError, label);
      assert.throws(() => forJson(v), CodecError, label);
      continue;
    }
    assert.notEqual(forJson(v), v, `not encoded: ${label}`);
    assert.equal(JSON.stringify(forJson(v)), full, label);
  }
});

Deno.test("forJson() refuses what the encoder refuses, naming the path", () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  assert.throws(() => forJson({ outer: cycle }), /outer\.self.*cycle/);
  assert.throws(() => forJson({ list: [1, () => 1] }), /list\[1\].*function/);
});

Deno.test("decodeValue() hands untagged data back as it is, and decodes tagged data", () => {
  for (const v of plain) {
    if (v === undefined) continue;
    const parsed = JSON.parse(JSON.stringify(v));
    assert.equal(decodeValue(parsed), parsed);
  }
  const parsed = JSON.parse(JSON.stringify(encodeValue({ when: new Date(5), list: [1, -0] })));
  const back = decodeValue(parsed) as { when: Date; list: number[] };
  assert.notEqual(back, parsed);
  assert.equal(back.when.getTime(), 5);
  assert.ok(Object.is(back.list[1], -0));
  // A `__proto__` key stays data on both paths.
  const proto = decodeValue(JSON.parse('{"__proto__": {"polluted": true}}')) as object;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  // Too deep is refused whether anything in it is tagged or not.
  assert.throws(() => decodeValue(JSON.parse(JSON.stringify(nested(MAX_VALUE_DEPTH + 1)))));
});
