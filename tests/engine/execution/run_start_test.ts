/**
 * A new execution's row is written while its child already runs (run_start.ts): nothing the
 * child asks of the host is handled before the row is stored and announced, and a row that
 * cannot be written stops the run before any call of it executes.
 */
import assert from "node:assert/strict";
import Database from "libsql";
import { join } from "node:path";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecutionEvent } from "../../../mod.ts";
import { heldUntil } from "../../../src/engine/execution/run_start.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";

/** A tool that notes, when it runs, what the host had done by then. */
function probe(seen: () => unknown) {
  const notes: unknown[] = [];
  const connector = defineConnector({
    name: "probe",
    description: "Notes what it sees",
    tools: {
      touch: {
        description: "Touch",
        input: z.object({}),
        execute: async () => {
          notes.push(await seen());
          return "touched";
        },
      },
    },
  });
  return { connector, notes };
}

Deno.test("a new execution is stored and announced before the host handles anything its child sends", async () => {
  const started: string[] = [];
  let stored: unknown = "not asked";
  const { connector, notes } = probe(async () => {
    stored = started.length === 1 ? await rt.execution(started[0]) : undefined;
    return started.length;
  });
  await using rt = await createRuntime({
    connectors: [connector],
    db: ":memory:",
    typecheck: "off",
  });
  await rt.warm();
  const events: ExecutionEvent[] = [];
  const off = rt.subscribe((e) => events.push(e));
  // The script speaks at once: a line and a call before the host could have written the row.
  const out = await rt.execute(
    { code: 'console.log("first"); await probe.touch({}); return 1' },
    { onStart: (id) => started.push(id) },
  );
  off();
  assert.equal(out.status, "completed");
  assert.deepEqual(notes, [1], "the tool ran before onStart was called");
  assert.ok(
    stored && (stored as { id: string }).id === out.executionId,
    "no row when the call ran",
  );
  const kinds = events.filter((e) => e.executionId === out.executionId).map((e) => e.type);
  assert.equal(kinds[0], "started", `events came before "started": ${kinds.join(", ")}`);
  assert.ok(kinds.includes("log") && kinds.includes("call"), kinds.join(", "));
});

Deno.test("a row that cannot be written stops the run: execute() throws and no call of it runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-run-start-" });
  const path = join(dir, "cordon.db");
  const { connector, notes } = probe(() => "ran");
  try {
    await using rt = await createRuntime({
      connectors: [connector],
      db: `file:${path}`,
      typecheck: "off",
    });
    await rt.warm();
    // Another connection makes the store refuse new executions (as a full disk or a lost lock
    // would refuse the write).
    const other = new Database(path);
    other.exec(
      "CREATE TRIGGER refuse BEFORE INSERT ON executions BEGIN SELECT RAISE(ABORT, 'refused'); END",
    );
    other.close();
    const started: string[] = [];
    await assert.rejects(
      rt.execute(
        { code: "await probe.touch({}); return 1" },
        { onStart: (id) => started.push(id) },
      ),
      /refused/,
    );
    assert.deepEqual(notes, [], "a call ran under an execution that was never stored");
    assert.deepEqual(started, [], "onStart named an execution that was never stored");
    assert.equal(rt.capabilities().pool.size, 2, "the runtime is still usable");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  await assertNoSandboxChildren();
});

Deno.test("heldUntil keeps requests and notifications until the gate opens, in order, or fails them", async () => {
  const seen: string[] = [];
  const handlers = {
    onRequest: (method: string) => {
      seen.push(`request ${method}`);
      return method;
    },
    onNotification: (method: string) => void seen.push(`note ${method}`),
  };
  const open = Promise.withResolvers<void>();
  const held = heldUntil(open.promise, handlers);
  const first = held.onRequest!("a", undefined);
  held.onNotification!("b", undefined);
  const second = held.onRequest!("c", undefined);
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(seen, [], "handled before the gate opened");
  open.resolve();
  assert.deepEqual(await Promise.all([first, second]), ["a", "c"]);
  assert.deepEqual(seen, ["request a", "note b", "request c"]);
  held.onNotification!("d", undefined);
  assert.equal(seen.at(-1), "note d", "once open, a notification goes straight through");

  const shut = Promise.withResolvers<void>();
  const refused = heldUntil(shut.promise, handlers);
  const waiting = refused.onRequest!("e", undefined);
  refused.onNotification!("f", undefined);
  shut.reject(new Error("SQLITE_IOERR: /var/lib/cordon/cordon.db"));
  await assert.rejects(Promise.resolve(waiting), (err: Error & { code?: string }) => {
    assert.equal(err.code, "store_unavailable");
    assert.ok(!err.message.includes("/var/lib"), "the store's words reached the child");
    return true;
  });
  await new Promise((r) => setTimeout(r, 5));
  const handled: string[] = seen;
  assert.equal(handled.includes("request e") || handled.includes("note f"), false);
  assert.equal(heldUntil(undefined, handlers), handlers, "no gate, the handlers as they are");
});
