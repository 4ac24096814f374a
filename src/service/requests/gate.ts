/**
 * Admission control: at most `maxRunning` executions started through the
 * service run at once; up to `maxQueued` more wait their turn; past that a
 * request is refused with 429 at once instead of piling up children until
 * the host runs out of memory. The gate is shared fairly by tenants: freed
 * slots go round-robin over the namespaces that wait, and one namespace may
 * hold at most half the queue, so another tenant always finds a place.
 *
 * @module
 */
import { Semaphore } from "../../connectors/semaphore.ts";
import { CordonError } from "../../errors.ts";

/** Runs at once when the config does not say: each may use up to its memory limit. */
export const DEFAULT_MAX_RUNNING = 64;
/** Requests waiting for a slot; beyond this the caller is told to come back. */
export const DEFAULT_MAX_QUEUED = 1_024;

/** The share of the queue one namespace may fill: the rest stays open to other tenants. */
export const NAMESPACE_QUEUE_SHARE = 0.5;

/** A counting gate with a bounded queue: the connectors' semaphore, refusing past `maxQueued`. */
export class Gate {
  readonly #maxRunning: number;
  readonly #maxQueued: number;
  readonly #slots: Semaphore;

  constructor(maxRunning = DEFAULT_MAX_RUNNING, maxQueued = DEFAULT_MAX_QUEUED) {
    this.#maxRunning = maxRunning;
    this.#maxQueued = maxQueued;
    this.#slots = new Semaphore(maxRunning);
  }

  /** Runs now and waiting. */
  get load(): { running: number; queued: number; maxRunning: number; maxQueued: number } {
    return {
      running: this.#maxRunning - this.#slots.available,
      queued: this.#slots.waiting,
      maxRunning: this.#maxRunning,
      maxQueued: this.#maxQueued,
    };
  }

  /**
   * Waits for a slot, in turn with other namespaces; returns the function that gives it back
   * (call it once).
   */
  enter(namespace = ""): Promise<() => void> {
    const full = this.#slots.waiting >= this.#maxQueued ||
      this.#slots.waitingIn(namespace) >= Math.ceil(this.#maxQueued * NAMESPACE_QUEUE_SHARE);
    if (this.#slots.available === 0 && full) {
      const { running, queued } = this.load;
      return Promise.reject(
        new CordonError(
          "too_many_requests",
          `The service is running ${running} executions with ${queued} waiting; try again shortly`,
          { details: { running, queued } },
        ),
      );
    }
    return this.#slots.acquire(undefined, namespace);
  }

  /** Runs `work` holding a slot (refused like {@link enter} when the queue is full). */
  async run<T>(work: () => Promise<T>, namespace = ""): Promise<T> {
    const leave = await this.enter(namespace);
    try {
      return await work();
    } finally {
      leave();
    }
  }
}
