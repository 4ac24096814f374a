/**
 * The libSQL connection: `file:` (embedded, WAL, busy timeout, safe for
 * several processes on one file), `:memory:` for tests, or a libSQL server
 * (`libsql://`, `http://`, `https://`, `ws://`).
 *
 * @module
 */
// `@ignore`: libSQL documents `InStatement`; without it `deno doc --lint` wants it exported.
import {
  type Client,
  createClient,
  /** @ignore */
  type InStatement,
} from "@libsql/client";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { CordonError } from "../errors.ts";
import { type DbResult, LocalDb } from "./local.ts";

export type { DbResult };

/**
 * How long a writer waits for another process's lock before failing. Long
 * enough for any one Cordon transaction; short enough to surface a stuck one.
 */
export const BUSY_TIMEOUT_MS = 5_000;

/** A store connection with the few operations Cordon needs. */
export interface Db {
  /** The URL it was opened with: `file:…`, `:memory:`, or a libSQL server's. */
  readonly url: string;
  /** Runs one statement: SQL text, or `{ sql, args }` with `?` placeholders. */
  execute(stmt: InStatement): Promise<DbResult>;
  /** Runs statements atomically (a write transaction). */
  batch(stmts: InStatement[]): Promise<DbResult[]>;
  /** Closes the connection. */
  close(): void;
}

function isFileUrl(url: string): boolean {
  return url.startsWith("file:");
}

/** Opens a database by URL; creates the folder of a `file:` database. */
export async function openDb(url: string, authToken?: string): Promise<Db> {
  if (typeof url !== "string" || url.length === 0) {
    throw new CordonError(
      "invalid_request",
      "A database URL is required (file:…, :memory:, libsql://…)",
    );
  }
  if (!/^(file:|:memory:$|libsql:|https?:|wss?:)/.test(url)) {
    throw new CordonError(
      "invalid_request",
      `Cannot open database "${url}": use file:, :memory:, libsql://, http(s):// or ws(s)://`,
    );
  }
  if (isFileUrl(url) || url === ":memory:") return openLocal(url);
  const client: Client = createClient(authToken ? { url, authToken } : { url });
  await client.execute("PRAGMA foreign_keys = ON").catch(() => {});
  const result = (rs: { rows: unknown[]; rowsAffected: number }): DbResult => ({
    rows: rs.rows as Record<string, unknown>[],
    rowsAffected: rs.rowsAffected,
  });
  return {
    url,
    execute: async (stmt) => result(await client.execute(stmt)),
    batch: async (stmts) => (await client.batch(stmts, "write")).map(result),
    close: () => client.close(),
  };
}

async function openLocal(url: string): Promise<Db> {
  let path = ":memory:";
  if (isFileUrl(url)) {
    path = url.startsWith("file://") ? fileURLToPath(url) : url.slice("file:".length);
    await Deno.mkdir(dirname(path), { recursive: true });
  }
  let db: LocalDb;
  try {
    db = new LocalDb(path);
  } catch (err) {
    throw new CordonError(
      "invalid_request",
      `Cannot open database "${url}": ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (path !== ":memory:") {
    // WAL lets readers and one writer work at once across processes; NORMAL
    // sync is durable across process crashes (only an OS crash may lose the
    // last transactions), which is the failure Cordon must survive.
    db.execute("PRAGMA journal_mode = WAL");
    db.execute("PRAGMA synchronous = NORMAL");
    db.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
  db.execute("PRAGMA foreign_keys = ON");
  // Async like the remote client, so callers do not care which one they hold; a failed
  // statement is a rejected promise, never a synchronous throw.
  return {
    url,
    execute: (stmt) => Promise.try(() => db.execute(stmt)),
    batch: (stmts) => Promise.try(() => db.batch(stmts)),
    close: () => db.close(),
  };
}
