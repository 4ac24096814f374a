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
import { nextTurn } from "../loop.ts";

/** One stored line. */
export interface StoredLog {
  seq: number;
  level: string;
  message: string;
  atMs: number;
}

/**
 * Lines written per transaction. An execution may keep twenty thousand
 * lines or more; written in one transaction, the embedded engine (which runs
 * on the host's thread) stalled the host for about 50 ms. A few hundred rows
 * take about a ms, and the host gets a turn between chunks.
 */
export const LOG_CHUNK_LINES = 500;

/** Gives the host's event loop a turn (timers and I/O run first). */
const turn = nextTurn;

/** The `seq` of the marker row retention leaves where it deleted an execution's lines. */
const EXPIRED_SEQ = 0;

/** Executions that ended before `?`. */
const ENDED_BEFORE = "SELECT id FROM executions WHERE ended_at IS NOT NULL AND ended_at < ?";

/** Data access for console logs. */
export class LogStore {
  constructor(readonly db: Db) {}

  /**
   * Replaces an execution's lines, {@link LOG_CHUNK_LINES} per transaction
   * with a turn of the event loop between. The first transaction deletes the
   * old lines; a reader in between sees a prefix of the new ones, in order.
   */
  async replace(
    executionId: string,
    entries: readonly { level: string; message: string; atMs: number }[],
  ): Promise<void> {
    for (let start = 0; start === 0 || start < entries.length; start += LOG_CHUNK_LINES) {
      if (start > 0) await turn();
      const chunk = entries.slice(start, start + LOG_CHUNK_LINES).map((e, i) => ({
        sql: "INSERT INTO logs (execution_id, seq, level, message, at_ms) VALUES (?, ?, ?, ?, ?)",
        args: [executionId, start + i + 1, e.level, e.message, e.atMs],
      }));
      await this.db.batch(
        start === 0
          ? [{ sql: "DELETE FROM logs WHERE execution_id = ?", args: [executionId] }, ...chunk]
          : chunk,
      );
    }
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
