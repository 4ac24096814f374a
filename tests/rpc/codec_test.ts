import assert from "node:assert/strict";
import {
  CodecError,
  DecodeError,
  decodeValue,
  encodeValue,
  MAX_BIGINT_DIGITS,
  MAX_SCALAR_TAG_CHARS,
  MAX_VALUE_DEPTH,
} from "../../src/rpc/codec.ts";

const roundTrip = (v: unknown) => decodeValue(JSON.parse(JSON.stringify(encodeValue(v))));

Deno.test("encodeValue() carries values JSON cannot", () => {
  const date = new Date("2026-01-02T03:04:05.000Z");
  const value = {
    bytes: new Uint8Array([0, 1, 254, 255]),
    big: 12345678901234567890n,
    date,
    holes: [1, undefined, 3],
    nums: [NaN, Infinity, -Infinity, -0],
    map: new Map<unknown, unknown>([["a", 1], [2, new Set([1n])]]),
  };
  const back = roundTrip(value) as typeof value;
  assert.deepEqual(back.bytes, value.bytes);
  assert.equal(back.big, value.big);
  assert.equal((back.date as Date).getTime(), date.getTime());
  assert.deepEqual(back.holes, [1, undefined, 3]);
  assert.ok(Number.isNaN(back.nums[0]));
  assert.equal(back.nums[1], Infinity);
  assert.equal(back.nums[2], -Infinity);
  assert.ok(Object.is(back.nums[3], -0));
  assert.deepEqual(back.map, value.map);
});

Deno.test("encodeValue() keeps an object that has its own $t key as data", () => {
  const value = { $t: "bigint", v: "1" };
  assert.deepEqual(roundTrip(value), value);
});

Deno.test("encodeValue() drops undefined properties as JSON does, keeps them at the top", () => {
  assert.deepEqual(roundTrip({ a: undefined, b: 1 }), { b: 1 });
  assert.equal(roundTrip(undefined), undefined);
});

Deno.test("encodeValue() refuses functions, symbols and cycles with the path", () => {
  assert.throws(
    () => encodeValue({ a: { f: () => 1 } }),
    (e: unknown) => e instanceof CodecError && e.path === "a.f",
  );
  assert.throws(() => encodeValue([Symbol("x")]), CodecError);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => encodeValue(cyclic), /cycle/);
});

Deno.test("encodeValue() allows the same object twice when it is not a cycle", () => {
  const shared = { x: 1 };
  assert.deepEqual(roundTrip([shared, shared]), [{ x: 1 }, { x: 1 }]);
});

Deno.test("encodeValue() refuses nesting past MAX_VALUE_DEPTH", () => {
  let deep: unknown = 1;
  for (let i = 0; i < MAX_VALUE_DEPTH + 5; i++) deep = [deep];
  assert.throws(() => encodeValue(deep), /deeper/);
});

Deno.test("decodeValue() keeps a __proto__ key as data and never swaps prototypes", () => {
  const decoded = decodeValue(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')) as Record<
    string,
    unknown
  >;
  assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
  assert.equal((decoded as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(Object.keys(decoded), ["__proto__", "a"]);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
});

Deno.test("decodeValue() refuses a bigint longer than MAX_BIGINT_DIGITS before parsing it", () => {
  const biggest = 10n ** BigInt(MAX_BIGINT_DIGITS) - 1n;
  assert.equal(roundTrip(biggest), biggest);
  assert.equal(roundTrip(-biggest), -biggest);
  // 3.9M digits held the host's event loop for seconds when it was parsed.
  const hostile = { $t: "bigint", v: "9".repeat(3_900_000) };
  assert.throws(
    () => decodeValue({ args: [hostile] }),
    (err: unknown) =>
      err instanceof DecodeError && err.code === "protocol_error" &&
      /3900000 digits/.test(err.message),
  );
});

Deno.test("decodeValue() refuses date and number texts no encoder produces", () => {
  const date = new Date(8.64e15);
  assert.deepEqual(roundTrip(date), date);
  for (const tag of ["date", "number"]) {
    assert.throws(
      () => decodeValue({ $t: tag, v: "1".repeat(MAX_SCALAR_TAG_CHARS + 1) }),
      (err: unknown) => err instanceof DecodeError && err.code === "protocol_error",
    );
  }
});

Deno.test("decodeValue() refuses nesting past MAX_VALUE_DEPTH and keeps what encodes", () => {
  let ok: unknown = 1;
  for (let i = 0; i < MAX_VALUE_DEPTH - 1; i++) ok = i % 3 === 0 ? new Map([[1, ok]]) : [ok];
  assert.deepEqual(roundTrip(ok), ok);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.throws(
    () => decodeValue(deep),
    (err: unknown) => err instanceof DecodeError && /deeper than/.test(err.message),
  );
});
