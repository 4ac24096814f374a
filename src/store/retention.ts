/**
 * Execution retention in the store: deletes ended executions together with
 * their call log, console lines and stored result, in small transactions. Running and
 * paused executions are never touched. Each chunk deletes the children
 * explicitly rather than leaning on `ON DELETE CASCADE`, which a libSQL
 * server connection may not enforce; one transaction per chunk means a
 * reader never sees an execution without its call log.
 *
 * @module
 */
import { deleteResultsSql } from "./artifacts.ts";
import type { Db } from "./client.ts";
import { nextTurn } from "../loop.ts";

/**
 * Executions deleted per transaction. The embedded engine runs on the host's
 * event loop; 200 executions with their calls and lines is a few
 * milliseconds, well inside the 50 ms stall bound, and between chunks the
 * loop serves other work.
 */
export const PRUNE_CHUNK = 200;

/** What to delete: any of the rules, each optional. */
export interface PruneRules {
  /** Executions that ended before this time (ms since the epoch). */
  endedBefore?: number;
  /** Keep only the newest this many ended executions in each namespace. */
  keepPerNamespace?: number;
  /** Keep only the newest this many ended executions in all. */
  keep?: number;
}

const ENDED = "status NOT IN ('running', 'paused')";

const yieldToLoop = nextTurn;

/** Deletes the executions `ids` (if still ended) with their call logs and lines. */
async function deleteExecutions(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const list = ids.map(() => "?").join(", ");
  const results = await db.batch([
    { sql: `DELETE FROM calls WHERE execution_id IN (${list})`, args: ids },
    { sql: `DELETE FROM logs WHERE execution_id IN (${list})`, args: ids },
    // A stored result goes with its execution, or retention would keep it forever.
    ...deleteResultsSql(list).map((sql) => ({ sql, args: ids })),
    { sql: `DELETE FROM executions WHERE id IN (${list}) AND ${ENDED}`, args: ids },
  ]);
  return results.at(-1)!.rowsAffected;
}

/** Deletes chunk after chunk of what `select` names until it names nothing. */
async function drain(
  db: Db,
  select: () => { sql: string; args: (string | number)[] },
): Promise<number> {
  let total = 0;
  while (true) {
    const rows = (await db.execute(select())).rows;
    const ids = rows.map((r) => String(r.id));
    total += await deleteExecutions(db, ids);
    if (ids.length < PRUNE_CHUNK) return total;
    await yieldToLoop();
  }
}

/**
 * Deletes the ended executions the rules name, with their call logs and
 * console lines; returns how many executions were deleted.
 */
export async function pruneExecutions(db: Db, rules: PruneRules): Promise<number> {
  let total = 0;
  if (rules.endedBefore !== undefined) {
    const before = rules.endedBefore;
    total += await drain(db, () => ({
      sql: `SELECT id FROM executions WHERE ended_at IS NOT NULL AND ended_at < ? AND ${ENDED}
              LIMIT ${PRUNE_CHUNK}`,
      args: [before],
    }));
  }
  if (rules.keepPerNamespace !== undefined && Number.isFinite(rules.keepPerNamespace)) {
    const keep = rules.keepPerNamespace;
    const namespaces = await db.execute("SELECT DISTINCT namespace FROM executions");
    for (const row of namespaces.rows) {
      const namespace = String(row.namespace);
      total += await drain(db, () => ({
        sql: `SELECT id FROM executions WHERE namespace = ? AND ${ENDED}
                ORDER BY created_at DESC, id DESC LIMIT ${PRUNE_CHUNK} OFFSET ?`,
        args: [namespace, keep],
      }));
    }
  }
  if (rules.keep !== undefined && Number.isFinite(rules.keep)) {
    const keep = rules.keep;
    total += await drain(db, () => ({
      sql: `SELECT id FROM executions WHERE ${ENDED}
              ORDER BY created_at DESC, id DESC LIMIT ${PRUNE_CHUNK} OFFSET ?`,
      args: [keep],
    }));
  }
  return total;
}
