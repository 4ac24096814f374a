/**
 * Spawns one after another, a few per turn of the event loop. A spawn is synchronous in Deno:
 * 0.3 ms on a quiet host, 1–5 ms while fifty children boot on two cores. Fifty runs arriving at
 * once reach their spawns together, and spawning them all in one turn held the host's timers
 * (other runs' deadlines) for as long as all of them took.
 *
 * @module
 */
import { afterTurn, nextTurn } from "../loop.ts";

/** Spawn time one turn of the event loop may take before the next spawn waits for a turn. */
export const SPAWN_TURN_MS = 2;

let tail: Promise<unknown> = Promise.resolve();
let spentThisTurn = 0;
let resetPending = false;

/** Runs `spawn` after every spawn queued before it, in a turn with time left for it. */
export function inSpawnLane<T>(spawn: () => T): Promise<T> {
  const turn = tail.then(async () => {
    while (spentThisTurn >= SPAWN_TURN_MS) await nextTurn();
    const start = performance.now();
    try {
      return spawn();
    } finally {
      spentThisTurn += performance.now() - start;
      if (!resetPending) {
        resetPending = true;
        afterTurn(() => {
          resetPending = false;
          spentThisTurn = 0;
        });
      }
    }
  });
  tail = turn.catch(() => {});
  return turn;
}
