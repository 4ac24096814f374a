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
import { StoreGuard, type StoreHealth } from "./guard.ts";
import { type DbResult, LocalDb } from "./local.ts";
import { IntentLog } from "./intent_log.ts";

export type { DbResult, StoreHealth };

/**
 * How long a writer waits for another process's lock before failing. Long
 * enough for any one Cordon transaction; short enough to surface a stuck one.
 */
export const BUSY_TIMEOUT_MS = 5_000;

/** A store connection with the few operations Cordon needs. */
export interface Db {
  /** The URL it was opened with: `file:…`, `:memory:`, or a libSQL server's. */
  readonly url: string;
  /**
   * This process's intent log of the call log: a `file:` store's only (`intent_log.ts`).
   * Cordon's own; not part of the API.
   *
   * @ignore
   */
  readonly intents?: IntentLog;
  /** Runs one statement: SQL text, or `{ sql, args }` with `?` placeholders. */
  execute(stmt: InStatement): Promise<DbResult>;
  /** Runs statements atomically (a write transaction). */
  batch(stmts: InStatement[]): Promise<DbResult[]>;
  /**
   * Whether the store can still keep what it acknowledges: its file is the one it
   * opened, whole, and the engine reported no fatal error (disk full, I/O, corruption).
   * Once not ok, every statement fails `store_unavailable` until the process restarts.
   */
  health(): StoreHealth;
  /** Closes the connection. */
  close(): void;
}

/** Runs `op` unless the store is lost; a fatal engine error loses it (`store_unavailable`). */
async function guarded<T>(guard: StoreGuard, op: () => T | Promise<T>): Promise<T> {
  guard.assertAvailable();
  try {
    return await op();
  } catch (err) {
    throw guard.classify(err);
  }
}

/**
 * Why a database cannot be opened, in one line an operator acts on: the usual
 * causes (a read-only or missing directory) by name, the engine's words otherwise.
 */
export function cannotOpen(url: string, err: unknown): CordonError {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  let why = message;
  if (err instanceof Deno.errors.PermissionDenied || /os error (13|30)\b/.test(message)) {
    why = `its directory is not writable (${message})`;
  } else if (
    code === "SQLITE_CANTOPEN" || code === "SQLITE_READONLY" ||
    /local database .*: (8|14)"?\)?$/.test(message)
  ) {
    why = `the file or its directory is read-only or missing (${message})`;
  }
  return new CordonError("invalid_request", `Cannot open database "${url}": ${why}`, {
    cause: err,
  });
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
  // A server's files are its own to watch; its fatal errors still lose this store.
  const guard = new StoreGuard();
  return {
    url,
    execute: (stmt) => guarded(guard, async () => result(await client.execute(stmt))),
    batch: (stmts) => guarded(guard, async () => (await client.batch(stmts, "write")).map(result)),
    health: () => guard.health(),
    close: () => client.close(),
  };
}

async function openLocal(url: string): Promise<Db> {
  let path = ":memory:";
  if (isFileUrl(url)) {
    path = url.startsWith("file://") ? fileURLToPath(url) : url.slice("file:".length);
    try {
      await Deno.mkdir(dirname(path), { recursive: true });
    } catch (err) {
      throw cannotOpen(url, err);
    }
  }
  let db: LocalDb;
  let intents: IntentLog | undefined;
  // Set once the file is set up; every committed write is checked against it before it is
  // acknowledged, so a write into a deleted or truncated file fails instead of vanishing later.
  let guard: StoreGuard | undefined;
  try {
    db = new LocalDb(path, () => guard?.check());
  } catch (err) {
    throw cannotOpen(url, err);
  }
  try {
    if (path !== ":memory:") {
      // WAL lets readers and one writer work at once across processes; NORMAL
      // sync is durable across process crashes (only an OS crash may lose the
      // last transactions), which is the failure Cordon must survive.
      db.execute("PRAGMA journal_mode = WAL");
      db.execute("PRAGMA synchronous = NORMAL");
      db.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // A read-only file or directory may open fine and fail at the first write, deep in
      // start-up; one write, rolled back, says so here in words an operator acts on.
      const version = Number(db.execute("PRAGMA user_version").rows[0]?.user_version ?? 0);
      db.execute("BEGIN IMMEDIATE");
      try {
        db.execute(`PRAGMA user_version = ${version}`);
      } finally {
        db.execute("ROLLBACK");
      }
    }
    db.execute("PRAGMA foreign_keys = ON");
    guard = new StoreGuard(path === ":memory:" ? undefined : path);
    // Where the folder cannot hold one or a file cannot be locked, calls wait for their commit.
    if (path !== ":memory:") {
      const checked = guard;
      intents = IntentLog.tryOpen(path, { assertAvailable: () => checked.assertAvailable() });
    }
  } catch (err) {
    db.close();
    throw cannotOpen(url, err);
  }
  const live = guard;
  // Async like the remote client, so callers do not care which one they hold; a failed
  // statement is a rejected promise, never a synchronous throw.
  return {
    url,
    ...(intents ? { intents } : {}),
    execute: (stmt) => guarded(live, () => db.execute(stmt)),
    batch: (stmts) => guarded(live, () => db.batch(stmts)),
    health: () => live.health(),
    close: () => {
      intents?.close();
      db.close();
      live.close();
    },
  };
}
