/**
 * The group commit of the call journal: statements queued while a commit is
 * under way commit together in one transaction, in order, so a thousand calls
 * under `Promise.all` cost a few transactions, not a thousand.
 *
 * @module
 */
import type { InStatement } from "@libsql/client";
import type { CallStore } from "../../store/calls.ts";

/** Commits queued statements in order, grouping those queued during a commit. */
export class CommitQueue {
  readonly #store: CallStore;
  #queue: { statements: InStatement[]; done: PromiseWithResolvers<void> }[] = [];
  #draining: Promise<void> | undefined;

  constructor(store: CallStore) {
    this.#store = store;
  }

  /** Waits for every write queued so far (and those queued meanwhile). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /**
   * Queues statements; they commit in order, and statements queued while a
   * commit is under way commit together in one transaction (group commit),
   * so a thousand calls under Promise.all cost a few transactions, not a thousand.
   */
  write(...statements: InStatement[]): Promise<void> {
    const done = Promise.withResolvers<void>();
    this.#queue.push({ statements, done });
    if (!this.#draining) this.#draining = this.#drain();
    return done.promise;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const group = this.#queue.splice(0);
      const statements = group.flatMap((g) => g.statements);
      try {
        if (statements.length === 1) await this.#store.db.execute(statements[0]);
        else await this.#store.db.batch(statements);
        for (const g of group) g.done.resolve();
      } catch (err) {
        for (const g of group) g.done.reject(err);
      }
    }
    this.#draining = undefined;
  }
}
