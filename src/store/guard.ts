/**
 * Notices when the store can no longer keep what it acknowledges. SQLite
 * keeps writing happily into a database file that was deleted (the inode
 * lives on while open) or truncated (new pages land in the WAL), so every
 * later write would be answered and then lost at restart. The guard remembers
 * the file's identity at open and checks it after each write; the engine's
 * fatal errors (disk full, I/O error, corruption) count as the same loss.
 * Once lost, the store stays unavailable until the process restarts: a
 * half-working store would answer from memory what it can no longer keep.
 *
 * @module
 */
import { CordonError } from "../errors.ts";

/** Whether a store can keep what it acknowledges, and if not, why. */
export type StoreHealth = { ok: true } | { ok: false; reason: string };

/**
 * SQLite's primary result codes that mean the database can no longer keep
 * writes: `SQLITE_READONLY`, `SQLITE_IOERR`, `SQLITE_CORRUPT`, `SQLITE_FULL`,
 * `SQLITE_CANTOPEN`, `SQLITE_NOTADB`. A busy lock or a constraint is not among
 * them: those are about one statement, not the store.
 */
const FATAL_PRIMARY_CODES: ReadonlySet<number> = new Set([8, 10, 11, 13, 14, 26]);
const FATAL_CODE_NAMES = /^SQLITE_(READONLY|IOERR|CORRUPT|FULL|CANTOPEN|NOTADB)(_|$)/;

/** What SQLite calls a fatal condition, in words an operator acts on. */
function describe(code: string): string {
  if (code.startsWith("SQLITE_FULL")) return "the disk is full";
  if (code.startsWith("SQLITE_READONLY")) return "the database became read-only";
  if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB")) {
    return "the database file is corrupt";
  }
  return "the database file cannot be read or written";
}

/** The SQLite code of `err` when it is one that means the store is lost, else undefined. */
export function fatalStoreCode(err: unknown): string | undefined {
  if (err === null || typeof err !== "object") return undefined;
  const { code, rawCode } = err as { code?: unknown; rawCode?: unknown };
  if (typeof code === "string" && FATAL_CODE_NAMES.test(code)) return code;
  if (typeof rawCode === "number" && FATAL_PRIMARY_CODES.has(rawCode & 0xff)) {
    return typeof code === "string" ? code : `SQLITE_${rawCode}`;
  }
  return undefined;
}

interface FileIdentity {
  dev: number;
  ino: number;
}

function identity(info: Deno.FileInfo): FileIdentity {
  return { dev: info.dev, ino: info.ino ?? 0 };
}

function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = new TextEncoder().encode("SQLite format 3\0");

/**
 * Writes between full checks, which read the file's header and look at the
 * write-ahead log too. The
 * database file is checked after every write (one `stat`, about 7 µs); its
 * WAL only loses commits until the next checkpoint, so a second `stat` on
 * every write would double the cost for a rarer loss. Health checks (and the
 * runtime's heartbeat) check it as well.
 */
export const WAL_CHECK_EVERY = 32;

/** Watches one store: its file (when it has one) and the errors its engine reports. */
export class StoreGuard {
  readonly #path?: string;
  #file?: FileIdentity;
  /** The largest size seen: the main file only grows (Cordon never runs VACUUM). */
  #size = 0;
  #wal?: FileIdentity;
  #writes = 0;
  #lost?: string;
  /**
   * The one descriptor the header is read through, opened at the first full check and
   * closed only with the store. SQLite's locks are POSIX locks, and POSIX drops every lock a
   * process holds on a file when any descriptor of that file in the process closes: opening
   * and closing the file per check would drop the engine's lock, and another process's last
   * close would then checkpoint and delete the write-ahead log under this one.
   */
  #reader?: Deno.FsFile;

  /** `path`: the database file of an embedded store; none for `:memory:` and servers. */
  constructor(path?: string) {
    this.#path = path;
    if (path === undefined) return;
    const info = Deno.statSync(path);
    this.#file = identity(info);
    this.#size = info.size;
  }

  /** Why the store is lost, once it is. */
  get lost(): string | undefined {
    return this.#lost;
  }

  /** Throws `store_unavailable` when the store was already lost. */
  assertAvailable(): void {
    if (this.#lost !== undefined) throw this.#error();
  }

  /**
   * Checks that the file written to is still the database at its path, whole: after every
   * write, and in full (the write-ahead log too) by {@link health} and every
   * {@link WAL_CHECK_EVERY} writes. Reasons name no path: they reach API callers and the
   * unauthenticated `/healthz`. Throws `store_unavailable` (and stays lost) when it is not.
   */
  check(full = false): void {
    this.assertAvailable();
    const path = this.#path;
    if (path === undefined || this.#file === undefined) return;
    let reason: string | undefined;
    try {
      reason = this.#fileProblem(path, this.#file);
      this.#writes++;
      const periodic = this.#writes % WAL_CHECK_EVERY === 0;
      if (reason === undefined && (full || periodic)) reason = this.#headerProblem(path);
      if (reason === undefined && (full || periodic || this.#wal === undefined)) {
        reason = this.#walProblem(path);
      }
    } catch (err) {
      reason = `its database file cannot be checked (${
        err instanceof Deno.errors.PermissionDenied ? "permission denied" : "stat failed"
      })`;
    }
    if (reason !== undefined) this.lose(reason);
  }

  #fileProblem(path: string, file: FileIdentity): string | undefined {
    const info = statOrNull(path);
    if (info === null) return "its database file was deleted";
    if (info.dev !== file.dev || (info.ino ?? 0) !== file.ino) {
      return "its database file was replaced by another file";
    }
    if (info.size < this.#size) {
      return `its database file was truncated (${this.#size} → ${info.size} bytes)`;
    }
    this.#size = info.size;
    return undefined;
  }

  /**
   * A file truncated and then grown back by a checkpoint has its old size again but zeros
   * where its header was; SQLite would call it corrupt only at the next restart.
   */
  #headerProblem(path: string): string | undefined {
    if (this.#size < SQLITE_HEADER.length) return undefined;
    const head = new Uint8Array(SQLITE_HEADER.length);
    const file = this.#reader ??= Deno.openSync(path, { read: true });
    file.seekSync(0, Deno.SeekMode.Start);
    let read = 0;
    while (read < head.length) {
      const n = file.readSync(head.subarray(read));
      if (n === null || n === 0) break;
      read += n;
    }
    if (head.every((b, i) => b === SQLITE_HEADER[i])) return undefined;
    return "its database file was overwritten (its header is gone)";
  }

  /**
   * The WAL holds the last commits until a checkpoint copies them into the file; it exists
   * from the first write until the last connection closes, and this one is still open.
   */
  #walProblem(path: string): string | undefined {
    const wal = statOrNull(`${path}-wal`);
    if (this.#wal === undefined) {
      if (wal !== null) this.#wal = identity(wal);
    } else if (wal === null) {
      return "its write-ahead log (-wal file) was deleted";
    } else if (wal.dev !== this.#wal.dev || (wal.ino ?? 0) !== this.#wal.ino) {
      return "its write-ahead log (-wal file) was replaced by another file";
    }
    return undefined;
  }

  /** Lets go of the file; call it after the engine closed its own connection. */
  close(): void {
    try {
      this.#reader?.close();
    } catch {
      // Already closed.
    }
    this.#reader = undefined;
  }

  /** Marks the store lost for good and throws `store_unavailable`. */
  lose(reason: string): never {
    this.#lost ??= reason;
    throw this.#error();
  }

  /**
   * Turns an engine error into what callers see: a fatal SQLite condition loses
   * the store (`store_unavailable`); anything else is returned as it was.
   */
  classify(err: unknown): unknown {
    if (err instanceof CordonError) return err;
    const code = fatalStoreCode(err);
    if (code === undefined) return err;
    const message = err instanceof Error ? err.message : String(err);
    this.#lost ??= `${describe(code)} (${code}: ${message})`;
    return this.#error(err);
  }

  /** The store's health now: checks the file first, so a loss shows without a write. */
  health(): StoreHealth {
    try {
      this.check(true);
    } catch {
      // Recorded in #lost.
    }
    return this.#lost === undefined ? { ok: true } : { ok: false, reason: this.#lost };
  }

  #error(cause?: unknown): CordonError {
    return new CordonError(
      "store_unavailable",
      `The store is unavailable: ${this.#lost}. Nothing more can be recorded until the operator repairs it and restarts the service; retry then`,
      cause === undefined ? {} : { cause },
    );
  }
}
