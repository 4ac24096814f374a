/**
 * The libSQL connection: `file:` (embedded, WAL, busy timeout, safe for
 * several processes on one file), `:memory:` for tests, or a libSQL server
 * (`libsql://`, `http://`, `https://`, `ws://`).
 *
 * @module
 */
import { type Client, createClient, type InStatement, type ResultSet } from "@libsql/client";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { CordonError } from "../errors.ts";

/**
 * How long a writer waits for another process's lock before failing. Long
 * enough for any one Cordon transaction; short enough to surface a stuck one.
 */
export const BUSY_TIMEOUT_MS = 5_000;

/** A store connection with the few operations Cordon needs. */
export interface Db {
  readonly url: string;
  execute(stmt: InStatement): Promise<ResultSet>;
  /** Runs statements atomically (a write transaction). */
  batch(stmts: InStatement[]): Promise<ResultSet[]>;
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
  if (isFileUrl(url)) {
    const path = url.startsWith("file://") ? fileURLToPath(url) : url.slice("file:".length);
    await Deno.mkdir(dirname(path), { recursive: true });
  }
  const client: Client = createClient(authToken ? { url, authToken } : { url });
  if (isFileUrl(url)) {
    // WAL lets readers and one writer work at once across processes; NORMAL
    // sync is durable across process crashes (only an OS crash may lose the
    // last transactions), which is the failure Cordon must survive.
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA synchronous = NORMAL");
    await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
  await client.execute("PRAGMA foreign_keys = ON").catch(() => {});
  return {
    url,
    execute: (stmt) => client.execute(stmt),
    batch: (stmts) => client.batch(stmts, "write"),
    close: () => client.close(),
  };
}
