import assert from "node:assert/strict";
import { inSpawnLane, SPAWN_TURN_MS } from "../../src/sandbox/spawn_lane.ts";
import { nextTurn } from "../../src/loop.ts";

/** Counts the event loop's turns while `body` runs. */
async function countingTurns<T>(body: (turn: () => number) => Promise<T>): Promise<T> {
  let turns = 0;
  let on = true;
  (async () => {
    while (on) {
      await nextTurn();
      turns++;
    }
  })();
  try {
    return await body(() => turns);
  } finally {
    on = false;
  }
}

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* a spawn holding the thread */ }
}

Deno.test("slow spawns queued together run in order, one turn of the event loop each", async () => {
  await countingTurns(async (turn) => {
    const seen: { i: number; turn: number }[] = [];
    await Promise.all(Array.from({ length: 5 }, (_, i) =>
      inSpawnLane(() => {
        busy(SPAWN_TURN_MS + 1);
        seen.push({ i, turn: turn() });
        return i;
      })));
    assert.deepEqual(seen.map((s) => s.i), [0, 1, 2, 3, 4]);
    const turns = seen.map((s) => s.turn);
    assert.equal(new Set(turns).size, 5, `spawns ran in turns ${turns}`);
  });
});

Deno.test("quick spawns share a turn; a failed spawn fails alone and the lane goes on", async () => {
  await countingTurns(async (turn) => {
    const turns: number[] = [];
    const results = await Promise.allSettled([
      inSpawnLane(() => turns.push(turn())),
      inSpawnLane(() => {
        throw new Deno.errors.NotFound("no such program");
      }),
      inSpawnLane(() => turns.push(turn())),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.equal(new Set(turns).size, 1, `quick spawns ran in turns ${turns}`);
  });
});
