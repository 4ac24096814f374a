import assert from "node:assert/strict";
import { Hono } from "hono";
import { limitBody } from "../../../src/service/http/body_limit.ts";

const MAX = 64;

function app() {
  const seen: string[] = [];
  const a = new Hono();
  a.use("*", limitBody(MAX, () => new Response("too large", { status: 413 })));
  a.post("/echo", async (c) => {
    const text = await c.req.text();
    seen.push(text);
    return c.text(`${c.req.header("content-type")}:${text}`);
  });
  return { a, seen };
}

/** A body sent as a stream: no content-length, so the middleware reads it. */
function streamed(...parts: string[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(parts.map((p) => new TextEncoder().encode(p)));
}

Deno.test("limitBody() hands a streamed body under the bound on whole, headers kept", async () => {
  const { a, seen } = app();
  const res = await a.request("/echo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: streamed('{"a":', '"ü"}'),
  });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'application/json:{"a":"ü"}');
  assert.deepEqual(seen, ['{"a":"ü"}']);
});

Deno.test("limitBody() refuses a streamed body over the bound before the route runs", async () => {
  const { a, seen } = app();
  const res = await a.request("/echo", {
    method: "POST",
    body: streamed("x".repeat(40), "y".repeat(40)),
  });
  assert.equal(res.status, 413);
  await res.body?.cancel();
  assert.deepEqual(seen, []);
});

Deno.test("limitBody() judges a body by its content-length; an empty POST passes", async () => {
  const { a, seen } = app();
  const big = await a.request("/echo", {
    method: "POST",
    headers: { "content-length": String(MAX + 1) },
    body: "z".repeat(MAX + 1),
  });
  assert.equal(big.status, 413);
  await big.body?.cancel();
  const empty = await a.request("/echo", { method: "POST" });
  assert.equal(empty.status, 200);
  assert.equal(await empty.text(), "undefined:");
  assert.deepEqual(seen, [""]);
});
