/**
 * The group commit of the call journal: statements queued while a commit is
 * under way commit together, in order, so a thousand calls under
 * `Promise.all` cost a few transactions, not a thousand. Runs of appends
 * and of finishes become multi-row statements. The embedded engine runs on
 * the host's thread, so a big group is cut into transactions of at most
 * {@link MAX_GROUP_STATEMENTS}, with a turn of the event loop between them
 * once a turn's work passes {@link GROUP_SLICE_MS}.
 *
 * @module
 */
import type { InStatement } from "@libsql/client";
import { nextTurn } from "../../loop.ts";
import { type CallStore, isIntent, mergeCallWrites } from "../../store/calls.ts";

/** Statements (before merging) in one transaction: about 4 ms of the engine's time. */
export const MAX_GROUP_STATEMENTS = 1024;

/** Work between two turns of the event loop while a burst of writes commits. */
const GROUP_SLICE_MS = 5;

/**
 * How long a write-behind waits for company: a sequential call's finish joins the next call's
 * append in one transaction (on a `file:` store a transaction is the cost, about 70 µs).
 */
export const WRITE_BEHIND_MS = 5;

interface Queued {
  statements: InStatement[];
  done: PromiseWithResolvers<void>;
}

/** Commits queued statements in order, grouping those queued during a commit. */
export class CommitQueue {
  readonly #store: CallStore;
  #queue: Queued[] = [];
  #draining: Promise<void> | undefined;
  #behind: ReturnType<typeof setTimeout> | undefined;
  /** Written behind, not committed, and not in the intent log: {@link writeAhead} logs them. */
  readonly #unlogged = new Set<InStatement>();

  constructor(store: CallStore) {
    this.#store = store;
  }

  /** Waits for every write queued so far (and those queued meanwhile). */
  async flush(): Promise<void> {
    if (this.#behind !== undefined) {
      clearTimeout(this.#behind);
      this.#behind = undefined;
    }
    this.#start();
    while (this.#draining) await this.#draining;
  }

  /**
   * Queues statements; they commit in order, and statements queued while a
   * commit is under way commit together in one transaction (group commit).
   */
  write(...statements: InStatement[]): Promise<void> {
    const done = Promise.withResolvers<void>();
    this.#queue.push({ statements, done });
    this.#start();
    return done.promise;
  }

  /**
   * Queues a call's entry, which must be durable before the call's effect, with everything
   * queued before it (how earlier calls ended). Where the store has an intent log
   * (`intent_log.ts`), those writes go there now, in one append, and commit behind; a store in
   * memory, which nothing survives, takes them behind; elsewhere, or when something queued is
   * not a call's write, this resolves once they are committed.
   */
  async writeAhead(append: InStatement): Promise<void> {
    const { intents, url } = this.#store.db;
    if (intents) {
      const earlier = [...this.#unlogged];
      if (!earlier.every(isIntent)) return await this.write(append);
      intents.record(...earlier, append);
      this.#unlogged.clear();
    } else if (url !== ":memory:") return await this.write(append);
    this.#queueBehind([append]).catch(() => {});
  }

  /**
   * Queues statements nobody waits for (a call's outcome, written behind): they commit with
   * the next {@link write}, at a {@link flush}, or after {@link WRITE_BEHIND_MS}, whichever
   * comes first, in order with everything else.
   */
  writeBehind(...statements: InStatement[]): Promise<void> {
    if (this.#store.db.intents) { for (const s of statements) this.#unlogged.add(s); }
    return this.#queueBehind(statements);
  }

  #queueBehind(statements: InStatement[]): Promise<void> {
    const done = Promise.withResolvers<void>();
    this.#queue.push({ statements, done });
    if (!this.#draining && this.#behind === undefined) {
      this.#behind = setTimeout(() => {
        this.#behind = undefined;
        this.#start();
      }, WRITE_BEHIND_MS);
    }
    return done.promise;
  }

  /**
   * Drains the queue unless a drain is under way. A write-behind's timer is not cleared here:
   * armed, it finds the queue empty or takes what came since, so calls made one after another
   * set one timer each {@link WRITE_BEHIND_MS}, not one each ({@link flush} clears it).
   */
  #start(): void {
    if (!this.#draining && this.#queue.length > 0) this.#draining = this.#drain();
  }

  /** The next group: whole writes, in order, up to {@link MAX_GROUP_STATEMENTS} (at least one). */
  #take(): Queued[] {
    let count = 0;
    let n = 0;
    while (n < this.#queue.length) {
      count += this.#queue[n].statements.length;
      if (n > 0 && count > MAX_GROUP_STATEMENTS) break;
      n++;
    }
    return this.#queue.splice(0, n);
  }

  async #drain(): Promise<void> {
    let since = performance.now();
    while (this.#queue.length > 0) {
      const group = this.#take();
      const queued = group.flatMap((g) => g.statements);
      for (const s of queued) this.#unlogged.delete(s);
      const statements = mergeCallWrites(queued);
      try {
        if (statements.length === 1) await this.#store.db.execute(statements[0]);
        else await this.#store.db.batch(statements);
        // Entries written ahead to the intent log are in the store now: their lines can go.
        this.#store.db.intents?.committed(queued);
        for (const g of group) g.done.resolve();
      } catch (err) {
        for (const g of group) g.done.reject(err);
      }
      if (this.#queue.length > 0 && performance.now() - since > GROUP_SLICE_MS) {
        await nextTurn();
        since = performance.now();
      }
    }
    this.#draining = undefined;
  }
}
