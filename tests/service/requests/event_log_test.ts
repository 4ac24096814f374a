/**
 * Unit test of the event log's total bound (a fake runtime that only emits events): records
 * go longest-ended first, then paused, then the oldest running, and a running record that
 * goes is marked so its streams continue from the store.
 */
import assert from "node:assert/strict";
import type { ExecutionEvent, Runtime } from "../../../src/engine/mod.ts";
import { EventLog } from "../../../src/service/requests/event_log.ts";

function fakeRuntime(): { runtime: Runtime; emit(e: ExecutionEvent): void } {
  let listener: ((e: ExecutionEvent) => void) | undefined;
  const runtime = {
    subscribe(l: (e: ExecutionEvent) => void) {
      listener = l;
      return () => listener = undefined;
    },
  } as unknown as Runtime;
  return { runtime, emit: (e) => listener?.(e) };
}

const line = (executionId: string, chars: number): ExecutionEvent => ({
  type: "log",
  executionId,
  entry: { level: "log", message: "z".repeat(chars), atMs: 0 },
});

Deno.test("EventLog: past the total bound, ended go first, then paused, then running", () => {
  const { runtime, emit } = fakeRuntime();
  const log = new EventLog(runtime, { maxExecutionBytes: 45_000, maxTotalBytes: 50_000 });
  try {
    for (const id of ["run", "pause", "end"]) {
      emit({ type: "started", executionId: id, namespace: "default" });
      emit(line(id, 7_000)); // about 14 KB each
    }
    emit({ type: "paused", executionId: "pause", pending: [] });
    emit({ type: "done", executionId: "end", status: "completed", result: 1 });
    assert.ok(log.bytes <= 50_000 && log.get("end"), "all three fit");
    const running = log.get("run")!;

    emit(line("run", 7_000));
    assert.equal(log.get("end"), undefined, "the ended one went first");
    assert.ok(log.get("pause") && log.get("run"));
    emit(line("run", 7_000));
    assert.equal(log.get("pause"), undefined, "then the paused one");
    assert.equal(running.evicted, false);

    // One execution alone: its oldest lines go past its own bound, never its start.
    for (let i = 0; i < 5; i++) emit(line("run", 7_000));
    assert.ok(running.bytes <= 45_000, `${running.bytes}`);
    assert.equal(running.events[0].type, "started");
    assert.ok(running.dropped > 0);

    // A second running execution pushes the total past the bound: the oldest running goes.
    emit({ type: "started", executionId: "next", namespace: "default" });
    for (let i = 0; i < 2; i++) emit(line("next", 7_000));
    assert.equal(log.get("run"), undefined);
    assert.equal(running.evicted, true, "its streams move to the store");
    assert.equal(running.events.length, 0);
    assert.ok(log.bytes <= 50_000, `${log.bytes}`);

    // Later events of an execution whose record went are not kept (its start is gone).
    emit(line("run", 10));
    emit({ type: "done", executionId: "run", status: "completed" });
    assert.equal(log.get("run"), undefined);
  } finally {
    log.close();
  }
});
