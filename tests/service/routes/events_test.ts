import assert from "node:assert/strict";
import { openService, readEvents } from "../_service.ts";

const SLOW_LOGS = `for (let i = 0; i < 4; i++) {
    console.log("tick " + i);
    await math.add({ a: i, b: i });
  }
  return "ok";`;

Deno.test("SSE: wait:false answers 202, and the stream carries logs, calls and the end", async () => {
  await using t = await openService();
  const started = await t.call("POST", "/v1/executions", { code: SLOW_LOGS, wait: false });
  assert.equal(started.status, 202, JSON.stringify(started.json));
  assert.equal(started.json.status, "running");
  const url = `${t.service.url}${started.json.links.events}`;
  const all = await readEvents(url, (e) => e.event === "done");
  assert.equal(all.status, 200);
  const types = all.events.map((e) => e.event);
  assert.equal(types[0], "started");
  assert.equal(types.at(-1), "done");
  assert.equal(types.filter((x) => x === "log").length, 4);
  assert.equal(types.filter((x) => x === "call").length, 8, "executing and applied per call");
  assert.deepEqual(all.events.map((e) => Number(e.id)), all.events.map((_, i) => i + 1));
  assert.equal(all.events.at(-1)!.data.result, "ok");

  // Reconnecting with Last-Event-ID sends only what came after.
  const resumed = await readEvents(url, (e) => e.event === "done", { "last-event-id": "5" });
  assert.deepEqual(
    resumed.events.map((e) => e.id),
    all.events.slice(5).map((e) => e.id),
  );
  assert.deepEqual(resumed.events.map((e) => e.data), all.events.slice(5).map((e) => e.data));
  // The query parameter does the same for clients that cannot set headers.
  const byQuery = await readEvents(`${url}?lastEventId=${all.events.length - 1}`, () => false);
  assert.deepEqual(byQuery.events.map((e) => e.event), ["done"]);
  assert.equal(byQuery.ended, true, "the stream ends after done");
});

Deno.test("SSE: a dropped stream resumes mid-run without losing an event", async () => {
  await using t = await openService();
  const code =
    `for (let i = 0; i < 6; i++) { console.log("n" + i); await mail.send({ to: "p" + i }); }
    return "sent";`;
  const started = await t.call("POST", "/v1/executions", { code, wait: false });
  const id = started.json.executionId;
  const url = `${t.service.url}/v1/executions/${id}/events`;
  // First connection: read until the first pause, then drop it.
  const first = await readEvents(url, (e) => e.event === "paused");
  assert.equal(first.ended, false);
  const lastId = first.events.at(-1)!.id!;
  // Decide every call while nobody listens, then reconnect.
  for (let i = 0; i < 6; i++) {
    const r = await t.call("POST", `/v1/executions/${id}/approve`);
    assert.ok(["paused", "completed"].includes(r.json.status), JSON.stringify(r.json));
  }
  const rest = await readEvents(url, (e) => e.event === "done", { "last-event-id": lastId });
  const ids = [...first.events, ...rest.events].map((e) => Number(e.id));
  assert.deepEqual(ids, ids.map((_, i) => i + 1), "no gap, no repeat");
  const logs = [...first.events, ...rest.events].filter((e) => e.event === "log");
  assert.deepEqual(logs.map((e) => e.data.entry.message), ["n0", "n1", "n2", "n3", "n4", "n5"]);
  assert.equal(rest.events.filter((e) => e.event === "paused").length, 5);
  assert.equal(rest.events.at(-1)!.data.status, "completed");
});

Deno.test("SSE: after a restart the stream is rebuilt from the store", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-sse-" });
  try {
    let id: string;
    {
      await using t = await openService({}, dir);
      const r = await t.call("POST", "/v1/executions", { code: SLOW_LOGS });
      assert.equal(r.json.status, "completed");
      id = r.json.executionId;
      const p = await t.call("POST", "/v1/executions", {
        code: `console.log("waiting"); return await mail.send({ to: "z" })`,
      });
      assert.equal(p.json.status, "paused");
      await Deno.writeTextFile(`${dir}/paused-id`, p.json.executionId);
    }
    await using t = await openService({}, dir);
    const ended = await readEvents(`${t.service.url}/v1/executions/${id}/events`, () => false);
    assert.equal(ended.ended, true);
    const types = ended.events.map((e) => e.event);
    assert.deepEqual(types, [
      "started",
      "log",
      "log",
      "log",
      "log",
      ...Array(4).fill("call"),
      "done",
    ]);
    assert.equal(ended.events.at(-1)!.data.result, "ok");

    // A paused execution: the snapshot ends with paused, and the stream follows the decision.
    const pausedId = await Deno.readTextFile(`${dir}/paused-id`);
    const url = `${t.service.url}/v1/executions/${pausedId}/events`;
    const watching = readEvents(url, (e) => e.event === "done");
    await new Promise((r) => setTimeout(r, 300));
    const approved = await t.call("POST", `/v1/executions/${pausedId}/approve`);
    assert.equal(approved.json.status, "completed", JSON.stringify(approved.json));
    const seen = await watching;
    const kinds = seen.events.map((e) => e.event);
    assert.equal(kinds.indexOf("paused") < kinds.indexOf("done"), true, kinds.join(","));
    assert.equal(seen.events.at(-1)!.data.result, "sent to z");
    const ids = seen.events.map((e) => Number(e.id));
    assert.deepEqual(ids, ids.map((_, i) => i + 1));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SSE: unknown or foreign executions are 404, and shutdown ends open streams", async () => {
  const t = await openService();
  try {
    const missing = await readEvents(
      `${t.service.url}/v1/executions/exec_nope/events`,
      () => false,
    );
    assert.equal(missing.status, 404);
    const paused = await t.call("POST", "/v1/executions", {
      code: `return await mail.send({ to: "q" })`,
    });
    const open = readEvents(
      `${t.service.url}/v1/executions/${paused.json.executionId}/events`,
      () => false,
    );
    await new Promise((r) => setTimeout(r, 300));
    await t.service.close();
    const streamed = await open;
    assert.equal(streamed.ended, true);
    assert.equal(streamed.events.at(-1)!.event, "paused");
    // The paused execution stays paused in the store.
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("SSE: a warn check pending at done streams its diagnostics, then the stream ends", async () => {
  const { checkerSeam } = await import("../../../src/engine/typecheck/checker.ts");
  await using t = await openService({ typecheck: "warn" });
  checkerSeam.delayMs = 800;
  try {
    const code = "const n: number = 1;\nconst s: string = n;\nreturn s;";
    const started = await t.call("POST", "/v1/executions", { code, wait: false });
    assert.equal(started.status, 202, JSON.stringify(started.json));
    const all = await readEvents(`${t.service.url}${started.json.links.events}`, () => false);
    assert.equal(all.ended, true, "the stream ended by itself");
    const types = all.events.map((e) => e.event);
    assert.deepEqual(types.slice(-2), ["done", "diagnostics"], types.join(","));
    assert.equal(all.events.at(-2)!.data.typecheck, "pending");
    const found = all.events.at(-1)!.data.diagnostics;
    assert.deepEqual(found.map((d: { code: string; line: number }) => [d.code, d.line]), [
      ["TS2322", 2],
    ]);
    // GET serialises the stored execution: the late findings are there.
    const read = await t.call("GET", `/v1/executions/${started.json.executionId}`);
    assert.deepEqual(read.json.diagnostics, found);
    assert.equal(read.json.meta.typecheck, "done");
  } finally {
    checkerSeam.delayMs = 0;
  }
});
