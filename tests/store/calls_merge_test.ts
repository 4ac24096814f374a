/**
 * The journal's writes merged into multi-row statements leave the same rows as the writes one
 * by one; a group commit of a thousand calls lets a timer run; ending a run rejects every call
 * still waiting for a decision in one statement.
 */
import assert from "node:assert/strict";
import type { InStatement } from "@libsql/client";
import type { Db } from "../../src/store/client.ts";
import { withExecutionDb } from "../_helpers/store_db.ts";
import {
  appendStatement,
  CallStore,
  finishStatement,
  mergeCallWrites,
  setStateStatement,
} from "../../src/store/calls.ts";
import { CommitQueue } from "../../src/engine/execution/commit_queue.ts";
import { errorInfo } from "../../src/errors.ts";

const withDb = withExecutionDb;

/** A mix of appends, finishes and a state change, in the order a burst of calls makes them. */
function writes(count: number): InStatement[] {
  const out: InStatement[] = [];
  const entry = (seq: number) => ({
    executionId: "exec_1",
    seq,
    // Runs where the tool is the same on every row, and runs where it is not (bound once or not).
    connector: seq > 600 && seq % 3 === 0 ? "text" : "math",
    tool: seq > 600 && seq % 3 === 0 ? "upper" : "add",
    kind: "tool" as const,
    state: (seq % 7 === 0 ? "pending" : "executing") as "pending" | "executing",
    startedAt: 1_000 + seq,
    ...(seq % 7 === 0 ? { needs: "approval" as const } : {}),
  });
  for (let seq = 1; seq <= count; seq++) out.push(appendStatement(entry(seq), `{"a":${seq}}`));
  for (let seq = 1; seq <= count; seq++) {
    if (seq % 7 === 0) continue;
    out.push(
      seq % 5 === 0
        ? finishStatement("exec_1", seq, "error", { error: errorInfo("tool_error", `no ${seq}`) })
        : finishStatement("exec_1", seq, "applied", { resultJson: String(seq * 2) }),
    );
    if (seq === 50) out.push(setStateStatement("exec_1", 3, "reverted"));
  }
  return out;
}

const rows = async (db: Db) =>
  (await db.execute("SELECT * FROM calls ORDER BY seq")).rows.map((r) => ({
    ...r,
    ended_at: r.ended_at === null ? null : "set",
  }));

/** The rows `statements` leave, and the rows `merged` leave, each in a store of its own. */
async function bothRows(statements: InStatement[], merged: InStatement[]) {
  const out: unknown[][] = [];
  for (const batch of [statements, merged]) {
    await withDb(async (db) => {
      await db.batch(batch);
      out.push(await rows(db));
    });
  }
  return out as [Record<string, unknown>[], Record<string, unknown>[]];
}

Deno.test("merged call writes leave exactly the rows the single writes leave", async () => {
  for (const count of [1, 3, 4, 5, 21, 64, 65, 200, 1000]) {
    const statements = writes(count);
    const merged = mergeCallWrites(statements);
    if (count >= 200) assert.ok(merged.length < statements.length / 10, `${count}: not merged`);
    const [one, many] = await bothRows(statements, merged);
    assert.deepEqual(many, one, `${count} calls`);
  }
});

Deno.test("a group commit of thousands of calls gives the event loop turns meanwhile", async () => {
  await withDb(async (db) => {
    const queue = new CommitQueue(new CallStore(db));
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    try {
      const statements = writes(6_000);
      await Promise.all(statements.map((s) => queue.write(s)));
      await queue.flush();
    } finally {
      clearInterval(timer);
    }
    const count = (await db.execute("SELECT COUNT(*) AS n FROM calls")).rows[0].n;
    assert.equal(Number(count), 6_000);
    assert.ok(turns > 0, "no timer ran while 11,000 statements committed");
  });
});

Deno.test("rejectUndecided rejects only the calls still waiting for a decision", async () => {
  await withDb(async (db) => {
    const calls = new CallStore(db);
    await db.batch(mergeCallWrites(writes(30)));
    assert.ok(await calls.decide("exec_1", 7, "approved"));
    const n = await calls.rejectUndecided("exec_1", errorInfo("rejected", "The run ended"));
    assert.equal(n, 3); // 14, 21, 28; 7 was approved
    const list = await calls.list("exec_1");
    const rejected = list.filter((e) => e.state === "rejected").map((e) => e.seq);
    assert.deepEqual(rejected, [14, 21, 28]);
    assert.equal(list.find((e) => e.seq === 14)!.error?.code, "rejected");
    assert.equal(list.find((e) => e.seq === 7)!.state, "pending");
  });
});

Deno.test("a write-behind commits with the next write, at a flush, or on its own soon after", async () => {
  await withDb(async (db) => {
    let transactions = 0;
    const counting: Db = {
      ...db,
      execute: (s) => (transactions++, db.execute(s)),
      batch: (s) => (transactions++, db.batch(s)),
    };
    const queue = new CommitQueue(new CallStore(counting));
    const [first, second, third] = writes(3);
    const count = async () =>
      Number((await db.execute("SELECT COUNT(*) AS n FROM calls")).rows[0].n);
    // Held: nothing committed yet; the next write takes it along in one transaction.
    const behind = queue.writeBehind(first);
    assert.equal(transactions, 0);
    await queue.write(second);
    await behind;
    assert.equal(transactions, 1);
    assert.equal(await count(), 2);
    // Alone, it commits within a few ms.
    await queue.writeBehind(third);
    assert.equal(transactions, 2);
    assert.equal(await count(), 3);
    // A flush does not wait for the timer.
    const held = queue.writeBehind(finishStatement("exec_1", 1, "applied", { resultJson: "2" }));
    await queue.flush();
    assert.equal(transactions, 3);
    await held;
  });
});

Deno.test("a finish in the same group as its append is folded into it, never across another write", async () => {
  const entry = (seq: number) => ({
    executionId: "exec_1",
    seq,
    connector: "math",
    tool: "add",
    kind: "tool" as const,
    state: "executing" as const,
    startedAt: 1_000 + seq,
  });
  // As calls written behind reach a group: each finish soon after its own append.
  const statements: InStatement[] = [];
  for (let seq = 1; seq <= 300; seq++) {
    statements.push(appendStatement(entry(seq), `{"a":${seq}}`));
    if (seq > 1) {
      statements.push(
        seq % 9 === 0
          ? finishStatement("exec_1", seq - 1, "error", { error: errorInfo("tool_error", "no") })
          : finishStatement("exec_1", seq - 1, "applied", { resultJson: String(seq) }),
      );
    }
    // Between entry 200's append and its finish, a change to that very row.
    if (seq === 200) statements.push(setStateStatement("exec_1", 200, "reverted"));
  }
  const merged = mergeCallWrites(statements);
  const updates = merged.filter((s) =>
    /^UPDATE calls SET state = \?, result/.test((s as { sql: string }).sql)
  );
  // Every finish folds but entry 200's, which comes after a change to its row.
  assert.equal(updates.length, 1, updates.map((s) => (s as { sql: string }).sql).join("\n"));
  assert.deepEqual((updates[0] as { args: unknown[] }).args.slice(-2), ["exec_1", 200]);
  const inserts = merged.filter((s) => (s as { sql: string }).sql.startsWith("INSERT"));
  assert.equal(inserts.length, 7); // 200 rows in 4; one before entry 200's finish; 99 in 2
  const [one, many] = await bothRows(statements, merged);
  assert.deepEqual(many, one);
  assert.equal(one[199].state, "applied", "the finish came last");
});
