/**
 * The default (`warn`) type check off the result path: a run that completed returns without
 * waiting for its check (`meta.typecheck: "pending"`), and the findings come afterwards, stored
 * with the execution and sent as a `diagnostics` event. Failed runs still wait for them; a
 * session's next check waits for the earlier one; close() waits for checks still finishing.
 *
 * Real children (createRuntime) and real libSQL (`:memory:` and a `file:` database). The
 * checker's internal test seam holds a check's answer back, to make "pending" certain.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createRuntime, type ExecutionEvent, type Runtime } from "../../../mod.ts";
import { checkerSeam } from "../../../src/engine/typecheck/checker.ts";
import { EventLog } from "../../../src/service/requests/event_log.ts";

/** Line 2 assigns a number to a string: TS2322 there; the run itself completes. */
const TYPE_ERROR = "const n: number = 1;\nconst s: string = n;\nreturn s;";

async function withDelay<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  checkerSeam.delayMs = ms;
  try {
    return await fn();
  } finally {
    checkerSeam.delayMs = 0;
  }
}

/** The stored execution once its late findings are in (fails after `ms`). */
async function lateFindings(rt: Runtime, id: string, ms = 15_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const d = await rt.execution(id);
    if (d?.diagnostics) return d;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`execution ${id} never got its diagnostics`);
}

function events(rt: Runtime): ExecutionEvent[] {
  const seen: ExecutionEvent[] = [];
  rt.subscribe((e) => seen.push(e));
  return seen;
}

function codes(ds: { code: string; line?: number }[] | undefined): string[] {
  return (ds ?? []).filter((d) => d.code.startsWith("TS")).map((d) => `${d.code}@${d.line}`);
}

for (const where of [":memory:", "file"] as const) {
  Deno.test(`warn, ${where}: a completed run's findings are in the result or come after it, never neither`, async () => {
    const dir = await Deno.makeTempDir();
    const db = where === "file" ? pathToFileURL(join(dir, "c.db")).href : ":memory:";
    try {
      await using rt = await createRuntime({ db, pool: { size: 0 }, dataDir: dir });
      const seen = events(rt);
      const r = await rt.execute({ code: TYPE_ERROR });
      assert.equal(r.status, "completed", Deno.inspect(r));
      if (r.meta.typecheck === "done") {
        assert.deepEqual(codes(r.diagnostics), ["TS2322@2"]);
        assert.equal(typeof r.meta.typecheckMs, "number");
      } else {
        assert.equal(r.meta.typecheck, "pending");
        assert.deepEqual(codes(r.diagnostics), [], "a pending result carries none");
        const d = await lateFindings(rt, r.executionId);
        assert.deepEqual(codes(d.diagnostics), ["TS2322@2"]);
        assert.equal(d.meta?.typecheck, "done");
        const ev = seen.find((e) => e.type === "diagnostics" && e.executionId === r.executionId);
        assert.ok(ev && ev.type === "diagnostics", "a diagnostics event was emitted");
        assert.deepEqual(ev.diagnostics, d.diagnostics);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("warn: a completed run returns before its check answers; the findings are stored and sent", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  await rt.warm();
  const seen = events(rt);
  await withDelay(2_000, async () => {
    const t0 = performance.now();
    const r = await rt.execute({ code: TYPE_ERROR });
    const took = performance.now() - t0;
    assert.equal(r.status, "completed");
    assert.ok(took < 1_500, `the result waited for the check: ${took} ms`);
    assert.equal(r.meta.typecheck, "pending");
    assert.equal(r.meta.typecheckMs, undefined);
    assert.deepEqual(r.diagnostics, []);
    const done = seen.find((e) => e.type === "done" && e.executionId === r.executionId);
    assert.ok(done?.type === "done" && done.typecheck === "pending", Deno.inspect(done));
    assert.equal((await rt.execution(r.executionId))?.diagnostics, undefined, "not yet");
    const d = await lateFindings(rt, r.executionId);
    assert.deepEqual(codes(d.diagnostics), ["TS2322@2"]);
    assert.equal(d.meta?.typecheck, "done");
    assert.ok(d.meta!.typecheckMs! >= 0);
    assert.ok(seen.some((e) => e.type === "diagnostics" && e.executionId === r.executionId));
  });
  // Off: no check, no field.
  const off = await rt.execute({ code: TYPE_ERROR, typecheck: "off" });
  assert.equal(off.meta.typecheck, undefined);
});

Deno.test("warn: a run longer than its check carries the findings, typecheck done", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  await rt.warm();
  const seen = events(rt);
  const r = await rt.execute({
    code: `${TYPE_ERROR.replace("return s;", "await new Promise((r) => setTimeout(r, 1500));")}\n` +
      "return s;",
  });
  assert.equal(r.status, "completed");
  assert.equal(r.meta.typecheck, "done");
  assert.deepEqual(codes(r.diagnostics), ["TS2322@2"]);
  assert.equal((await rt.execution(r.executionId))?.diagnostics, undefined, "nothing stored");
  const done = seen.find((e) => e.type === "done" && e.executionId === r.executionId);
  assert.ok(done?.type === "done" && done.typecheck === undefined, "done promised nothing");
  assert.ok(!seen.some((e) => e.type === "diagnostics"), "the result carried them");
});

Deno.test("warn: a failed run waits for its check and carries the findings", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  const seen = events(rt);
  const t0 = performance.now();
  const failed = await withDelay(
    800,
    () => rt.execute({ code: TYPE_ERROR.replace("return s;", 'throw new Error("boom " + s);') }),
  );
  const took = performance.now() - t0;
  assert.equal(failed.status, "error");
  assert.equal(failed.meta.typecheck, "done");
  assert.deepEqual(codes(failed.diagnostics), ["TS2322@2"]);
  assert.ok(took >= 790, `it did not wait for the check: ${took} ms`);
  // Its done came while the check ran: the diagnostics event it promised followed.
  const mine = seen.filter((e) => e.executionId === failed.executionId).map((e) => e.type);
  assert.deepEqual(mine.slice(-2), ["done", "diagnostics"]);
  // Strict is unchanged: it waits, and refuses.
  const strict = await withDelay(300, () => rt.execute({ code: TYPE_ERROR, typecheck: "strict" }));
  assert.equal(strict.status, "error");
  assert.deepEqual(codes(strict.diagnostics), ["TS2322@2"]);
  assert.equal(strict.meta.typecheck, "done");
});

Deno.test("warn, session: the next check waits for the pending one and sees its declarations", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  await withDelay(700, async () => {
    const first = await rt.execute({
      session: true,
      code: "const rows = [{ id: 1, name: 'ada' }];\nreturn rows.length;",
    });
    assert.equal(first.status, "completed");
    assert.equal(first.meta.typecheck, "pending");
    const sessionId = first.meta.sessionId!;
    // Right away, while the first check is pending: checked without `rows`, this is TS2304.
    const second = await rt.execute({ sessionId, code: "return rows[0].email" });
    assert.equal(second.status, "completed");
    assert.equal(second.meta.typecheck, "pending");
    const d = await lateFindings(rt, second.executionId);
    assert.deepEqual(d.diagnostics!.map((x) => x.code), ["TS2339"], Deno.inspect(d.diagnostics));
    assert.match(d.diagnostics![0].message, /email/);
    assert.deepEqual((await lateFindings(rt, first.executionId)).diagnostics, []);
  });
});

Deno.test("close() while a check is pending waits for it: the findings are stored, nothing throws", async () => {
  const dir = await Deno.makeTempDir();
  const db = pathToFileURL(join(dir, "c.db")).href;
  try {
    let id = "";
    let seen: ExecutionEvent[] = [];
    await withDelay(800, async () => {
      const rt = await createRuntime({ db, pool: { size: 0 }, dataDir: dir });
      seen = events(rt);
      const r = await rt.execute({ code: TYPE_ERROR });
      assert.equal(r.meta.typecheck, "pending");
      id = r.executionId;
      await rt.close();
    });
    assert.ok(seen.some((e) => e.type === "diagnostics" && e.executionId === id));
    await using again = await createRuntime({ db, pool: { size: 0 }, dataDir: dir });
    const d = await again.execution(id);
    assert.deepEqual(codes(d?.diagnostics), ["TS2322@2"], "stored before the store closed");
    assert.equal(d?.meta?.typecheck, "done");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("EventLog: a stream's record ends at the diagnostics a pending done promised", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  const log = new EventLog(rt);
  try {
    await withDelay(700, async () => {
      const r = await rt.execute({ code: TYPE_ERROR });
      assert.equal(r.meta.typecheck, "pending");
      const rec = log.get(r.executionId)!;
      assert.equal(rec.events.at(-1)?.type, "done");
      assert.equal(rec.ended, false, "a live stream stays open for the findings");
      await lateFindings(rt, r.executionId);
      assert.equal(rec.ended, true);
      const last = rec.events.at(-1)!;
      assert.equal(last.type, "diagnostics");
      assert.match(last.data, /TS2322/);
    });
    // A run whose check was done in time ends at done, as before.
    const plain = await rt.execute({ code: "return 1", typecheck: "off" });
    assert.equal(log.get(plain.executionId)?.ended, true);
  } finally {
    log.close();
  }
});
