/**
 * Admission control: at most `maxRunning` executions started through the
 * service run at once; up to `maxQueued` more wait their turn in order;
 * past that a request is refused with 429 at once instead of piling up
 * children until the host runs out of memory.
 *
 * @module
 */
import { CordonError } from "../errors.ts";

/** Runs at once when the config does not say: each may use up to its memory limit. */
export const DEFAULT_MAX_RUNNING = 64;
/** Requests waiting for a slot; beyond this the caller is told to come back. */
export const DEFAULT_MAX_QUEUED = 1_024;

/** A counting gate with a bounded queue. */
export class Gate {
  readonly #maxRunning: number;
  readonly #maxQueued: number;
  #running = 0;
  readonly #queue: (() => void)[] = [];

  constructor(maxRunning = DEFAULT_MAX_RUNNING, maxQueued = DEFAULT_MAX_QUEUED) {
    this.#maxRunning = maxRunning;
    this.#maxQueued = maxQueued;
  }

  /** Runs now and waiting. */
  get load(): { running: number; queued: number; maxRunning: number; maxQueued: number } {
    return {
      running: this.#running,
      queued: this.#queue.length,
      maxRunning: this.#maxRunning,
      maxQueued: this.#maxQueued,
    };
  }

  /** Waits for a slot; returns the function that gives it back (call it once). */
  async enter(): Promise<() => void> {
    if (this.#running >= this.#maxRunning) {
      if (this.#queue.length >= this.#maxQueued) {
        throw new CordonError(
          "too_many_requests",
          `The service is running ${this.#running} executions with ${this.#queue.length} waiting; try again shortly`,
          { details: { running: this.#running, queued: this.#queue.length } },
        );
      }
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else {
      this.#running++;
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#queue.shift();
      // The slot passes straight to the next in line; otherwise it is freed.
      if (next) next();
      else this.#running--;
    };
  }
}
