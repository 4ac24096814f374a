/**
 * The embedded database (`file:` and `:memory:`) on the `libsql` engine
 * directly, with prepared statements kept and reused. `@libsql/client`
 * prepares every statement again on each call; on the per-call path of a
 * tool call that was a third of the host's CPU (measured with
 * `--cpu-prof`, see docs/benchmarks.md). Remote databases still go through
 * `@libsql/client`.
 *
 * @module
 */
import Database from "libsql";
import type { InStatement, InValue } from "@libsql/client";

/** What a statement returns. */
export interface DbResult {
  /** The rows, each an object keyed by column name; empty when the statement returns none. */
  rows: Record<string, unknown>[];
  /** How many rows an `INSERT`, `UPDATE` or `DELETE` changed. */
  rowsAffected: number;
}

type Prepared = ReturnType<Database.Database["prepare"]>;

/** How many distinct statements are kept prepared (Cordon uses a few dozen). */
const MAX_PREPARED = 256;

function toSql(value: InValue | undefined): unknown {
  if (value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.valueOf();
  return value;
}

/** An embedded database connection with a statement cache. */
export class LocalDb {
  readonly #db: Database.Database;
  readonly #prepared = new Map<string, { stmt: Prepared; reader: boolean }>();

  constructor(path: string) {
    this.#db = new Database(path);
  }

  execute(stmt: InStatement): DbResult {
    const { sql, args } = typeof stmt === "string" ? { sql: stmt, args: [] } : stmt;
    let cached = this.#prepared.get(sql);
    if (!cached) {
      const prepared = this.#db.prepare(sql);
      cached = { stmt: prepared, reader: prepared.reader };
      if (this.#prepared.size >= MAX_PREPARED) this.#prepared.clear();
      this.#prepared.set(sql, cached);
    }
    const params = Array.isArray(args) ? args.map(toSql) : Object.fromEntries(
      Object.entries(args ?? {}).map(([k, v]) => [k.replace(/^[@$:]/, ""), toSql(v)]),
    );
    // Like @libsql/client, the engine takes positional values as one array, named as an object.
    if (cached.reader) {
      return { rows: cached.stmt.all(params) as Record<string, unknown>[], rowsAffected: 0 };
    }
    return { rows: [], rowsAffected: cached.stmt.run(params).changes };
  }

  /** Runs statements in one write transaction; all or nothing. */
  batch(stmts: InStatement[]): DbResult[] {
    this.execute("BEGIN IMMEDIATE");
    try {
      const out = stmts.map((s) => this.execute(s));
      this.execute("COMMIT");
      return out;
    } catch (err) {
      if (this.#db.inTransaction) this.execute("ROLLBACK");
      throw err;
    }
  }

  close(): void {
    this.#prepared.clear();
    this.#db.close();
  }
}
