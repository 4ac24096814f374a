/**
 * An execution's console lines are stored in chunks, each a transaction, with a turn of the
 * host's event loop between: a flood of lines never holds the host for one long write.
 */
import assert from "node:assert/strict";
import { LOG_CHUNK_LINES, LogStore } from "../../src/store/logs.ts";
import { withExecutionDb } from "../_helpers/store_db.ts";

function withStore(body: (logs: LogStore) => Promise<void>): Promise<void> {
  return withExecutionDb((db) => body(new LogStore(db)));
}

const lines = (n: number, prefix = "line") =>
  Array.from({ length: n }, (_, i) => ({ level: "log", message: `${prefix} ${i}`, atMs: i }));

Deno.test("LogStore.replace() stores twenty thousand lines in order, letting a timer run meanwhile", async () => {
  await withStore(async (logs) => {
    const count = 20_000;
    let timerFired = false;
    const timer = setTimeout(() => timerFired = true, 0);
    await logs.replace("exec_1", lines(count));
    clearTimeout(timer);
    assert.ok(timerFired, "the host got a turn while the lines were stored");
    assert.ok(count > 2 * LOG_CHUNK_LINES);
    const stored = await logs.list("exec_1", 0, count + 1);
    assert.equal(stored.length, count);
    assert.deepEqual(stored.map((l) => l.seq), Array.from({ length: count }, (_, i) => i + 1));
    assert.ok(stored.every((l, i) => l.message === `line ${i}` && l.atMs === i));
  });
});

Deno.test("LogStore.replace() replaces every earlier line, however many chunks either took", async () => {
  await withStore(async (logs) => {
    await logs.replace("exec_1", lines(3 * LOG_CHUNK_LINES + 7, "old"));
    await logs.replace("exec_1", lines(LOG_CHUNK_LINES + 1, "new"));
    const stored = await logs.list("exec_1", 0, 10 * LOG_CHUNK_LINES);
    assert.equal(stored.length, LOG_CHUNK_LINES + 1);
    assert.ok(stored.every((l, i) => l.message === `new ${i}`));
    await logs.replace("exec_1", []);
    assert.deepEqual(await logs.list("exec_1", 0, 10), []);
  });
});
