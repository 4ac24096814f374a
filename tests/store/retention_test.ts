/**
 * The store's retention deletes in chunks (each a transaction) until nothing is left to
 * delete, each execution with its call log and console lines; running and paused ones stay.
 */
import assert from "node:assert/strict";
import { openDb } from "../../src/store/client.ts";
import { migrate } from "../../src/store/migrations.ts";
import { PRUNE_CHUNK, pruneExecutions } from "../../src/store/retention.ts";

Deno.test("pruneExecutions() deletes past several chunks, with call logs and lines, and leaves live runs", async () => {
  const db = await openDb(":memory:");
  try {
    await migrate(db);
    const ended = PRUNE_CHUNK * 2 + 17;
    const statuses = ["running", "paused", ...Array(ended).fill("completed")];
    for (const [i, status] of statuses.entries()) {
      const id = `exec_${i}`;
      const endedAt = status === "completed" ? 1_000 + i : null;
      await db.batch([
        {
          sql: `INSERT INTO executions (id, code, status, connectors, declaration_hash, limits,
                  policy, created_at, updated_at, ended_at, namespace)
                VALUES (?, 'return 1', ?, '[]', 'h', '{}', '{}', ?, ?, ?, ?)`,
          args: [id, status, 1_000 + i, 1_000 + i, endedAt, i % 2 ? "a" : "b"],
        },
        {
          sql: `INSERT INTO calls (execution_id, seq, connector, tool, args, state, started_at)
                VALUES (?, 1, 'c', 't', '{}', 'applied', 0)`,
          args: [id],
        },
        {
          sql:
            "INSERT INTO logs (execution_id, seq, level, message, at_ms) VALUES (?, 1, 'log', 'x', 0)",
          args: [id],
        },
      ]);
    }
    const count = async (table: string) =>
      Number((await db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    assert.equal(await pruneExecutions(db, { keepPerNamespace: 5 }), ended - 10);
    assert.equal(await count("executions"), 12);
    assert.equal(await pruneExecutions(db, { endedBefore: Number.MAX_SAFE_INTEGER }), 10);
    const left = await db.execute("SELECT id, status FROM executions ORDER BY id");
    assert.deepEqual(left.rows.map((r) => r.status), ["running", "paused"]);
    assert.equal(await count("calls"), 2, "no orphaned call log");
    assert.equal(await count("logs"), 2, "no orphaned lines");
  } finally {
    db.close();
  }
});
