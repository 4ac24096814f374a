import assert from "node:assert/strict";
import { encodeValue } from "../../src/rpc/codec.ts";
import { encodedJson } from "../../src/rpc/codec_json.ts";

const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: i, name: `item-${i}`, tags: ["a", "b"], v: i / 2 }));

Deno.test("encodedJson() writes exactly the text of JSON.stringify(encodeValue())", async () => {
  const cases: unknown[] = [
    1,
    "é",
    null,
    undefined,
    [undefined, 1n, NaN, -0, new Date(0), new Uint8Array([1, 2]), new Map([[1, 2]]), new Set([3])],
    { a: undefined, b: { c: [1, 2, 3] } },
    JSON.parse('{"__proto__": {"x": 1}, "b": 2, "2": 3, "1": [1, null, {"$t": 1}]}'),
    { $t: "x", v: [1] },
    { rows: rows(2_000) },
    [Array.from({ length: 300 }, (_, i) => ({ k: [i, { d: i }] }))],
  ];
  for (const value of cases) {
    assert.equal(await encodedJson(value, 0), JSON.stringify(encodeValue(value)) ?? "");
  }
});

Deno.test("encodedJson() refuses what encodeValue() refuses, with the same path", async () => {
  const cycle: unknown[] = [1];
  cycle.push([cycle]);
  for (const bad of [cycle, { f: () => 1 }, [Symbol("x")]]) {
    let expected = "";
    try {
      encodeValue(bad);
    } catch (err) {
      expected = (err as Error).message;
    }
    await assert.rejects(encodedJson(bad, 0), (err: Error) => err.message === expected);
  }
});

Deno.test("encodedJson() lets the event loop turn while it encodes a big value", async () => {
  const value = { rows: rows(64_000) }; // about 4 MB of JSON
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    const text = await encodedJson(value, 1);
    assert.ok(text.length > 3_000_000);
    // One synchronous encode would let no timer fire before it returns.
    assert.ok(ticks > 0, "no timer fired while a 4 MB value was encoded");
  } finally {
    clearInterval(timer);
  }
});
