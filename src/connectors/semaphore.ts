/**
 * A counting semaphore with a FIFO queue: bounds how many calls of one
 * connector run at once, across every execution.
 *
 * @module
 */

/** A FIFO counting semaphore. */
export class Semaphore {
  #available: number;
  #waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.#available = permits;
  }

  /** Waits for a permit; the returned function gives it back (once). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#available > 0) {
      this.#available--;
    } else {
      await new Promise<void>((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.#waiters.indexOf(grant);
          if (i !== -1) this.#waiters.splice(i, 1);
          reject(signal!.reason);
        };
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        this.#waiters.push(grant);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next();
      else this.#available++;
    };
  }

  /** Calls waiting for a permit. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Permits free now. */
  get available(): number {
    return this.#available;
  }
}
