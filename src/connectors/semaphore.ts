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

/** One caller waiting for a permit. */
interface Waiter {
  namespace: string;
  grant: () => void;
  reject: (reason: unknown) => void;
}

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
    const now = this.tryAcquire();
    if (now) return now;
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = { namespace, grant: () => {}, reject };
      waiter.grant = () => {
        if (signal) this.#unwatch(signal, waiter);
        resolve();
      };
      if (signal) this.#watch(signal, waiter);
      const queue = this.#queues.get(namespace);
      if (queue) queue.push(waiter.grant);
      else this.#queues.set(namespace, [waiter.grant]);
      this.#waiting++;
    });
    return this.#releaser();
  }

  /**
   * Waiters by the signal that cancels them: one listener per signal, however many of its
   * calls wait (a fan-out of a thousand calls from one run shares its run's signal).
   */
  #bySignal = new Map<AbortSignal, { waiters: Set<Waiter>; onAbort: () => void }>();

  #watch(signal: AbortSignal, waiter: Waiter): void {
    let watched = this.#bySignal.get(signal);
    if (!watched) {
      const waiters = new Set<Waiter>();
      const onAbort = () => {
        this.#bySignal.delete(signal);
        for (const w of waiters) {
          if (this.#remove(w.namespace, w.grant)) w.reject(signal.reason);
        }
      };
      watched = { waiters, onAbort };
      this.#bySignal.set(signal, watched);
      signal.addEventListener("abort", onAbort, { once: true });
    }
    watched.waiters.add(waiter);
  }

  #unwatch(signal: AbortSignal, waiter: Waiter): void {
    const watched = this.#bySignal.get(signal);
    if (!watched) return;
    watched.waiters.delete(waiter);
    if (watched.waiters.size === 0) {
      this.#bySignal.delete(signal);
      signal.removeEventListener("abort", watched.onAbort);
    }
  }

  /** A permit now, without waiting: its release function, or undefined when none is free. */
  tryAcquire(): (() => void) | undefined {
    if (this.#available <= 0) return undefined;
    this.#available--;
    return this.#releaser();
  }

  #releaser(): () => void {
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
