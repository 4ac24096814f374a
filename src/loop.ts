/**
 * Giving the host's event loop a turn. Long work is cut into pieces with a
 * turn between them, so timers (other runs' deadlines) and I/O (other runs'
 * calls) are not held up. A turn is `setImmediate`, not `setTimeout(…, 0)`:
 * both let timers and I/O run first, but a zero timeout waits for the timer
 * clock (measured here: about 2 ms a turn, against 12–45 µs), and a thousand
 * calls cut into thirty pieces waited 60 ms for nothing.
 *
 * `setImmediate` is looked up on first use: in a process that has not loaded
 * Deno's Node compatibility (a sandbox child), touching it costs 10 ms.
 *
 * @module
 */

type Immediate = (fn: () => void) => unknown;

let immediate: Immediate | undefined;
let cancelImmediate: ((handle: unknown) => void) | undefined;

function schedule(fn: () => void): unknown {
  if (!immediate) {
    const g = globalThis as {
      setImmediate?: Immediate;
      clearImmediate?: (handle: unknown) => void;
    };
    // A runtime without it falls back to a zero timeout.
    immediate = g.setImmediate ?? ((f) => setTimeout(f, 0));
    cancelImmediate = g.clearImmediate ?? ((h) => clearTimeout(h as number));
  }
  return immediate(fn);
}

/**
 * Resolves after the event loop has had a turn (timers and I/O ran).
 *
 * @example
 * ```ts
 * import { nextTurn } from "./loop.ts";
 * let fired = false;
 * setTimeout(() => (fired = true), 0);
 * while (!fired) await nextTurn();
 * ```
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => schedule(resolve));
}

/** Runs `fn` after the event loop's next turn; the returned function cancels it. */
export function afterTurn(fn: () => void): () => void {
  const handle = schedule(fn);
  return () => cancelImmediate!(handle);
}

/** When the current turn's first check ran; undefined once the loop has turned since. */
let turnStartedAt: number | undefined;

/**
 * Keeps one turn of the event loop short when many operations start at once
 * (fifty executions arriving together, each with its own transpile, store
 * write and spawn): undefined while this turn has run under `budgetMs`, else
 * a promise that resolves after the next turn. Await it at the start of each
 * step; quiet traffic never waits.
 *
 * @example
 * ```ts
 * import { keepTurnShort } from "./loop.ts";
 * for (let i = 0; i < 3; i++) await keepTurnShort();
 * ```
 */
export function keepTurnShort(budgetMs = 4): Promise<void> | undefined {
  const now = performance.now();
  if (turnStartedAt === undefined) {
    turnStartedAt = now;
    schedule(() => (turnStartedAt = undefined));
    return undefined;
  }
  if (now - turnStartedAt < budgetMs) return undefined;
  return nextTurn();
}
