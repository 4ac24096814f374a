/**
 * The event logs behind streams are bounded in bytes, per execution and in total, and a
 * stream of an execution whose events were let go is rebuilt from the store.
 */
import assert from "node:assert/strict";
import { openService, readEvents } from "../_service.ts";

const KiB = 1024;
const BOUNDS = { maxExecutionBytes: 64 * KiB, maxTotalBytes: 256 * KiB };
/** 200 lines of 500 characters: about 200 KiB as UTF-16, three times one execution's bound. */
const VERBOSE = `for (let i = 0; i < 200; i++) console.log(String(i).padStart(500, "x"));
  return "done";`;

Deno.test("event log: many verbose runs stay under the byte bounds", async () => {
  await using t = await openService({ events: BOUNDS });
  const ids: string[] = [];
  let peak = 0;
  for (let i = 0; i < 12; i++) {
    const r = await t.call("POST", "/v1/executions", { code: VERBOSE });
    assert.equal(r.json.status, "completed", JSON.stringify(r.json).slice(0, 300));
    ids.push(r.json.executionId);
    peak = Math.max(peak, t.service.events.bytes);
    const rec = t.service.events.get(r.json.executionId);
    if (rec) assert.ok(rec.bytes <= BOUNDS.maxExecutionBytes, `${rec.bytes} bytes for one run`);
  }
  assert.ok(peak > 0, "events were kept");
  assert.ok(peak <= BOUNDS.maxTotalBytes, `${peak} bytes kept in all`);
  // 12 runs of ~64 KiB cannot all fit: the oldest went first, the newest is still held.
  assert.equal(t.service.events.get(ids[0]), undefined);
  assert.ok(t.service.events.get(ids.at(-1)!));

  // The evicted one streams whole from the store: every line, then its end.
  const url = `${t.service.url}/v1/executions/${ids[0]}/events`;
  const rebuilt = await readEvents(url, () => false);
  assert.equal(rebuilt.ended, true);
  const logs = rebuilt.events.filter((e) => e.event === "log");
  assert.equal(logs.length, 200);
  assert.equal(logs[0].data.entry.message, "0".padStart(500, "x"));
  assert.equal(logs[199].data.entry.message, "199".padStart(500, "x"));
  assert.equal(rebuilt.events[0].event, "started");
  assert.equal(rebuilt.events.at(-1)!.event, "done");
  assert.equal(rebuilt.events.at(-1)!.data.result, "done");
  assert.deepEqual(rebuilt.events.map((e) => Number(e.id)), rebuilt.events.map((_, i) => i + 1));

  // The held one kept its newest lines within its bound, and its end.
  const held = t.service.events.get(ids.at(-1)!)!;
  assert.ok(held.dropped > 0);
  assert.equal(held.events.at(-1)!.type, "done");
});

Deno.test("event log: a result larger than one execution's bound streams from the store", async () => {
  await using t = await openService({ events: BOUNDS });
  const r = await t.call("POST", "/v1/executions", {
    code: `return "y".repeat(100_000)`,
    // Inline, so the done event itself carries the whole value past the log's bound.
    limits: { inlineResultBytes: 200_000 },
    wait: false,
  });
  assert.equal(r.status, 202);
  const url = `${t.service.url}/v1/executions/${r.json.executionId}/events`;
  const seen = await readEvents(url, (e) => e.event === "done");
  assert.equal(seen.events.at(-1)!.data.result, "y".repeat(100_000));
  assert.equal(t.service.events.get(r.json.executionId), undefined, "not held past its bound");
  assert.ok(t.service.events.bytes <= BOUNDS.maxTotalBytes);
  const again = await readEvents(url, () => false);
  assert.equal(again.events.at(-1)!.data.result, "y".repeat(100_000));
});

Deno.test("event log: a live stream whose running record is let go continues from the store", async () => {
  await using t = await openService({
    events: { maxExecutionBytes: 16 * KiB, maxTotalBytes: 17 * KiB },
  });
  // A slow run: ten lines of 1,000 characters, one every 150 ms.
  const slow = await t.call("POST", "/v1/executions", {
    code: `for (let i = 0; i < 10; i++) {
      console.log(String(i).padStart(1_000, "s"));
      await new Promise((r) => setTimeout(r, 150));
    }
    return "slow done";`,
    wait: false,
  });
  const id = slow.json.executionId;
  const url = `${t.service.url}/v1/executions/${id}/events`;
  let pushed: Promise<unknown> | undefined;
  const seen = await readEvents(url, (e) => {
    // Once the stream is live, a second run pushes the total past its bound: the slow run is
    // the oldest running one, so its record goes while its stream reads it.
    if (e.event === "log" && !pushed) {
      pushed = t.call("POST", "/v1/executions", {
        code: `for (let i = 0; i < 40; i++) console.log(String(i).padStart(1_000, "f"));`,
      });
    }
    return e.event === "done";
  });
  await pushed;
  assert.equal(t.service.events.get(id), undefined, "the slow run's record went");
  const messages = new Set(
    seen.events.filter((e) => e.event === "log").map((e) => e.data.entry.message),
  );
  assert.deepEqual(
    [...messages].sort(),
    Array.from({ length: 10 }, (_, i) => String(i).padStart(1_000, "s")).sort(),
    "every line arrived",
  );
  assert.equal(seen.events.at(-1)!.data.result, "slow done");
  const ids = seen.events.map((e) => Number(e.id));
  assert.ok(ids.every((n, i) => i === 0 || n > ids[i - 1]), `ids increase: ${ids.join(",")}`);
  assert.ok(t.service.events.bytes <= 17 * KiB);
});
