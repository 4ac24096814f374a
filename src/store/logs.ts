/**
 * Console lines of an execution, stored in full up to the execution's
 * `maxConsoleBytes`. A replayed pass re-runs the code from the start, so the
 * last pass's lines replace the earlier ones.
 *
 * @module
 */
import type { Db } from "./client.ts";

/** One stored line. */
export interface StoredLog {
  seq: number;
  level: string;
  message: string;
  atMs: number;
}

/** Data access for console logs. */
export class LogStore {
  constructor(readonly db: Db) {}

  /** Replaces an execution's lines. */
  async replace(
    executionId: string,
    entries: readonly { level: string; message: string; atMs: number }[],
  ): Promise<void> {
    await this.db.batch([
      { sql: "DELETE FROM logs WHERE execution_id = ?", args: [executionId] },
      ...entries.map((e, i) => ({
        sql: "INSERT INTO logs (execution_id, seq, level, message, at_ms) VALUES (?, ?, ?, ?, ?)",
        args: [executionId, i + 1, e.level, e.message, e.atMs],
      })),
    ]);
  }

  /** Lines after `afterSeq`, at most `limit`. */
  async list(executionId: string, afterSeq: number, limit: number): Promise<StoredLog[]> {
    const rs = await this.db.execute({
      sql:
        "SELECT seq, level, message, at_ms FROM logs WHERE execution_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      args: [executionId, afterSeq, limit],
    });
    return rs.rows.map((r) => ({
      seq: Number(r.seq),
      level: String(r.level),
      message: String(r.message),
      atMs: Number(r.at_ms),
    }));
  }
}
