/**
 * A counting semaphore that is fair across tenants: bounds how many calls of one connector
 * run at once, across every execution, and hands freed permits round-robin over the
 * namespaces that have callers waiting, FIFO within each. One run's fan-out of hundreds of
 * calls therefore queues behind itself, not in front of another tenant's single call.
 *
 * @module
 */

/** The queue of callers that name no namespace (the service gate, library callers). */
const ANONYMOUS = "";

/**
 * A counting semaphore, FIFO within a namespace and round-robin across namespaces.
 *
 * @example
 * ```ts
 * import { Semaphore } from "./semaphore.ts";
 * const sem = new Semaphore(1);
 * const release = await sem.acquire();
 * const order: string[] = [];
 * const a1 = sem.acquire(undefined, "a").then((r) => { order.push("a1"); r(); });
 * const a2 = sem.acquire(undefined, "a").then((r) => { order.push("a2"); r(); });
 * const b1 = sem.acquire(undefined, "b").then((r) => { order.push("b1"); r(); });
 * release();
 * await Promise.all([a1, a2, b1]);
 * console.assert(order.join() === "a1,b1,a2");
 * ```
 */
export class Semaphore {
  #available: number;
  /**
   * Waiters by namespace. A Map keeps insertion order, so its first key is the namespace
   * whose turn it is; a namespace served and still waiting is moved to the end.
   */
  #queues = new Map<string, (() => void)[]>();
  #waiting = 0;

  constructor(permits: number) {
    this.#available = permits;
  }

  /**
   * Waits for a permit; the returned function gives it back (once). `namespace` is the
   * tenant asking: while permits are short they go to each waiting namespace in turn.
   */
  async acquire(signal?: AbortSignal, namespace: string = ANONYMOUS): Promise<() => void> {
    if (this.#available > 0) {
      this.#available--;
    } else {
      await new Promise<void>((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          if (this.#remove(namespace, grant)) reject(signal!.reason);
        };
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        const queue = this.#queues.get(namespace);
        if (queue) queue.push(grant);
        else this.#queues.set(namespace, [grant]);
        this.#waiting++;
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#next();
      if (next) next();
      else this.#available++;
    };
  }

  /** The next waiter in turn, taken off its queue; undefined when nobody waits. */
  #next(): (() => void) | undefined {
    const first = this.#queues.entries().next();
    if (first.done) return undefined;
    const [namespace, queue] = first.value;
    const grant = queue.shift()!;
    this.#waiting--;
    // Served: to the back of the line, if it still waits.
    this.#queues.delete(namespace);
    if (queue.length > 0) this.#queues.set(namespace, queue);
    return grant;
  }

  /** Takes an aborted waiter off its queue; false if it was already granted. */
  #remove(namespace: string, grant: () => void): boolean {
    const queue = this.#queues.get(namespace);
    const i = queue?.indexOf(grant) ?? -1;
    if (i === -1) return false;
    queue!.splice(i, 1);
    this.#waiting--;
    if (queue!.length === 0) this.#queues.delete(namespace);
    return true;
  }

  /** Calls of `namespace` waiting for a permit. */
  waitingIn(namespace: string = ANONYMOUS): number {
    return this.#queues.get(namespace)?.length ?? 0;
  }

  /** Calls waiting for a permit, in every namespace. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Permits free now. */
  get available(): number {
    return this.#available;
  }
}
