/**
 * `Idempotency-Key` on the service's POSTs, as payment APIs do it: the
 * first request with a key runs and its answer is kept; a retry with the
 * same key and the same request gets that answer without running again,
 * also while the first still runs (it waits for it, or, when another
 * process runs it, is pointed at the execution) and after a restart. The
 * same key with a different request is `idempotency_conflict` (422). Keys
 * are per namespace and expire after {@link IDEMPOTENCY_KEY_TTL_MS}.
 *
 * Only successful answers (2xx) are kept: a refusal before anything ran (a
 * bad body, a full gate) leaves the key free, so the retry runs.
 *
 * @module
 */
import type { Runtime } from "../../engine/mod.ts";
import { CordonError } from "../../errors.ts";
import { sha256Hex } from "../../hash.ts";
import { newId } from "../../ids.ts";
import type { Db } from "../../store/client.ts";
import { IdempotencyKeys, type IdempotencyRow } from "../../store/idempotency.ts";
import { fail, jsonResponse } from "../http/http.ts";

/** How long a key is remembered: a day, as payment APIs keep theirs; retries come within it. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;
/** Longest key accepted: room for a UUID with a prefix, as payment APIs allow (255). */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;
/**
 * A key another process claimed but never started an execution for is taken over after this:
 * that process died between its claim and its start (queueing and type checking take far less).
 */
export const IDEMPOTENCY_CLAIM_STALE_MS = 10 * 60_000;
/** Expired keys are deleted at most this often (one indexed DELETE). */
const PURGE_EVERY_MS = 60_000;
/** Printable ASCII without spaces: what clients put in the header (UUIDs, hashes, names). */
const KEY_PATTERN = /^[\x21-\x7e]+$/;
/** Headers of an answer that a replay repeats. */
const KEPT_HEADERS = ["content-type", "location"];

/** One idempotent request. */
export interface IdempotentRequest {
  /** The namespace the key belongs to (the caller's). */
  namespace: string;
  /** The `Idempotency-Key` header as sent. */
  key: string;
  /** What the request asks: method, path, query and body bytes. */
  request: string;
  /** Runs the request; `started` records the execution it starts. */
  work(started: (executionId: string) => void): Promise<Response>;
}

/** The service's idempotency keys. */
export class Idempotency {
  readonly #keys: IdempotencyKeys;
  readonly #runtime: Runtime;
  readonly #clock: () => number;
  /** This process, as the owner of the keys it claims. */
  readonly #owner = newId("node");
  /** Requests this process runs now, by namespace and key: retries wait for them. */
  readonly #running = new Map<string, Promise<void>>();
  #purgedAt = 0;

  constructor(db: Db, runtime: Runtime, clock: () => number = Date.now) {
    this.#keys = new IdempotencyKeys(db);
    this.#runtime = runtime;
    this.#clock = clock;
  }

  /** Checks an `Idempotency-Key` header; `invalid_request` when it cannot be one. */
  static check(key: string): string {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_CHARS || !KEY_PATTERN.test(key)) {
      fail(
        "invalid_request",
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters without spaces (a UUID is a good key)`,
      );
    }
    return key;
  }

  /** Runs `req` once per key: the first answer again for a retry, a conflict for a new request. */
  async run(req: IdempotentRequest): Promise<Response> {
    const { namespace, key } = req;
    const fingerprint = await sha256Hex(req.request);
    this.#purge();
    for (;;) {
      const now = this.#clock();
      const claim = {
        namespace,
        key,
        fingerprint,
        owner: this.#owner,
        createdAt: now,
        expiresAt: now + IDEMPOTENCY_KEY_TTL_MS,
      };
      if (await this.#keys.claim(claim)) return await this.#first(claim, req);
      const row = await this.#keys.get(namespace, key);
      if (!row) continue;
      if (row.expiresAt <= now) {
        await this.#keys.release(row);
        continue;
      }
      if (row.fingerprint !== fingerprint) {
        fail(
          "idempotency_conflict",
          "This Idempotency-Key was used for a different request; use a new key for a new request",
          { key },
        );
      }
      if (row.answer) return replay(row.answer);
      const here = this.#running.get(slot(namespace, key));
      if (here) {
        // The first request runs in this process: its answer is the retry's.
        await here;
        continue;
      }
      if (row.executionId) return await this.#pointAt(row.executionId);
      if (row.owner === this.#owner || now - row.createdAt > IDEMPOTENCY_CLAIM_STALE_MS) {
        // Left by a request of this process that failed to finish, or by a dead process.
        await this.#keys.release(row);
        continue;
      }
      throw new CordonError(
        "invalid_state",
        "A request with this Idempotency-Key is still starting in another process; retry shortly",
        { details: { key } },
      );
    }
  }

  async #first(row: IdempotencyRow, req: IdempotentRequest): Promise<Response> {
    const here = Promise.withResolvers<void>();
    this.#running.set(slot(row.namespace, row.key), here.promise);
    try {
      let res: Response;
      try {
        res = await req.work((executionId) => {
          this.#keys.started(row.namespace, row.key, row.owner, executionId).catch(() => {
            // Only a cross-process retry needs it; it then waits for the answer instead.
          });
        });
      } catch (err) {
        await this.#keys.release(row);
        throw err;
      }
      if (res.status < 200 || res.status > 299) {
        await this.#keys.release(row);
        return res;
      }
      const body = await res.text();
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = res.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      // Kept before it is answered: a retry after a dropped connection must find it.
      await this.#keys.answer(row.namespace, row.key, row.owner, {
        status: res.status,
        headers,
        body,
      });
      return new Response(body, { status: res.status, headers: res.headers });
    } finally {
      this.#running.delete(slot(row.namespace, row.key));
      here.resolve();
    }
  }

  /** The answer for a key whose request runs elsewhere (or ran in a process that died). */
  async #pointAt(executionId: string): Promise<Response> {
    const d = await this.#runtime.execution(executionId);
    const self = `/v1/executions/${executionId}`;
    return jsonResponse(
      {
        executionId,
        status: d?.status ?? "running",
        links: { self, events: `${self}/events` },
      },
      202,
      { location: self, "idempotent-replayed": "true" },
    );
  }

  #purge(): void {
    const now = this.#clock();
    if (now - this.#purgedAt < PURGE_EVERY_MS) return;
    this.#purgedAt = now;
    this.#keys.purge(now).catch(() => {
      // The next purge tries again; expired keys are also ignored when read.
    });
  }
}

function slot(namespace: string, key: string): string {
  return `${namespace}\u0000${key}`;
}

function replay(answer: { status: number; headers: Record<string, string>; body: string }) {
  return new Response(answer.body, {
    status: answer.status,
    headers: { ...answer.headers, "idempotent-replayed": "true" },
  });
}
