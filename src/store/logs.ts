/**
 * Console lines of an execution, stored in full up to the execution's
 * `maxConsoleBytes`. A replayed pass re-runs the code from the start, so the
 * last pass's lines replace the earlier ones.
 *
 * Retention deletes the lines of executions that ended long enough ago and
 * leaves one marker row in their place (`seq` 0, level `expired`, no text,
 * `at_ms` the time of the deletion), so a reader can tell "expired" from
 * "printed nothing" without a schema change. Pages start after `seq` 0, so
 * the marker is never listed as a line.
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

/** The `seq` of the marker row retention leaves where it deleted an execution's lines. */
const EXPIRED_SEQ = 0;

/** Executions that ended before `?`. */
const ENDED_BEFORE = "SELECT id FROM executions WHERE ended_at IS NOT NULL AND ended_at < ?";

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

  /**
   * Deletes the lines of executions that ended before `endedBefore` (ms since the epoch) and
   * marks those executions' logs expired; returns how many lines were deleted.
   */
  async prune(endedBefore: number, now: number = Date.now()): Promise<number> {
    const [, deleted] = await this.db.batch([
      {
        sql: `INSERT OR IGNORE INTO logs (execution_id, seq, level, message, at_ms)
                SELECT DISTINCT execution_id, ${EXPIRED_SEQ}, 'expired', '', ? FROM logs
                WHERE seq > ${EXPIRED_SEQ} AND execution_id IN (${ENDED_BEFORE})`,
        args: [now, endedBefore],
      },
      {
        sql: `DELETE FROM logs WHERE seq > ${EXPIRED_SEQ} AND execution_id IN (${ENDED_BEFORE})`,
        args: [endedBefore],
      },
    ]);
    return deleted.rowsAffected;
  }

  /** True when retention deleted this execution's lines. */
  async expired(executionId: string): Promise<boolean> {
    const rs = await this.db.execute({
      sql: `SELECT 1 FROM logs WHERE execution_id = ? AND seq = ${EXPIRED_SEQ}`,
      args: [executionId],
    });
    return rs.rows.length > 0;
  }
}
