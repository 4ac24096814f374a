/**
 * Idempotency keys as stored: which request a namespace's key stands for,
 * the process running it, the execution it started, and the answer once
 * there is one, so a retried request gets the first answer instead of
 * running again, also from another process or after a restart.
 *
 * @module
 */
import type { Db } from "./client.ts";

/** A stored key. */
export interface IdempotencyRow {
  namespace: string;
  key: string;
  /** A hash of what the request asked (method, path, body). */
  fingerprint: string;
  /** The process that claimed it. */
  owner: string;
  /** The execution the request started, once started. */
  executionId?: string;
  /** The answer, once there is one. */
  answer?: StoredAnswer;
  createdAt: number;
  expiresAt: number;
}

/** An HTTP answer kept for replay. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type Row = Record<string, unknown>;

function toRow(r: Row): IdempotencyRow {
  const out: IdempotencyRow = {
    namespace: String(r.namespace),
    key: String(r.key),
    fingerprint: String(r.fingerprint),
    owner: String(r.owner),
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
  if (r.execution_id !== null) out.executionId = String(r.execution_id);
  if (r.status !== null) {
    out.answer = {
      status: Number(r.status),
      headers: JSON.parse(String(r.headers)),
      body: String(r.body),
    };
  }
  return out;
}

/** The `idempotency_keys` table. */
export class IdempotencyKeys {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Claims a key for a request; false when the namespace already holds it. */
  async claim(row: Omit<IdempotencyRow, "executionId" | "answer">): Promise<boolean> {
    const rs = await this.#db.execute({
      sql:
        `INSERT INTO idempotency_keys (namespace, key, fingerprint, owner, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, key) DO NOTHING`,
      args: [row.namespace, row.key, row.fingerprint, row.owner, row.createdAt, row.expiresAt],
    });
    return rs.rowsAffected === 1;
  }

  /** The stored key, if any. */
  async get(namespace: string, key: string): Promise<IdempotencyRow | undefined> {
    const rs = await this.#db.execute({
      sql: "SELECT * FROM idempotency_keys WHERE namespace = ? AND key = ?",
      args: [namespace, key],
    });
    return rs.rows[0] ? toRow(rs.rows[0]) : undefined;
  }

  /** Records the execution a claimed request started. */
  async started(namespace: string, key: string, owner: string, executionId: string) {
    await this.#db.execute({
      sql: `UPDATE idempotency_keys SET execution_id = ?
            WHERE namespace = ? AND key = ? AND owner = ?`,
      args: [executionId, namespace, key, owner],
    });
  }

  /** Stores the answer of a claimed request. */
  async answer(namespace: string, key: string, owner: string, answer: StoredAnswer) {
    await this.#db.execute({
      sql: `UPDATE idempotency_keys SET status = ?, headers = ?, body = ?
            WHERE namespace = ? AND key = ? AND owner = ?`,
      args: [
        answer.status,
        JSON.stringify(answer.headers),
        answer.body,
        namespace,
        key,
        owner,
      ],
    });
  }

  /** Deletes a key if it is still as `row` saw it (a claim given up, taken over or expired). */
  async release(row: Pick<IdempotencyRow, "namespace" | "key" | "owner" | "createdAt">) {
    await this.#db.execute({
      sql: `DELETE FROM idempotency_keys
            WHERE namespace = ? AND key = ? AND owner = ? AND created_at = ?`,
      args: [row.namespace, row.key, row.owner, row.createdAt],
    });
  }

  /** Deletes every key expired at `now`; returns how many. */
  async purge(now: number): Promise<number> {
    const rs = await this.#db.execute({
      sql: "DELETE FROM idempotency_keys WHERE expires_at <= ?",
      args: [now],
    });
    return rs.rowsAffected;
  }
}
