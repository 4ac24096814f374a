/**
 * Sessions as stored: who owns each, its recovery capability, and the
 * journal of what each execution in it did, so an agent whose session is
 * gone can rebuild its state.
 *
 * @module
 */
import type { ErrorInfo } from "../errors.ts";
import type { Db } from "./client.ts";

/** How an execution in a session is judged for replaying it into a new session. */
export type RecoveryClass = "setup_like" | "side_effecting" | "unknown";

/** A session as stored. */
export interface SessionRow {
  id: string;
  namespace: string;
  recoveryRef: string;
  declarationHash: string;
  nodeId: string;
  status: "active" | "ended";
  endReason?: string;
  createdAt: number;
  lastUsedAt: number;
  endedAt?: number;
}

/** One execution in a session's journal, as stored (the API's entry is built from it). */
export interface JournalEntry {
  /** Its place in the session, from 1. */
  seq: number;
  /** The execution it records. */
  executionId: string;
  /** The code, redacted and bounded. */
  code: string;
  /** The code was longer than the journal keeps and was cut. */
  codeTruncated: boolean;
  /** `completed`, `error` or `rejected`. */
  status: string;
  /** Why it failed (message redacted). */
  error?: Pick<ErrorInfo, "code" | "message">;
  /** Problems found in the code, with their line (older rows have no severity). */
  diagnostics: { code: string; message: string; severity?: string; line?: number }[];
  /** The tool declarations it ran against. */
  declarationHash: string;
  /** Whether running it again to rebuild state is safe, judged from what it did. */
  classification: RecoveryClass;
  /** Top-level names it declared. */
  declared: string[];
  /** Tool calls it made. */
  toolCalls: number;
  /** When it ended (ms since the epoch). */
  createdAt: number;
  /** Its console lines are stored (set when read: it printed some and retention left them). */
  logsStored?: boolean;
}

type Row = Record<string, unknown>;

function toSession(r: Row): SessionRow {
  const s: SessionRow = {
    id: String(r.id),
    namespace: String(r.namespace),
    recoveryRef: String(r.recovery_ref),
    declarationHash: String(r.declaration_hash),
    nodeId: String(r.node_id),
    status: r.status as SessionRow["status"],
    createdAt: Number(r.created_at),
    lastUsedAt: Number(r.last_used_at),
  };
  if (r.end_reason !== null) s.endReason = String(r.end_reason);
  if (r.ended_at !== null) s.endedAt = Number(r.ended_at);
  return s;
}

function toEntry(r: Row): JournalEntry {
  const e: JournalEntry = {
    seq: Number(r.seq),
    executionId: String(r.execution_id),
    code: String(r.code),
    codeTruncated: Number(r.code_truncated) === 1,
    status: String(r.status),
    diagnostics: JSON.parse(String(r.diagnostics)),
    declarationHash: String(r.declaration_hash),
    classification: r.classification as RecoveryClass,
    declared: JSON.parse(String(r.declared)),
    toolCalls: Number(r.tool_calls),
    createdAt: Number(r.created_at),
  };
  if (r.error !== null) e.error = JSON.parse(String(r.error));
  if (r.logs_stored !== undefined) e.logsStored = Number(r.logs_stored) === 1;
  return e;
}

/** Data access for sessions and their journal. */
export class SessionStore {
  constructor(readonly db: Db) {}

  async create(row: Omit<SessionRow, "status" | "lastUsedAt">): Promise<void> {
    await this.db.execute({
      sql: `INSERT INTO sessions (id, namespace, recovery_ref, declaration_hash, node_id, status,
              created_at, last_used_at) VALUES (?, ?, ?, ?, ?, 'active', ?, ?)`,
      args: [
        row.id,
        row.namespace,
        row.recoveryRef,
        row.declarationHash,
        row.nodeId,
        row.createdAt,
        row.createdAt,
      ],
    });
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const rs = await this.db.execute({ sql: "SELECT * FROM sessions WHERE id = ?", args: [id] });
    return rs.rows[0] ? toSession(rs.rows[0] as Row) : undefined;
  }

  async byRecoveryRef(ref: string): Promise<SessionRow | undefined> {
    const rs = await this.db.execute({
      sql: "SELECT * FROM sessions WHERE recovery_ref = ?",
      args: [ref],
    });
    return rs.rows[0] ? toSession(rs.rows[0] as Row) : undefined;
  }

  async end(id: string, reason: string): Promise<void> {
    await this.db.execute({
      sql:
        "UPDATE sessions SET status = 'ended', end_reason = ?, ended_at = ? WHERE id = ? AND status = 'active'",
      args: [reason, Date.now(), id],
    });
  }

  /** Ends every active session of a node (its children died with it). */
  async endNode(nodeId: string, reason: string): Promise<void> {
    await this.db.execute({
      sql:
        "UPDATE sessions SET status = 'ended', end_reason = ?, ended_at = ? WHERE node_id = ? AND status = 'active'",
      args: [reason, Date.now(), nodeId],
    });
  }

  /** Appends a journal entry and keeps at most `keep` per session (the newest). */
  async append(
    sessionId: string,
    entry: Omit<JournalEntry, "seq" | "logsStored">,
    keep: number,
  ): Promise<void> {
    await this.db.batch([
      {
        sql: `INSERT INTO session_journal (session_id, seq, execution_id, code, code_truncated,
                status, error, diagnostics, declaration_hash, classification, declared, tool_calls,
                created_at)
              SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
              FROM session_journal WHERE session_id = ?`,
        args: [
          sessionId,
          entry.executionId,
          entry.code,
          entry.codeTruncated ? 1 : 0,
          entry.status,
          entry.error ? JSON.stringify(entry.error) : null,
          JSON.stringify(entry.diagnostics),
          entry.declarationHash,
          entry.classification,
          JSON.stringify(entry.declared),
          entry.toolCalls,
          entry.createdAt,
          sessionId,
        ],
      },
      {
        sql: `DELETE FROM session_journal WHERE session_id = ? AND seq <= (
                SELECT MAX(seq) - ? FROM session_journal WHERE session_id = ?)`,
        args: [sessionId, keep, sessionId],
      },
      {
        sql: "UPDATE sessions SET last_used_at = ? WHERE id = ?",
        args: [entry.createdAt, sessionId],
      },
    ]);
  }

  /**
   * Journal entries after `afterSeq`, oldest first, each with whether its execution's console
   * lines are stored (lines have `seq` from 1; retention's marker row is `seq` 0).
   */
  async journal(sessionId: string, afterSeq: number, limit: number): Promise<JournalEntry[]> {
    const rs = await this.db.execute({
      sql: `SELECT j.*, EXISTS (SELECT 1 FROM logs l WHERE l.execution_id = j.execution_id
                AND l.seq > 0) AS logs_stored
            FROM session_journal j WHERE j.session_id = ? AND j.seq > ? ORDER BY j.seq LIMIT ?`,
      args: [sessionId, afterSeq, limit],
    });
    return rs.rows.map((r) => toEntry(r as Row));
  }

  /** Ends active sessions unused since `before` (their process is gone or they expired). */
  async endStale(before: number): Promise<void> {
    await this.db.execute({
      sql: `UPDATE sessions SET status = 'ended', end_reason = 'expired', ended_at = ?
            WHERE status = 'active' AND last_used_at < ?`,
      args: [Date.now(), before],
    });
  }

  /** Deletes ended sessions (and their journals) that ended before `before`. */
  async prune(before: number): Promise<number> {
    const [, rs] = await this.db.batch([
      {
        sql: `DELETE FROM session_journal WHERE session_id IN (
                SELECT id FROM sessions WHERE status = 'ended' AND ended_at < ?)`,
        args: [before],
      },
      { sql: "DELETE FROM sessions WHERE status = 'ended' AND ended_at < ?", args: [before] },
    ]);
    return rs.rowsAffected;
  }
}
