/** A migrated store (`:memory:` by default) holding one running execution, `exec_1`, for store tests. */
import { type Db, openDb } from "../../src/store/client.ts";
import { migrate } from "../../src/store/migrations.ts";

/** Runs `body` with the store (`:memory:` unless `url` says otherwise); closes it after. */
export async function withExecutionDb(
  body: (db: Db) => Promise<void>,
  url = ":memory:",
): Promise<void> {
  const db = await openDb(url);
  try {
    await migrate(db);
    await db.execute({
      sql: `INSERT INTO executions (id, code, status, connectors, declaration_hash, limits,
              policy, created_at, updated_at, namespace)
            VALUES ('exec_1', 'return 1', 'running', '[]', 'h', '{}', '{}', 1, 1, 'default')`,
    });
    await body(db);
  } finally {
    db.close();
  }
}
