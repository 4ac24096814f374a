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

/**
 * How many distinct statements are kept prepared: Cordon's own few dozen, and the journal's
 * merged writes (one text per row count and shape, a few hundred at most).
 */
const MAX_PREPARED = 1024;

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
  readonly #afterWrite?: () => void;

  /** Opens `path`; `afterWrite` runs after each committed write (the store's guard). */
  constructor(path: string, afterWrite?: () => void) {
    this.#db = new Database(path);
    this.#afterWrite = afterWrite;
  }

  /**
   * Runs one statement. `afterWrite` (given at construction) runs after a
   * statement that writes, outside a transaction, before its result is returned.
   */
  execute(stmt: InStatement): DbResult {
    const { result, reader } = this.#run(stmt);
    if (!reader && !this.#db.inTransaction) this.#afterWrite?.();
    return result;
  }

  #run(stmt: InStatement): { result: DbResult; reader: boolean } {
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
      const rows = cached.stmt.all(params) as Record<string, unknown>[];
      return { result: { rows, rowsAffected: 0 }, reader: true };
    }
    return { result: { rows: [], rowsAffected: cached.stmt.run(params).changes }, reader: false };
  }

  /** Runs statements in one write transaction; all or nothing; `afterWrite` runs after the commit. */
  batch(stmts: InStatement[]): DbResult[] {
    this.#run("BEGIN IMMEDIATE");
    let out: DbResult[];
    try {
      out = stmts.map((s) => this.#run(s).result);
      this.#run("COMMIT");
    } catch (err) {
      if (this.#db.inTransaction) this.#run("ROLLBACK");
      throw err;
    }
    this.#afterWrite?.();
    return out;
  }

  close(): void {
    this.#prepared.clear();
    this.#db.close();
  }
}
