/**
 * The call log's intent log, for an embedded `file:` store. A call with an effect must be on
 * disk before the effect, and a transaction of the store costs a sequential call 50–110 µs
 * (locks, the WAL, its index), most of a call. So its entry is first written here, one line
 * appended to a file of this process's own (about 18 µs), and reaches the store behind, in
 * the next group commit, together with how the call ended.
 *
 * Both survive what Cordon must survive, a crash of the process: a write to the file and a
 * WAL commit with `synchronous = NORMAL` are in the kernel's hands once they return. Lines
 * whose entries the store holds are dropped (the file is emptied once none is pending), and
 * a process that finds the file of one that died (its lock is free) puts that file's entries
 * into the store, before any run of that process can be resumed or replayed.
 *
 * @module
 */
import { join } from "node:path";
import type { InStatement, InValue } from "@libsql/client";
import { CordonError } from "../errors.ts";

/** The folder of a store's intent logs: next to its file, as SQLite's `-wal` is. */
export function intentsDir(dbPath: string): string {
  return `${dbPath}-cordon-intents`;
}

const encoder = new TextEncoder();

/**
 * How large one file of the log grows before entries go to a new one. A busy process may always
 * have some entry not committed yet, so its file is never empty at a commit; a full file is
 * removed once every entry in it is committed, which bounds the disk the log takes to a few of
 * these.
 */
export const SEGMENT_BYTES = 1024 * 1024;

/** One file of the log: locked by this process while it is open. */
interface Segment {
  file: Deno.FsFile;
  path: string;
  /** Entries written here and not committed to the store yet. */
  pending: number;
  bytes: number;
}

/** Options for {@link IntentLog.open}. */
export interface IntentLogOptions {
  /** Throws when the store is lost: nothing is written for a store that cannot take it. */
  assertAvailable?: () => void;
  /** Bytes of a file before a new one is started (default {@link SEGMENT_BYTES}). */
  segmentBytes?: number;
}

/** This process's intent log for one store. */
export class IntentLog {
  /** The folder of every process's logs for the store. */
  readonly dir: string;
  #current: Segment;
  /** Full files with entries not committed yet. */
  readonly #full = new Set<Segment>();
  readonly #held = new WeakMap<object, Segment>();
  readonly #options: IntentLogOptions;
  #closed = false;

  private constructor(dir: string, options: IntentLogOptions) {
    this.dir = dir;
    this.#options = options;
    this.#current = openSegment(dir);
  }

  /** Creates this process's first file in the store's folder. */
  static open(dbPath: string, options: IntentLogOptions = {}): IntentLog {
    const dir = intentsDir(dbPath);
    Deno.mkdirSync(dir, { recursive: true });
    return new IntentLog(dir, options);
  }

  /** {@link open}, or undefined where the file cannot be made or locked. */
  static tryOpen(dbPath: string, options: IntentLogOptions = {}): IntentLog | undefined {
    try {
      return IntentLog.open(dbPath, options);
    } catch {
      return undefined;
    }
  }

  /** The file entries are written to now. */
  get path(): string {
    return this.#current.path;
  }

  /** True when `path` is one of this process's files. */
  owns(path: string): boolean {
    return path === this.#current.path || [...this.#full].some((s) => s.path === path);
  }

  /**
   * Writes what each statement stores (its arguments, one JSON line each; the recovery tells an
   * append from a finish by their count) in one write, and returns once the kernel has them.
   * Throws `store_unavailable` if it cannot, or if the store is lost.
   */
  record(...statements: InStatement[]): void {
    if (this.#closed) throw new CordonError("store_unavailable", "The store is closed");
    this.#options.assertAvailable?.();
    if (this.#current.bytes >= (this.#options.segmentBytes ?? SEGMENT_BYTES)) {
      this.#full.add(this.#current);
      this.#current = openSegment(this.dir);
    }
    const segment = this.#current;
    let text = "";
    for (const s of statements) text += JSON.stringify((s as { args: InValue[] }).args) + "\n";
    const bytes = encoder.encode(text);
    try {
      for (let at = 0; at < bytes.length;) at += segment.file.writeSync(bytes.subarray(at));
    } catch (err) {
      throw new CordonError(
        "store_unavailable",
        `The call log cannot be written (${segment.path}): ${
          err instanceof Error ? err.message : String(err)
        }`,
      );
    }
    for (const s of statements) this.#held.set(s as object, segment);
    segment.pending += statements.length;
    segment.bytes += bytes.length;
  }

  /**
   * These statements are committed to the store: the entries written here for them can go. A
   * file whose entries are all committed is emptied, or removed once it is full.
   */
  committed(statements: readonly InStatement[]): void {
    const done = new Set<Segment>();
    for (const s of statements) {
      const segment = this.#held.get(s as object);
      if (!segment) continue;
      this.#held.delete(s as object);
      if (--segment.pending === 0) done.add(segment);
    }
    for (const segment of done) {
      if (segment.pending > 0 || this.#closed) continue;
      if (segment !== this.#current) {
        this.#full.delete(segment);
        closeSegment(segment, true);
      } else if (segment.bytes > 0) {
        try {
          segment.file.truncateSync(0);
          segment.bytes = 0;
        } catch {
          // Kept: a line the store also holds is skipped when the file is read.
        }
      }
    }
  }

  /** Closes the files; removes those whose entries the store all holds. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const segment of [...this.#full, this.#current]) {
      closeSegment(segment, segment.pending === 0);
    }
    this.#full.clear();
  }
}

/** A new file of this process's, locked for as long as it is open. */
function openSegment(dir: string): Segment {
  const path = join(dir, `${crypto.randomUUID()}.log`);
  // Only the owner reads it: it holds calls' arguments, as the database does.
  const file = Deno.openSync(path, { create: true, append: true, read: true, mode: 0o600 });
  if (!file.tryLockSync(true)) {
    file.close();
    throw new Error(`Cannot lock ${path}`);
  }
  return { file, path, pending: 0, bytes: 0 };
}

function closeSegment(segment: Segment, remove: boolean): void {
  if (remove) {
    try {
      Deno.removeSync(segment.path);
    } catch { /* already gone */ }
  }
  try {
    segment.file.close();
  } catch { /* already closed */ }
}

/** The lines of an intent log file: each whole one that parses (a torn last one does not). */
export function readIntents(text: string): InValue[][] {
  const out: InValue[][] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const args = JSON.parse(line);
      if (Array.isArray(args)) out.push(args);
    } catch { /* torn by a crash while it was written */ }
  }
  return out;
}

/**
 * The intent logs in `dir` whose process is gone: each one's lock taken, then `apply` given
 * its text; the file is removed once `apply` resolves, kept (and unlocked) if it throws.
 */
export async function takeOrphanedIntents(
  dir: string,
  skip: (path: string) => boolean,
  apply: (text: string) => Promise<void>,
): Promise<number> {
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".log"))
      .map((e) => e.name);
  } catch {
    return 0; // no folder: nothing was ever written
  }
  let taken = 0;
  for (const name of names) {
    const path = join(dir, name);
    if (skip(path)) continue;
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true, write: true });
    } catch {
      continue; // removed meanwhile by another process
    }
    try {
      // A live process holds its own file's lock.
      if (!file.tryLockSync(true)) continue;
      const text = new TextDecoder().decode(await Deno.readFile(path));
      await apply(text);
      Deno.removeSync(path);
      taken++;
    } catch {
      // Left for the next look.
    } finally {
      file.close();
    }
  }
  return taken;
}
