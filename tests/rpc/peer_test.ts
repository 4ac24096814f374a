import assert from "node:assert/strict";
import { CordonError, type ErrorInfo } from "../../src/errors.ts";
import { Peer, type PeerOptions } from "../../src/rpc/peer.ts";

function pair(b: Partial<PeerOptions> = {}, a: Partial<PeerOptions> = {}) {
  const right: Peer = new Peer({ send: (json) => left.receive(JSON.parse(json)), ...b });
  const left: Peer = new Peer({ send: (json) => right.receive(JSON.parse(json)), ...a });
  return { left, right };
}

Deno.test("Peer.request() resolves with the other side's result, values intact", async () => {
  const { left } = pair({ onRequest: (_m, p) => ({ got: p, at: new Date(0), n: 5n }) });
  const out = await left.request("echo", { bytes: new Uint8Array([1, 2]) }) as Record<
    string,
    unknown
  >;
  assert.deepEqual(out.got, { bytes: new Uint8Array([1, 2]) });
  assert.equal((out.at as Date).getTime(), 0);
  assert.equal(out.n, 5n);
});

Deno.test("Peer.request() rejects with the typed error the handler threw", async () => {
  const { left } = pair({
    onRequest: () => {
      throw new CordonError("tool_not_found", "no such tool", { details: { tool: "x" } });
    },
  });
  await assert.rejects(left.request("call"), (e: unknown) => {
    assert.ok(e instanceof CordonError);
    assert.equal(e.code, "tool_not_found");
    assert.deepEqual(e.details, { tool: "x" });
    return true;
  });
});

Deno.test("Peer.request() turns an unencodable result into result_not_serializable", async () => {
  const { left } = pair({ onRequest: () => ({ f: () => 1 }) });
  await assert.rejects(
    left.request("x"),
    (e: unknown) => e instanceof CordonError && e.code === "result_not_serializable",
  );
});

Deno.test("Peer.request() rejects after its deadline with the given code", async () => {
  const { left } = pair({ onRequest: () => new Promise(() => {}) });
  await assert.rejects(
    left.request("slow", undefined, { timeoutMs: 20, timeoutCode: "tool_timeout" }),
    (e: unknown) => e instanceof CordonError && e.code === "tool_timeout",
  );
  assert.equal(left.pendingCount, 0);
});

Deno.test("Peer.close() fails pending requests and refuses new ones", async () => {
  const { left } = pair({ onRequest: () => new Promise(() => {}) });
  const pending = left.request("wait");
  left.close({ code: "sandbox_crashed", message: "gone" });
  await assert.rejects(
    pending,
    (e: unknown) => e instanceof CordonError && e.code === "sandbox_crashed",
  );
  await assert.rejects(
    left.request("again"),
    (e: unknown) => e instanceof CordonError && e.code === "sandbox_crashed",
  );
});

Deno.test("Peer.receive() reports invalid and unsolicited frames without throwing", () => {
  const faults: ErrorInfo[] = [];
  const p = new Peer({ send: () => {}, onProtocolError: (i) => faults.push(i) });
  p.receive("nope");
  p.receive({ jsonrpc: "1.0", id: 1, method: "x" });
  p.receive({ jsonrpc: "2.0", id: 99, result: 1 });
  p.receive({ jsonrpc: "2.0", id: { bad: true }, method: "x" });
  assert.equal(faults.length, 4);
  assert.ok(faults.every((f) => f.code === "protocol_error"));
});

Deno.test("Peer.notify() delivers notifications without a response", () => {
  const seen: unknown[] = [];
  const sent: string[] = [];
  const { left } = pair({
    onNotification: (m, p) => seen.push([m, p]),
    send: (j) => void sent.push(j),
  });
  left.notify("log", { message: "hi" });
  assert.deepEqual(seen, [["log", { message: "hi" }]]);
  assert.deepEqual(sent, []);
});

Deno.test("Peer.request() onAnswer runs before any frame after the answer is handled", async () => {
  const seen: string[] = [];
  const peer = new Peer({
    send: () => {},
    onProtocolError: (info) => seen.push(`fault: ${info.message}`),
  });
  const answer = peer.request("run", {}, { onAnswer: () => seen.push("answered") });
  // The answer and a forged second answer arrive in the same read.
  peer.receive({ jsonrpc: "2.0", id: 1, result: "real" });
  peer.receive({ jsonrpc: "2.0", id: 1, result: "forged" });
  assert.equal(seen[0], "answered");
  assert.match(seen[1], /no pending request/);
  assert.equal(await answer, "real");
  // An undecodable answer is no answer: onAnswer stays silent and the request fails.
  let called = false;
  const bad = peer.request("run", {}, { onAnswer: () => called = true });
  peer.receive({ jsonrpc: "2.0", id: 2, result: { $t: "bigint", v: "not a number" } });
  await assert.rejects(
    bad,
    (e: unknown) => e instanceof CordonError && e.code === "protocol_error",
  );
  assert.equal(called, false);
});
