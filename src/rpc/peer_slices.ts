/**
 * The bounds of one slice of incoming frames, and the cheap test that
 * counts requests in it. A `Peer` (`peer.ts`) handles a burst of frames that
 * arrives at once (a thousand calls under `Promise.all`, twenty thousand
 * console lines) in slices: once a slice has spent {@link SLICE_BUDGET_MS}
 * or dispatched {@link SLICE_MAX_REQUESTS} requests, later frames wait in
 * order for the next macrotask.
 *
 * @module
 */

/**
 * The time one slice may spend handling frames before the rest wait for the
 * next macrotask. The trust rule allows 50 ms of stall; a few ms per slice
 * leaves room for the microtasks its requests run afterwards.
 */
export const SLICE_BUDGET_MS = 4;

/**
 * The requests one slice dispatches. A request's handler goes on in
 * microtasks after the slice (journal write, tool, response) where the
 * budget cannot see it; about 0.1 ms each on the per-call path, so 32 stay
 * within a few ms.
 */
export const SLICE_MAX_REQUESTS = 64;

/**
 * Frames handled before a slice arms its end timer. Below this a slice has
 * no timer (so quiet traffic costs no timer per frame) and may be stale,
 * begun in an earlier macrotask; it restarts at this point, so a burst is
 * undercounted by at most this many frames.
 */
export const SLICE_ARM_AT = 4;

/** One slice's counts since it started. */
export interface Slice {
  startedAt: number;
  requests: number;
  frames: number;
  armed: boolean;
}

/** A frame that asks for an answer (an id and a method); the cheap test before classifying. */
export function isRequest(raw: unknown): boolean {
  return raw !== null && typeof raw === "object" && "method" in raw && "id" in raw;
}
