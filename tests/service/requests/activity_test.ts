/**
 * Unit test of the activity feed's bounds and lookups, over a fake runtime that only emits
 * events and answers `execution(id)` (the HTTP tests drive a real one).
 */
import assert from "node:assert/strict";
import type { ExecutionDetails, ExecutionEvent, Runtime } from "../../../src/engine/mod.ts";
import { ActivityFeed } from "../../../src/service/requests/activity.ts";

function fakeRuntime(namespaces: Record<string, string> = {}) {
  let listener: ((e: ExecutionEvent) => void) | undefined;
  const lookups: string[] = [];
  const runtime = {
    subscribe(l: (e: ExecutionEvent) => void) {
      listener = l;
      return () => listener = undefined;
    },
    execution(id: string) {
      lookups.push(id);
      const namespace = namespaces[id];
      return Promise.resolve(namespace ? { namespace } as ExecutionDetails : undefined);
    },
  } as unknown as Runtime;
  return { runtime, lookups, emit: (e: ExecutionEvent) => listener?.(e) };
}

const started = (id: string, namespace = "default"): ExecutionEvent => ({
  type: "started",
  executionId: id,
  namespace,
});
const call = (id: string): ExecutionEvent => ({
  type: "call",
  executionId: id,
  call: {
    seq: 1,
    kind: "tool",
    connector: "m",
    tool: "t",
    args: {},
    state: "applied",
    durationMs: 1,
  },
});

Deno.test("ActivityFeed: keeps the newest changes only, numbered without gaps", () => {
  const { runtime, emit } = fakeRuntime();
  const feed = new ActivityFeed(runtime, { maxEvents: 4 });
  try {
    for (let i = 0; i < 5; i++) {
      emit(started(`e${i}`));
      emit({ type: "log", executionId: `e${i}`, entry: { level: "log", message: "x", atMs: 1 } });
      emit({ type: "done", executionId: `e${i}`, status: "completed" });
    }
    assert.equal(feed.lastId, 10);
    assert.equal(feed.firstId, 7);
    assert.deepEqual(feed.after(0).map((e) => `${e.id}:${e.executionId}:${e.change}`), [
      "7:e3:started",
      "8:e3:completed",
      "9:e4:started",
      "10:e4:completed",
    ]);
    assert.deepEqual(feed.after(9).map((e) => e.id), [10]);
    assert.deepEqual(feed.after(10), []);
  } finally {
    feed.close();
  }
});

Deno.test("ActivityFeed: an execution it does not track is looked up once, its events kept in order", async () => {
  const { runtime, emit, lookups } = fakeRuntime({ old: "ops", a: "default" });
  const feed = new ActivityFeed(runtime, { maxTracked: 1 });
  try {
    // Seen from its start, then let go past maxTracked by a newer one.
    emit(started("a"));
    emit({ type: "paused", executionId: "a", pending: [] });
    emit(started("b", "team"));
    // A run paused before this process started comes back to life.
    emit(call("old"));
    emit({ type: "log", executionId: "old", entry: { level: "log", message: "x", atMs: 1 } });
    emit({
      type: "done",
      executionId: "old",
      status: "error",
      error: {
        code: "script_error",
        message: "m".repeat(1_000),
      },
    });
    emit(call("a"));
    emit({ type: "paused", executionId: "a", pending: [] });
    // An execution the store does not know (deleted meanwhile) is dropped quietly.
    emit(call("ghost"));
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(lookups, ["old", "a", "ghost"], "one lookup per execution");
    const changes = feed.after(0).map((e) => `${e.executionId}@${e.namespace}:${e.change}`);
    assert.deepEqual(changes, [
      "a@default:started",
      "a@default:paused",
      "b@team:started",
      "old@ops:resumed",
      "old@ops:error",
      "a@default:resumed",
      "a@default:paused",
    ]);
    const error = feed.after(0).find((e) => e.change === "error")!;
    assert.equal(error.status, "error");
    assert.equal(error.error!.message.length, 300, "messages are cut short");
  } finally {
    feed.close();
  }
});

Deno.test("ActivityFeed: changed() wakes at the next change and at close; deleted() is a change", async () => {
  const { runtime, emit } = fakeRuntime();
  const feed = new ActivityFeed(runtime);
  const woke = feed.changed();
  emit(started("x", "ns"));
  await woke;
  feed.deleted("x", "ns");
  assert.deepEqual(feed.after(1).map((e) => [e.change, e.namespace, e.status]), [
    ["deleted", "ns", undefined],
  ]);
  const closing = feed.changed();
  feed.close();
  await closing;
  assert.equal(feed.closed, true);
  emit(started("y"));
  assert.equal(feed.lastId, 2, "nothing is recorded after close");
});
