/**
 * A pass's clock: the deadline counts only while the run runs. A pause
 * suspends it (keeping the time left) and starts the hold timer instead; a
 * decision ends the hold and the deadline counts on from where it stopped.
 *
 * @module
 */

/** The deadline and hold timers of one pass. */
export class RunClock {
  readonly #onTimeout: () => void;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #hold: ReturnType<typeof setTimeout> | undefined;
  #remainingMs: number;
  #countingSince = 0;

  /** `onTimeout` runs once the run has run `timeoutMs` in all. */
  constructor(timeoutMs: number, onTimeout: () => void) {
    this.#remainingMs = timeoutMs;
    this.#onTimeout = onTimeout;
  }

  /** Counts the time left from now. */
  run(): void {
    this.#countingSince = performance.now();
    this.#deadline = setTimeout(this.#onTimeout, this.#remainingMs);
  }

  /** Stops counting (the time left is kept) and calls `onHoldOver` after `holdMs`. */
  hold(holdMs: number, onHoldOver: () => void): void {
    if (this.#deadline !== undefined) {
      clearTimeout(this.#deadline);
      this.#deadline = undefined;
      this.#remainingMs = Math.max(
        1,
        this.#remainingMs - (performance.now() - this.#countingSince),
      );
    }
    this.#hold = setTimeout(onHoldOver, holdMs);
  }

  /** Ends the hold; {@link run} counts on. */
  unhold(): void {
    clearTimeout(this.#hold);
    this.#hold = undefined;
  }

  /** Clears both timers: the run is over. */
  stop(): void {
    clearTimeout(this.#deadline);
    clearTimeout(this.#hold);
  }
}
