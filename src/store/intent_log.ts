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

/** This process's intent log for one store. */
export class IntentLog {
  readonly #file: Deno.FsFile;
  /** This process's file, and the folder of every process's. */
  readonly path: string;
  readonly dir: string;
  /** Statements written here and not yet committed to the store. */
  #pending = 0;
  #empty = true;
  #closed = false;
  readonly #held = new WeakSet<object>();

  private constructor(file: Deno.FsFile, path: string, dir: string) {
    this.#file = file;
    this.path = path;
    this.dir = dir;
  }

  /** {@link open}, or undefined where the file cannot be made or locked. */
  static tryOpen(dbPath: string): IntentLog | undefined {
    try {
      return IntentLog.open(dbPath);
    } catch {
      return undefined;
    }
  }

  /** Creates this process's file in the store's folder, locked for as long as it is open. */
  static open(dbPath: string): IntentLog {
    const dir = intentsDir(dbPath);
    Deno.mkdirSync(dir, { recursive: true });
    const path = join(dir, `${crypto.randomUUID()}.log`);
    // Only the owner reads it: it holds calls' arguments, as the database does.
    const file = Deno.openSync(path, { create: true, append: true, read: true, mode: 0o600 });
    if (!file.tryLockSync(true)) {
      file.close();
      throw new Error(`Cannot lock ${path}`);
    }
    return new IntentLog(file, path, dir);
  }

  /**
   * Writes the entry an append statement stores (its arguments, one JSON line) and returns
   * once the kernel has it. Throws `store_unavailable` if it cannot.
   */
  record(statement: InStatement): void {
    if (this.#closed) throw new CordonError("store_unavailable", "The store is closed");
    const bytes = encoder.encode(JSON.stringify((statement as { args: InValue[] }).args) + "\n");
    try {
      for (let at = 0; at < bytes.length;) at += this.#file.writeSync(bytes.subarray(at));
    } catch (err) {
      throw new CordonError(
        "store_unavailable",
        `The call log cannot be written (${this.path}): ${
          err instanceof Error ? err.message : String(err)
        }`,
      );
    }
    this.#held.add(statement as object);
    this.#pending++;
    this.#empty = false;
  }

  /** True when `statement` was written here (and its commit will say so). */
  holds(statement: InStatement): boolean {
    return this.#held.has(statement as object);
  }

  /** `count` statements written here are committed; once none is pending the file is emptied. */
  committed(count: number): void {
    this.#pending -= count;
    if (this.#pending > 0 || this.#empty || this.#closed) return;
    try {
      this.#file.truncateSync(0);
      this.#empty = true;
    } catch {
      // Kept: a line the store also holds is skipped when the file is read.
    }
  }

  /** Closes the file; removes it when the store holds every entry it took. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#pending === 0) {
      try {
        Deno.removeSync(this.path);
      } catch { /* already gone */ }
    }
    this.#file.close();
  }
}

/** The entries of an intent log file: each whole line that parses (a torn last one does not). */
export function readIntents(text: string, width: number): InValue[][] {
  const out: InValue[][] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const args = JSON.parse(line);
      if (Array.isArray(args) && args.length === width) out.push(args);
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
  skip: string | undefined,
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
    if (path === skip) continue;
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
