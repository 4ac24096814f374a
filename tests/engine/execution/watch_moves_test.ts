import assert from "node:assert/strict";
import { EventHub, watchMoves } from "../../../src/engine/execution/events.ts";

Deno.test("watchMoves(): a pause or end resolves the wait, also one that came before it; others do not", async () => {
  const hub = new EventHub();
  const subscribe = (l: Parameters<EventHub["subscribe"]>[0]) => hub.subscribe(l);
  using moves = watchMoves(subscribe, "exec_a", true);
  // A move before the wait is not lost.
  hub.emit({ type: "paused", executionId: "exec_a", pending: [] });
  let t = performance.now();
  await moves.next(5_000);
  assert.ok(performance.now() - t < 1_000, "resolved at once");
  // Another execution's end and a console line do not wake it: the timeout does.
  hub.emit({ type: "done", executionId: "exec_b", status: "completed" });
  t = performance.now();
  await moves.next(50);
  assert.ok(performance.now() - t >= 40, "waited for the timeout");
  // Its end during the wait does.
  const waiting = moves.next(5_000);
  hub.emit({ type: "done", executionId: "exec_a", status: "completed" });
  t = performance.now();
  await waiting;
  assert.ok(performance.now() - t < 1_000);
  // An abort ends a wait too.
  const abort = new AbortController();
  const aborted = moves.next(5_000, abort.signal);
  abort.abort();
  await aborted;
});

Deno.test("watchMoves(): pauses are moves only when asked for, and disposing stops listening", async () => {
  const hub = new EventHub();
  const subscribe = (l: Parameters<EventHub["subscribe"]>[0]) => hub.subscribe(l);
  const moves = watchMoves(subscribe, "exec_a", false);
  hub.emit({ type: "paused", executionId: "exec_a", pending: [] });
  const t = performance.now();
  await moves.next(50);
  assert.ok(performance.now() - t >= 40, "a pause is not an end");
  moves[Symbol.dispose]();
  hub.emit({ type: "done", executionId: "exec_a", status: "completed" });
  const t2 = performance.now();
  await moves.next(50);
  assert.ok(performance.now() - t2 >= 40, "no longer listening");
});
