/**
 * The executions table: one row per execution, with its status, outcome,
 * owner and lease.
 *
 * @module
 */
import type { ErrorInfo } from "../errors.ts";
import { deleteResultsSql } from "./artifacts.ts";
import type { Db } from "./client.ts";
import { fromJson, toJson } from "./json.ts";
import { pruneExecutions } from "./retention.ts";

/** Where an execution is in its life. */
export type ExecutionStatus =
  | "running"
  | "paused"
  | "completed"
  | "error"
  | "rejected"
  | "rolled_back";

/** Every status, for validation. */
export const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  "running",
  "paused",
  "completed",
  "error",
  "rejected",
  "rolled_back",
];

/** An execution as stored. */
export interface ExecutionRow {
  id: string;
  /** The tenant it belongs to. */
  namespace: string;
  /** The unguessable reference its logs are read by. */
  logRef: string;
  /** The session it ran in, if any. */
  sessionId?: string;
  /** The W3C trace id it belongs to; absent on rows stored before trace ids were kept. */
  traceId?: string;
  code: string;
  input: unknown;
  status: ExecutionStatus;
  result?: unknown;
  error?: ErrorInfo;
  connectors: string[];
  declarationHash: string;
  limits: Record<string, number>;
  policy: Record<string, unknown>;
  owner?: string;
  leaseUntil?: number;
  passes: number;
  createdAt: number;
  updatedAt: number;
  endedAt?: number;
  /** A type check's findings stored after the result was returned (see `recordTypecheck`). */
  typecheck?: { ms: number; diagnostics: Record<string, unknown>[] };
}

type Row = Record<string, unknown>;

function fromRow(r: Row): ExecutionRow {
  const row: ExecutionRow = {
    id: String(r.id),
    namespace: String(r.namespace),
    logRef: String(r.log_ref ?? ""),
    code: String(r.code),
    input: fromJson(r.input),
    status: r.status as ExecutionStatus,
    connectors: JSON.parse(String(r.connectors)),
    declarationHash: String(r.declaration_hash),
    limits: JSON.parse(String(r.limits)),
    policy: JSON.parse(String(r.policy)),
    passes: Number(r.passes),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
  if (r.result !== null) row.result = fromJson(r.result);
  if (r.error !== null) row.error = JSON.parse(String(r.error));
  if (r.owner !== null) row.owner = String(r.owner);
  if (r.lease_until !== null) row.leaseUntil = Number(r.lease_until);
  if (r.ended_at !== null) row.endedAt = Number(r.ended_at);
  if (r.session_id !== null && r.session_id !== undefined) row.sessionId = String(r.session_id);
  if (r.trace_id !== null && r.trace_id !== undefined) row.traceId = String(r.trace_id);
  if (r.diagnostics !== null && r.diagnostics !== undefined) {
    row.typecheck = {
      ms: Number(r.typecheck_ms ?? 0),
      diagnostics: JSON.parse(String(r.diagnostics)),
    };
  }
  return row;
}

/** Data access for executions. */
export class ExecutionStore {
  constructor(readonly db: Db) {}

  /** Inserts a new running execution owned by `owner`. */
  async create(
    row: Omit<ExecutionRow, "status" | "updatedAt" | "passes"> & {
      owner: string;
      leaseUntil: number;
    },
  ): Promise<void> {
    await this.db.execute({
      sql:
        `INSERT INTO executions (id, namespace, log_ref, session_id, trace_id, code, input, status,
              connectors, declaration_hash, limits, policy, owner, lease_until, passes, created_at,
              updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
      args: [
        row.id,
        row.namespace,
        row.logRef,
        row.sessionId ?? null,
        row.traceId ?? null,
        row.code,
        toJson(row.input),
        JSON.stringify(row.connectors),
        row.declarationHash,
        JSON.stringify(row.limits),
        JSON.stringify(row.policy),
        row.owner,
        row.leaseUntil,
        row.createdAt,
        row.createdAt,
      ],
    });
  }

  /** The execution whose logs `logRef` names. */
  async byLogRef(logRef: string): Promise<ExecutionRow | undefined> {
    const rs = await this.db.execute({
      sql: "SELECT * FROM executions WHERE log_ref = ?",
      args: [logRef],
    });
    return rs.rows[0] ? fromRow(rs.rows[0] as Row) : undefined;
  }

  async get(id: string): Promise<ExecutionRow | undefined> {
    const rs = await this.db.execute({ sql: "SELECT * FROM executions WHERE id = ?", args: [id] });
    return rs.rows[0] ? fromRow(rs.rows[0] as Row) : undefined;
  }

  /**
   * Moves an execution from one of `from` to `to`; returns false when it was
   * not in `from` (someone else moved it first).
   */
  async transition(
    id: string,
    from: readonly ExecutionStatus[],
    to: ExecutionStatus,
    fields: {
      result?: unknown;
      error?: ErrorInfo;
      owner?: string | null;
      leaseUntil?: number | null;
      addPass?: boolean;
    } = {},
  ): Promise<boolean> {
    const now = Date.now();
    const ended = to === "running" || to === "paused" ? null : now;
    const sets = ["status = ?", "updated_at = ?", "ended_at = ?"];
    const args: (string | number | null)[] = [to, now, ended];
    if ("result" in fields) {
      sets.push("result = ?");
      args.push(toJson(fields.result));
    }
    if ("error" in fields) {
      sets.push("error = ?");
      args.push(fields.error ? JSON.stringify(fields.error) : null);
    }
    if ("owner" in fields) {
      sets.push("owner = ?");
      args.push(fields.owner ?? null);
    }
    if ("leaseUntil" in fields) {
      sets.push("lease_until = ?");
      args.push(fields.leaseUntil ?? null);
    }
    if (fields.addPass) sets.push("passes = passes + 1");
    const rs = await this.db.execute({
      sql: `UPDATE executions SET ${sets.join(", ")} WHERE id = ? AND status IN (${
        from.map(() => "?").join(",")
      })`,
      args: [...args, id, ...from],
    });
    return rs.rowsAffected === 1;
  }

  /**
   * Stores what a type check found once it finished after its run's result was returned;
   * false when the execution is gone.
   */
  async recordTypecheck(
    id: string,
    ms: number,
    diagnostics: readonly Record<string, unknown>[],
  ): Promise<boolean> {
    const rs = await this.db.execute({
      sql: "UPDATE executions SET diagnostics = ?, typecheck_ms = ? WHERE id = ?",
      args: [JSON.stringify(diagnostics), ms, id],
    });
    return rs.rowsAffected === 1;
  }

  /** Newest first, optionally by status, paged by an opaque cursor. */
  async list(
    options: { status?: ExecutionStatus; namespace?: string; limit: number; cursor?: string },
  ): Promise<{ items: ExecutionRow[]; nextCursor?: string }> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (options.namespace !== undefined) {
      where.push("namespace = ?");
      args.push(options.namespace);
    }
    if (options.status) {
      where.push("status = ?");
      args.push(options.status);
    }
    if (options.cursor) {
      const [at, id] = decodeCursor(options.cursor);
      where.push("(created_at < ? OR (created_at = ? AND id < ?))");
      args.push(at, at, id);
    }
    const rs = await this.db.execute({
      sql: `SELECT * FROM executions ${where.length ? "WHERE " + where.join(" AND ") : ""}
            ORDER BY created_at DESC, id DESC LIMIT ?`,
      args: [...args, options.limit + 1],
    });
    const rows = rs.rows.map((r) => fromRow(r as Row));
    const items = rows.slice(0, options.limit);
    const last = items.at(-1);
    return rows.length > options.limit && last
      ? { items, nextCursor: encodeCursor(last.createdAt, last.id) }
      : { items };
  }

  async delete(id: string): Promise<boolean> {
    // The call log and lines go in the same transaction, explicitly: a libSQL server
    // connection may not enforce ON DELETE CASCADE.
    // Its stored result (an artifact) goes with it, before its row (the delete reads it).
    const results = await this.db.batch([
      { sql: "DELETE FROM calls WHERE execution_id = ?", args: [id] },
      { sql: "DELETE FROM logs WHERE execution_id = ?", args: [id] },
      ...deleteResultsSql("?").map((sql) => ({ sql, args: [id] })),
      { sql: "DELETE FROM executions WHERE id = ?", args: [id] },
    ]);
    return results.at(-1)!.rowsAffected === 1;
  }

  /** Deletes ended executions beyond the newest `keep`, with their call logs; returns how many. */
  prune(keep: number): Promise<number> {
    return pruneExecutions(this.db, { keep });
  }

  /** Extends the lease of every running execution this owner holds. */
  async renewLeases(owner: string, leaseUntil: number): Promise<void> {
    await this.db.execute({
      sql: "UPDATE executions SET lease_until = ? WHERE owner = ? AND status = 'running'",
      args: [leaseUntil, owner],
    });
  }

  /** Marks running executions whose lease ran out as failed; returns their ids. */
  async interruptExpired(now: number, error: ErrorInfo): Promise<string[]> {
    const rs = await this.db.execute({
      sql:
        `UPDATE executions SET status = 'error', error = ?, updated_at = ?, ended_at = ?, owner = NULL, lease_until = NULL
            WHERE status = 'running' AND lease_until < ? RETURNING id`,
      args: [JSON.stringify(error), now, now, now],
    });
    return rs.rows.map((r) => String((r as Row).id));
  }

  /** Paused executions last changed before `before`. */
  async pausedBefore(before: number): Promise<string[]> {
    const rs = await this.db.execute({
      sql: "SELECT id FROM executions WHERE status = 'paused' AND updated_at < ?",
      args: [before],
    });
    return rs.rows.map((r) => String((r as Row).id));
  }
}

function encodeCursor(at: number, id: string): string {
  return btoa(JSON.stringify([at, id]));
}

function decodeCursor(cursor: string): [number, string] {
  try {
    const [at, id] = JSON.parse(atob(cursor));
    if (typeof at === "number" && typeof id === "string") return [at, id];
  } catch { /* fall through */ }
  throw new TypeError(`Invalid cursor "${cursor}"`);
}
