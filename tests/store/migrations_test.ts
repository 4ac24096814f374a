/**
 * Migration 11 rebuilds the call log keyed by its primary key alone: a store written before it
 * keeps every entry, its pending index and its cascade from executions.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDb } from "../../src/store/client.ts";
import { migrate, MIGRATIONS } from "../../src/store/migrations.ts";

const ENTRY_COLUMNS =
  "execution_id, seq, connector, tool, args, state, kind, result, error, needs, decision, started_at, ended_at";

Deno.test("migration 11 keeps every call-log entry, the pending index and the cascade", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-migrate-" });
  const db = await openDb(`file:${join(dir, "cordon.db")}`);
  try {
    assert.deepEqual(
      await migrate(db, MIGRATIONS.filter((m) => m.version < 11)),
      MIGRATIONS.filter((m) => m.version < 11).map((m) => m.version),
    );
    for (const id of ["exec_a", "exec_b"]) {
      await db.execute({
        sql: `INSERT INTO executions (id, code, status, connectors, declaration_hash, limits,
                policy, created_at, updated_at, namespace)
              VALUES (?, 'return 1', 'paused', '[]', 'h', '{}', '{}', 1, 1, 'default')`,
        args: [id],
      });
    }
    const rows = [
      ["exec_a", 1, "math", "add", '{"a":1}', "applied", "tool", "2", null, null, null, 10, 11],
      [
        "exec_a",
        2,
        "gate",
        "send",
        "{}",
        "pending",
        "tool",
        null,
        null,
        "approval",
        null,
        12,
        null,
      ],
      [
        "exec_a",
        3,
        "codemode",
        "step",
        '{"name":"x"}',
        "applied",
        "step",
        '"v"',
        null,
        null,
        null,
        13,
        14,
      ],
      [
        "exec_b",
        1,
        "gate",
        "send",
        "{}",
        "rejected",
        "tool",
        null,
        '{"code":"rejected"}',
        "approval",
        "rejected",
        15,
        16,
      ],
    ];
    for (const args of rows) {
      await db.execute({
        sql: `INSERT INTO calls (${ENTRY_COLUMNS}) VALUES (${args.map(() => "?").join(", ")})`,
        args,
      });
    }
    const before =
      (await db.execute(`SELECT ${ENTRY_COLUMNS} FROM calls ORDER BY execution_id, seq`)).rows;

    assert.deepEqual(await migrate(db), [11]);
    const after =
      (await db.execute(`SELECT ${ENTRY_COLUMNS} FROM calls ORDER BY execution_id, seq`)).rows;
    assert.deepEqual(after, before);
    // One b-tree: no rowid any more.
    await assert.rejects(db.execute("SELECT rowid FROM calls"), /rowid/);
    const indexes = (await db.execute(
      "SELECT name FROM sqlite_master WHERE tbl_name = 'calls' AND type = 'index' AND sql IS NOT NULL",
    )).rows.map((r) => r.name);
    assert.deepEqual(indexes, ["calls_pending"]);
    const pending =
      (await db.execute("SELECT execution_id, seq FROM calls WHERE state = 'pending'")).rows;
    assert.deepEqual(pending.map((r) => [r.execution_id, r.seq]), [["exec_a", 2]]);
    // The key still refuses a second entry under the same seq, and the cascade still runs.
    await assert.rejects(
      db.execute({
        sql: `INSERT INTO calls (${ENTRY_COLUMNS}) VALUES (${rows[0].map(() => "?").join(", ")})`,
        args: rows[0],
      }),
      /UNIQUE|PRIMARY KEY/,
    );
    await db.execute("DELETE FROM executions WHERE id = 'exec_a'");
    const left = (await db.execute("SELECT execution_id FROM calls")).rows.map((r) =>
      r.execution_id
    );
    assert.deepEqual(left, ["exec_b"]);
    // Applied once: a second migrate() does nothing.
    assert.deepEqual(await migrate(db), []);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
