/**
 * Measuring how long the host's event loop went without a turn while some
 * work ran: the trust rule is that nothing a script or request supplies
 * blocks it for long. Tests assert a generous bound (old code stalled for
 * seconds), never a tight one.
 *
 * @module
 */

/** How often the probe asks for a turn. */
const PROBE_MS = 5;

/** The generous bound tests hold stalls to: the attacks they replay stalled for seconds. */
export const STALL_BOUND_MS = 1000;

/**
 * Runs `work` and answers with its value and the longest gap between two
 * turns of the event loop meanwhile. The probe runs before the work starts
 * and until a turn after it ends, so a block at either edge is counted.
 */
export async function withLag<T>(work: () => T | Promise<T>): Promise<{ value: T; lagMs: number }> {
  let lagMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lagMs = Math.max(lagMs, now - last);
    last = now;
  }, PROBE_MS);
  try {
    await new Promise((r) => setTimeout(r, 2 * PROBE_MS));
    const value = await work();
    // One more turn, so a block that ended with the work is seen by the probe.
    await new Promise((r) => setTimeout(r, 2 * PROBE_MS));
    return { value, lagMs };
  } finally {
    clearInterval(timer);
  }
}
