/**
 * The schema migrations from version 6 on (migrations.ts holds the first ones and applies them
 * all, in order).
 *
 * @module
 */

/** One schema step. */
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

/** Migrations 6 and later, in order. */
export const LATER_MIGRATIONS: readonly Migration[] = [
  {
    version: 6,
    name: "observed output shapes per namespace",
    statements: [
      // Old rows mixed every tenant's field names, so none can be given to one namespace;
      // shapes are a cache of what results looked like and are learned again from new ones.
      "DROP TABLE tool_shapes",
      `CREATE TABLE tool_shapes (
        namespace TEXT NOT NULL,
        connector TEXT NOT NULL,
        tool TEXT NOT NULL,
        shape TEXT NOT NULL,
        samples INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (namespace, connector, tool)
      )`,
    ],
  },
  {
    version: 7,
    name: "execution retention by end time",
    statements: [
      // Retention deletes ended executions by when they ended, hourly: without an index that is
      // a scan of every execution, on the host's event loop.
      "CREATE INDEX IF NOT EXISTS executions_ended ON executions (ended_at) WHERE ended_at IS NOT NULL",
    ],
  },
  {
    version: 8,
    name: "idempotency keys of the service's POSTs",
    statements: [
      // One row per key a namespace used: the request it stands for (a hash), the process
      // that holds it while the request runs, and the answer once there is one.
      `CREATE TABLE idempotency_keys (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        owner TEXT NOT NULL,
        execution_id TEXT,
        status INTEGER,
        headers TEXT,
        body TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (namespace, key)
      )`,
      "CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at)",
    ],
  },
  {
    version: 9,
    name: "trace ids of executions",
    statements: ["ALTER TABLE executions ADD COLUMN trace_id TEXT"],
  },
  {
    version: 10,
    name: "type-check findings that came after the result",
    statements: [
      "ALTER TABLE executions ADD COLUMN diagnostics TEXT",
      "ALTER TABLE executions ADD COLUMN typecheck_ms REAL",
    ],
  },
  {
    version: 11,
    name: "the call log keyed by its primary key alone",
    // A table with a rowid keeps (execution_id, seq) in a second b-tree: each commit of a call
    // wrote two pages to the WAL. One b-tree, one page: measured, a sequential call's commit on
    // a `file:` store 90–122 → 79–91 µs after the thread sleeps (as it does between calls).
    statements: [
      `CREATE TABLE calls_v11 (
        execution_id TEXT NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        connector TEXT NOT NULL,
        tool TEXT NOT NULL,
        args TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('executing','applied','pending','error','rejected','reverted')),
        kind TEXT NOT NULL DEFAULT 'tool',
        result TEXT,
        error TEXT,
        needs TEXT CHECK (needs IN ('approval','value')),
        decision TEXT CHECK (decision IN ('approved','rejected','resolved')),
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        PRIMARY KEY (execution_id, seq)
      ) WITHOUT ROWID`,
      `INSERT INTO calls_v11 (execution_id, seq, connector, tool, args, state, kind, result, error,
        needs, decision, started_at, ended_at)
        SELECT execution_id, seq, connector, tool, args, state, kind, result, error, needs,
          decision, started_at, ended_at FROM calls`,
      "DROP TABLE calls",
      "ALTER TABLE calls_v11 RENAME TO calls",
      "CREATE INDEX calls_pending ON calls (state) WHERE state = 'pending'",
    ],
  },
];
