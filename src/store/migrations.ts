/**
 * Ordered schema migrations, recorded in the database. A migration never
 * changes once released: new needs get a new migration, so nothing a user
 * saved is lost by an upgrade.
 *
 * @module
 */
import type { Db } from "./client.ts";
import { LATER_MIGRATIONS } from "./migrations_later.ts";

export type { Migration } from "./migrations_later.ts";
import type { Migration } from "./migrations_later.ts";

/** Every migration, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "executions, call log, logs, snippets",
    statements: [
      `CREATE TABLE executions (
        id TEXT PRIMARY KEY,
        code TEXT NOT NULL,
        input TEXT,
        status TEXT NOT NULL CHECK (status IN ('running','paused','completed','error','rejected','rolled_back')),
        result TEXT,
        error TEXT,
        connectors TEXT NOT NULL,
        declaration_hash TEXT NOT NULL,
        limits TEXT NOT NULL,
        policy TEXT NOT NULL,
        owner TEXT,
        lease_until INTEGER,
        passes INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        ended_at INTEGER
      )`,
      "CREATE INDEX executions_status_created ON executions (status, created_at DESC, id DESC)",
      "CREATE INDEX executions_created ON executions (created_at DESC, id DESC)",
      `CREATE TABLE calls (
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
      )`,
      "CREATE INDEX calls_pending ON calls (state) WHERE state = 'pending'",
      `CREATE TABLE logs (
        execution_id TEXT NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        level TEXT NOT NULL,
        message TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        PRIMARY KEY (execution_id, seq)
      )`,
      `CREATE TABLE snippets (
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        description TEXT NOT NULL,
        code TEXT NOT NULL,
        input_schema TEXT,
        connectors TEXT NOT NULL,
        declaration_hash TEXT NOT NULL,
        source_execution_id TEXT,
        stale INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (name, version)
      )`,
    ],
  },
  {
    version: 2,
    name: "observed output shapes; snippet lookups",
    statements: [
      `CREATE TABLE tool_shapes (
        connector TEXT NOT NULL,
        tool TEXT NOT NULL,
        shape TEXT NOT NULL,
        samples INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (connector, tool)
      )`,
      "CREATE INDEX snippets_latest ON snippets (name, version DESC)",
    ],
  },
  {
    version: 3,
    name: "namespaces, log references, API keys",
    statements: [
      "ALTER TABLE executions ADD COLUMN namespace TEXT NOT NULL DEFAULT 'default'",
      "ALTER TABLE executions ADD COLUMN log_ref TEXT",
      "CREATE UNIQUE INDEX executions_log_ref ON executions (log_ref)",
      "CREATE INDEX executions_namespace_created ON executions (namespace, created_at DESC, id DESC)",
      // A snippet's name is unique within its namespace: the key changes, so the table is rebuilt.
      `CREATE TABLE snippets_v3 (
        namespace TEXT NOT NULL DEFAULT 'default',
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        description TEXT NOT NULL,
        code TEXT NOT NULL,
        input_schema TEXT,
        connectors TEXT NOT NULL,
        declaration_hash TEXT NOT NULL,
        source_execution_id TEXT,
        stale INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (namespace, name, version)
      )`,
      `INSERT INTO snippets_v3 (name, version, description, code, input_schema, connectors,
          declaration_hash, source_execution_id, stale, created_at)
        SELECT name, version, description, code, input_schema, connectors, declaration_hash,
          source_execution_id, stale, created_at FROM snippets`,
      "DROP TABLE snippets",
      "ALTER TABLE snippets_v3 RENAME TO snippets",
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        namespace TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER,
        last_used_at INTEGER
      )`,
    ],
  },
  {
    version: 4,
    name: "artifacts",
    statements: [
      // Every version is kept; the key's order also serves "newest of a name" and name paging.
      `CREATE TABLE artifacts (
        namespace TEXT NOT NULL DEFAULT 'default',
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        data BLOB NOT NULL,
        source_execution_id TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (namespace, name, version)
      )`,
      // The last version ever given per name: a deleted version's number is never given again,
      // so `name@N` always means the same bytes.
      `CREATE TABLE artifact_names (
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        last_version INTEGER NOT NULL,
        PRIMARY KEY (namespace, name)
      )`,
    ],
  },
  {
    version: 5,
    name: "sessions and their recovery journal",
    statements: [
      "ALTER TABLE executions ADD COLUMN session_id TEXT",
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        namespace TEXT NOT NULL,
        recovery_ref TEXT NOT NULL UNIQUE,
        declaration_hash TEXT NOT NULL,
        node_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active','ended')),
        end_reason TEXT,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER NOT NULL,
        ended_at INTEGER
      )`,
      `CREATE TABLE session_journal (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        execution_id TEXT NOT NULL,
        code TEXT NOT NULL,
        code_truncated INTEGER NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        diagnostics TEXT NOT NULL,
        declaration_hash TEXT NOT NULL,
        classification TEXT NOT NULL CHECK (classification IN ('setup_like','side_effecting','unknown')),
        declared TEXT NOT NULL,
        tool_calls INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
    ],
  },
  ...LATER_MIGRATIONS,
];

/** Applies every migration the database has not seen; returns the versions applied. */
export async function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  await db.execute(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const applied: number[] = [];
  for (const m of migrations) {
    const seen = await db.execute({
      sql: "SELECT 1 FROM schema_migrations WHERE version = ?",
      args: [m.version],
    });
    if (seen.rows.length > 0) continue;
    try {
      await db.batch([
        ...m.statements,
        {
          sql: "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
          args: [m.version, m.name, Date.now()],
        },
      ]);
      applied.push(m.version);
    } catch (err) {
      // Another process may have applied it between our check and our write.
      const again = await db.execute({
        sql: "SELECT 1 FROM schema_migrations WHERE version = ?",
        args: [m.version],
      });
      if (again.rows.length === 0) throw err;
    }
  }
  return applied;
}
