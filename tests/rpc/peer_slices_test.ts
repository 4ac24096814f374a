import assert from "node:assert/strict";
import { Peer, SLICE_MAX_REQUESTS } from "../../src/rpc/peer.ts";

/** A request frame as the other side would send it (values in the tagged encoding are plain). */
const request = (id: number, params: unknown) => ({ jsonrpc: "2.0", id, method: "echo", params });

Deno.test("Peer.receive() dispatches a burst in slices: a timer set before it runs before the burst's last request", async () => {
  const answers: { id: number; result: unknown }[] = [];
  let timerFired = false;
  let dispatchedBeforeTimer = -1;
  let dispatched = 0;
  const peer = new Peer({
    send: (json) => void answers.push(JSON.parse(json)),
    onRequest: (_method, params) => {
      dispatched++;
      return params;
    },
  });
  setTimeout(() => {
    timerFired = true;
    dispatchedBeforeTimer = dispatched;
  }, 0);
  // The burst arrives in one synchronous stretch, as frames from one read chunk do.
  for (let id = 1; id <= 1000; id++) peer.receive(request(id, id * 2));
  assert.ok(dispatched < 1000, "the burst was not dispatched in one stretch");
  while (answers.length < 1000) await new Promise((r) => setTimeout(r, 0));
  assert.ok(timerFired);
  // One slice (its arming frames included) may run before the timer, and at most one more.
  assert.ok(
    dispatchedBeforeTimer <= 2 * SLICE_MAX_REQUESTS + 4,
    `${dispatchedBeforeTimer} requests ran before the timer`,
  );
  assert.ok(peer.deferredSlices >= 1000 / SLICE_MAX_REQUESTS - 2, `${peer.deferredSlices} slices`);
  // Every request answered, in order, with its own value.
  assert.deepEqual(answers.map((a) => a.id), Array.from({ length: 1000 }, (_, i) => i + 1));
  assert.ok(answers.every((a) => a.result === a.id * 2));
  peer.close();
});

Deno.test("Peer.receive() keeps frames in arrival order across slices", async () => {
  const seen: string[] = [];
  let answered = 0;
  const peer = new Peer({
    send: () => void answered++,
    onRequest: (_m, params) => void seen.push(`call ${params}`),
    onNotification: (_m, params) => void seen.push(`log ${params}`),
  });
  const expected: string[] = [];
  for (let i = 1; i <= 300; i++) {
    peer.receive(request(i, i));
    peer.receive({ jsonrpc: "2.0", method: "log", params: i });
    expected.push(`call ${i}`, `log ${i}`);
  }
  while (answered < 300) await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(seen, expected);
  peer.close();
});

Deno.test("Peer.close() still handles the waiting log lines and answers but runs no waiting request", async () => {
  const logs: unknown[] = [];
  let calls = 0;
  const peer = new Peer({
    send: () => {},
    onRequest: () => void calls++,
    onNotification: (_m, params) => void logs.push(params),
  });
  const run = peer.request("run");
  const runId = 1;
  for (let id = 10; id < 10 + 3 * SLICE_MAX_REQUESTS; id++) peer.receive(request(id, id));
  peer.receive({ jsonrpc: "2.0", method: "log", params: "last words" });
  peer.receive({ jsonrpc: "2.0", id: runId, result: 42 });
  const ran = calls;
  assert.ok(ran < 3 * SLICE_MAX_REQUESTS, "some requests were left waiting");
  peer.close();
  assert.equal(await run, 42, "the answer that arrived before the close counts");
  assert.deepEqual(logs, ["last words"]);
  assert.equal(calls, ran, "no waiting request ran after the close");
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(calls, ran);
});

Deno.test("Peer.idle() resolves once every frame received so far has been handled", async () => {
  const seen: unknown[] = [];
  const peer = new Peer({ send: () => {}, onNotification: (_m, p) => void seen.push(p) });
  await peer.idle();
  for (let i = 0; i < 5; i++) peer.receive({ jsonrpc: "2.0", method: "log", params: i });
  const busy = Array.from(
    { length: 4 * SLICE_MAX_REQUESTS },
    (_, i) => request(i + 1, i),
  );
  for (const frame of busy) peer.receive(frame);
  peer.receive({ jsonrpc: "2.0", method: "log", params: "after the burst" });
  assert.notEqual(seen.at(-1), "after the burst", "the last line waits behind the burst");
  await peer.idle();
  assert.equal(seen.at(-1), "after the burst");
  assert.equal(seen.length, 6);
  peer.close();
});

Deno.test("an unsliced Peer (a sandbox child's) handles a burst in one stretch", () => {
  let dispatched = 0;
  const peer = new Peer({
    send: () => {},
    onRequest: () => void dispatched++,
    unsliced: true,
  });
  for (let id = 1; id <= 1000; id++) peer.receive(request(id, id));
  assert.equal(dispatched, 1000, "frames were deferred to later slices");
  assert.equal(peer.deferredSlices, 0);
  peer.close();
});
