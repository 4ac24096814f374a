/**
 * The durable call log: every tool call of an execution, appended before it
 * runs and updated when it returns, in `seq` order.
 *
 * @module
 */
import type { ErrorInfo } from "../errors.ts";
import type { InStatement } from "@libsql/client";
import type { Db } from "./client.ts";
import { fromJson } from "./json.ts";
import type { CallEntry, CallState, PendingNeed } from "./call_entry.ts";

export type { CallEntry, CallState, PendingNeed } from "./call_entry.ts";

type Row = Record<string, unknown>;

function fromRow(r: Row): CallEntry {
  const e: CallEntry = {
    executionId: String(r.execution_id),
    seq: Number(r.seq),
    connector: String(r.connector),
    tool: String(r.tool),
    args: fromJson(r.args),
    state: r.state as CallState,
    kind: r.kind as CallEntry["kind"],
    startedAt: Number(r.started_at),
  };
  if (r.result !== null) e.result = fromJson(r.result);
  if (r.error !== null) e.error = JSON.parse(String(r.error));
  if (r.needs !== null) e.needs = r.needs as PendingNeed;
  if (r.decision !== null) e.decision = r.decision as CallEntry["decision"];
  if (r.ended_at !== null) e.endedAt = Number(r.ended_at);
  return e;
}

import { appendStatement, finishStatement, recoveredStatement } from "./call_writes.ts";
import { readIntents, takeOrphanedIntents } from "./intent_log.ts";

export { appendStatement, finishStatement, isIntent, mergeCallWrites } from "./call_writes.ts";

/** The statement that sets an entry's state (and error, when given). */
export function setStateStatement(
  executionId: string,
  seq: number,
  state: CallState,
  error?: ErrorInfo,
): InStatement {
  return {
    sql:
      "UPDATE calls SET state = ?, error = COALESCE(?, error), ended_at = ? WHERE execution_id = ? AND seq = ?",
    args: [state, error ? JSON.stringify(error) : null, Date.now(), executionId, seq],
  };
}

/** Data access for the call log. */
export class CallStore {
  constructor(readonly db: Db) {}

  /**
   * Puts into the store the entries of intent logs whose process died (see `intent_log.ts`),
   * so nothing that ran is missing when a run of theirs is resumed or replayed. Returns how
   * many logs it took. A store without intent logs (`:memory:`, a server) has none to take.
   */
  async recoverIntents(): Promise<number> {
    const own = this.db.intents;
    if (!own) return 0;
    return await takeOrphanedIntents(own.dir, (path) => own.owns(path), async (text) => {
      const statements = readIntents(text).map(recoveredStatement).filter((s) => s !== undefined);
      if (statements.length > 0) await this.db.batch(statements);
    });
  }

  /** Appends an entry; `argsJson` is the already-encoded args (size-checked by the caller). */
  async append(entry: Omit<CallEntry, "args" | "endedAt">, argsJson: string): Promise<void> {
    await this.db.execute(appendStatement(entry, argsJson));
  }

  /** Records how a call ended (`resultJson` already encoded and size-checked). */
  async finish(
    executionId: string,
    seq: number,
    state: CallState,
    outcome: { resultJson?: string | null; error?: ErrorInfo },
  ): Promise<void> {
    await this.db.execute(finishStatement(executionId, seq, state, outcome));
  }

  /**
   * Decides a pending entry once: returns false when it was not pending or
   * was already decided (approve and reject racing resolve to one).
   */
  async decide(
    executionId: string,
    seq: number,
    decision: "approved" | "rejected" | "resolved",
    fields: { state?: CallState; resultJson?: string; error?: ErrorInfo } = {},
  ): Promise<boolean> {
    const rs = await this.db.execute({
      sql: `UPDATE calls SET decision = ?, state = COALESCE(?, state), result = COALESCE(?, result),
              error = COALESCE(?, error), ended_at = CASE WHEN ? IS NULL THEN ended_at ELSE ? END
            WHERE execution_id = ? AND seq = ? AND state = 'pending' AND decision IS NULL`,
      args: [
        decision,
        fields.state ?? null,
        fields.resultJson ?? null,
        fields.error ? JSON.stringify(fields.error) : null,
        fields.state ?? null,
        Date.now(),
        executionId,
        seq,
      ],
    });
    return rs.rowsAffected === 1;
  }

  /**
   * Rejects, with `error`, every entry still waiting for a decision; returns how many. One
   * statement: the end of a run with a thousand calls reads none of them back.
   */
  async rejectUndecided(executionId: string, error: ErrorInfo): Promise<number> {
    const rs = await this.db.execute({
      sql: `UPDATE calls SET decision = 'rejected', state = 'rejected', error = ?, ended_at = ?
            WHERE execution_id = ? AND state = 'pending' AND decision IS NULL`,
      args: [JSON.stringify(error), Date.now(), executionId],
    });
    return rs.rowsAffected;
  }

  /** Sets an entry's state (used by rollback). */
  async setState(
    executionId: string,
    seq: number,
    state: CallState,
    error?: ErrorInfo,
  ): Promise<void> {
    await this.db.execute(setStateStatement(executionId, seq, state, error));
  }

  /** An execution's entries in seq order. */
  async list(executionId: string): Promise<CallEntry[]> {
    const rs = await this.db.execute({
      sql: "SELECT * FROM calls WHERE execution_id = ? ORDER BY seq",
      args: [executionId],
    });
    return rs.rows.map((r) => fromRow(r as Row));
  }

  /** Every undecided pending entry across executions, oldest first. */
  async pending(namespace?: string): Promise<CallEntry[]> {
    const rs = namespace === undefined
      ? await this.db.execute(
        "SELECT * FROM calls WHERE state = 'pending' AND decision IS NULL ORDER BY started_at, execution_id, seq",
      )
      : await this.db.execute({
        sql: `SELECT c.* FROM calls c JOIN executions e ON e.id = c.execution_id
          WHERE c.state = 'pending' AND c.decision IS NULL AND e.namespace = ?
          ORDER BY c.started_at, c.execution_id, c.seq`,
        args: [namespace],
      });
    return rs.rows.map((r) => fromRow(r as Row));
  }
}
