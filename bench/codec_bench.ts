/**
 * `deno bench bench/codec_bench.ts`: the wire codec (src/rpc/codec.ts) on a
 * typical tool-call frame and on a 100 KB frame, each as the peer does it:
 * `encodeValue` then `JSON.stringify` on the way out, `JSON.parse` then
 * `decodeValue` on the way in.
 *
 * @module
 */
import { decodeValue, encodeValue } from "../src/rpc/codec.ts";

/** The params of a typical `tool.call` request from a script. */
const CALL = {
  connector: "crm",
  tool: "updateContact",
  args: {
    id: "c_01J9ZQ4W8N",
    fields: { name: "Ada Lovelace", email: "ada@example.com", tags: ["vip", "eu"] },
    notify: true,
    retries: 2,
  },
};

/** About 100 KB of rows, a result a listing tool might return. */
const ROWS = Array.from({ length: 690 }, (_, i) => ({
  id: `row_${i.toString().padStart(5, "0")}`,
  title: `Item number ${i} with a description long enough to be realistic`,
  price: Math.round(i * 137.5) / 100,
  tags: ["alpha", "beta", i % 2 === 0 ? "even" : "odd"],
  active: i % 3 !== 0,
}));

/** A frame with tagged values (dates, bytes, bigint), which take the slower paths. */
const TAGGED = {
  at: new Date(0),
  bytes: new Uint8Array(1024).map((_, i) => i & 0xff),
  big: 12345678901234567890n,
  list: [1, undefined, NaN],
};

function frame(id: number, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tool.call", params: encodeValue(params) });
}

const callWire = frame(1, CALL);
const bigWire = frame(2, ROWS);
const taggedWire = frame(3, TAGGED);
if (bigWire.length < 90_000 || bigWire.length > 110_000) {
  throw new Error(`the large frame is ${bigWire.length} bytes, not about 100 KB`);
}

Deno.bench("encode: typical call frame", { group: "call", baseline: true }, () => {
  frame(1, CALL);
});

Deno.bench("decode: typical call frame", { group: "call" }, () => {
  decodeValue((JSON.parse(callWire) as { params: unknown }).params);
});

Deno.bench("JSON.stringify only: typical call frame", { group: "call" }, () => {
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tool.call", params: CALL });
});

Deno.bench(`encode: ${Math.round(bigWire.length / 1024)} KB frame`, {
  group: "large",
  baseline: true,
}, () => {
  frame(2, ROWS);
});

Deno.bench(`decode: ${Math.round(bigWire.length / 1024)} KB frame`, { group: "large" }, () => {
  decodeValue((JSON.parse(bigWire) as { params: unknown }).params);
});

Deno.bench("JSON.stringify only: large frame", { group: "large" }, () => {
  JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tool.call", params: ROWS });
});

Deno.bench("encode: tagged values (date, 1 KB bytes, bigint)", { group: "tagged" }, () => {
  frame(3, TAGGED);
});

Deno.bench("decode: tagged values (date, 1 KB bytes, bigint)", { group: "tagged" }, () => {
  decodeValue((JSON.parse(taggedWire) as { params: unknown }).params);
});
