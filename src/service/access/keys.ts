/**
 * API keys: random tokens shown once, stored as SHA-256 hashes, each with
 * scopes and a namespace. A key proves who calls; its scopes say what it
 * may do; its namespace bounds what it sees (unless it is `admin`).
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { newId, newSecret } from "../../ids.ts";
import { checkNamespace } from "../../engine/common/namespace.ts";
import type { Db } from "../../store/client.ts";
import { sha256Hex } from "../../hash.ts";

/**
 * Characters a key's name may not hold: control characters (a newline or tab would forge a row
 * of `deno task keys list`) and bidirectional overrides (they reorder what a terminal shows).
 */
export const KEY_NAME_FORBIDDEN = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** What a key may do. */
export const SCOPES = ["execute", "approve", "admin"] as const;
/** One scope. */
export type Scope = typeof SCOPES[number];

/** A key as listed (never with its token). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  scopes: Scope[];
  namespace: string;
  createdAt: number;
  revokedAt?: number;
  lastUsedAt?: number;
  /** `store` for keys made by `deno task keys`, `config` for keys from the config file. */
  source: "store" | "config";
}

/** Who a request acts as. */
export interface Principal {
  keyId?: string;
  name: string;
  scopes: ReadonlySet<Scope>;
  namespace: string;
}

/** SHA-256 of a token, as hex. Tokens are 256 random bits, so a fast hash is enough. */
export function hashToken(token: string): Promise<string> {
  return sha256Hex(token);
}

function checkScopes(scopes: unknown): Scope[] {
  if (
    !Array.isArray(scopes) || scopes.length === 0 ||
    scopes.some((s) => !(SCOPES as readonly string[]).includes(s))
  ) {
    throw new CordonError(
      "invalid_request",
      `Scopes must be a non-empty list of ${SCOPES.join(", ")}; got ${JSON.stringify(scopes)}`,
    );
  }
  return [...new Set(scopes as Scope[])];
}

function toInfo(r: Record<string, unknown>): ApiKeyInfo {
  const info: ApiKeyInfo = {
    id: String(r.id),
    name: String(r.name),
    scopes: JSON.parse(String(r.scopes)),
    namespace: String(r.namespace),
    createdAt: Number(r.created_at),
    source: "store",
  };
  if (r.revoked_at !== null) info.revokedAt = Number(r.revoked_at);
  if (r.last_used_at !== null) info.lastUsedAt = Number(r.last_used_at);
  return info;
}

/** Keys in the database, plus keys the config file names by hash. */
export class ApiKeys {
  readonly #db: Db;
  readonly #configured: Map<string, ApiKeyInfo>;

  constructor(
    db: Db,
    configured: { name: string; sha256: string; scopes: Scope[]; namespace?: string }[] = [],
  ) {
    this.#db = db;
    this.#configured = new Map(configured.map((k) => [k.sha256, {
      id: `config:${k.name}`,
      name: k.name,
      scopes: checkScopes(k.scopes),
      namespace: checkNamespace(k.namespace),
      createdAt: 0,
      source: "config" as const,
    }]));
  }

  /** Makes a key; the token is returned here and never again. */
  async create(
    options: { name: string; scopes: Scope[]; namespace?: string },
  ): Promise<{ token: string; key: ApiKeyInfo }> {
    const name = String(options?.name ?? "").trim();
    if (name === "" || name.length > 100) {
      throw new CordonError("invalid_request", "A key needs a name of 1 to 100 characters");
    }
    if (KEY_NAME_FORBIDDEN.test(name)) {
      throw new CordonError(
        "invalid_request",
        "A key's name may not hold control characters (newlines, tabs) or bidirectional marks",
      );
    }
    const scopes = checkScopes(options.scopes);
    const namespace = checkNamespace(options.namespace);
    const token = newSecret("cordon");
    const id = newId("key");
    const now = Date.now();
    await this.#db.execute({
      sql:
        "INSERT INTO api_keys (id, name, hash, scopes, namespace, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      args: [id, name, await hashToken(token), JSON.stringify(scopes), namespace, now],
    });
    return { token, key: { id, name, scopes, namespace, createdAt: now, source: "store" } };
  }

  /** Every key, stored and configured, revoked ones included. */
  async list(): Promise<ApiKeyInfo[]> {
    const rs = await this.#db.execute("SELECT * FROM api_keys ORDER BY created_at, id");
    return [
      ...this.#configured.values(),
      ...rs.rows.map((r) => toInfo(r as Record<string, unknown>)),
    ];
  }

  /** Revokes a stored key; false if there is no such active key. */
  async revoke(id: string): Promise<boolean> {
    const rs = await this.#db.execute({
      sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
      args: [Date.now(), id],
    });
    return rs.rowsAffected === 1;
  }

  /** True while the stored key `id` exists and is not revoked. */
  async active(id: string): Promise<boolean> {
    const rs = await this.#db.execute({
      sql: "SELECT 1 FROM api_keys WHERE id = ? AND revoked_at IS NULL",
      args: [id],
    });
    return rs.rows.length > 0;
  }

  /** True when any usable key exists (then requests must carry one). */
  async any(): Promise<boolean> {
    if (this.#configured.size > 0) return true;
    const rs = await this.#db.execute("SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1");
    return rs.rows.length > 0;
  }

  /** The principal a token stands for, or `undefined` (unknown or revoked). */
  async verify(token: string): Promise<Principal | undefined> {
    if (typeof token !== "string" || token.length < 16 || token.length > 200) return undefined;
    const hash = await hashToken(token);
    const configured = this.#configured.get(hash);
    if (configured) {
      return {
        name: configured.name,
        scopes: new Set(configured.scopes),
        namespace: configured.namespace,
      };
    }
    const rs = await this.#db.execute({
      sql: "SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL",
      args: [hash],
    });
    const row = rs.rows[0] as Record<string, unknown> | undefined;
    if (!row) return undefined;
    const info = toInfo(row);
    // Best effort: when a key was last used helps an operator retire it.
    this.#db.execute({
      sql: "UPDATE api_keys SET last_used_at = ? WHERE id = ?",
      args: [Date.now(), info.id],
    }).catch(() => {});
    return {
      keyId: info.id,
      name: info.name,
      scopes: new Set(info.scopes),
      namespace: info.namespace,
    };
  }
}
