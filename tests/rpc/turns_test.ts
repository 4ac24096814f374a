/**
 * A busy slice of frames ends at the event loop's next turn: by default a zero timeout (what a
 * child uses: it costs nothing to load there), or the turn the owner passes (the host's
 * `afterTurn`, microseconds a turn).
 */
import assert from "node:assert/strict";
import { afterTurn, keepTurnShort, nextTurn } from "../../src/loop.ts";
import { Peer } from "../../src/rpc/peer.ts";

Deno.test("nextTurn lets a timer run, and afterTurn's cancel stops its function", async () => {
  let fired = false;
  setTimeout(() => (fired = true), 0);
  for (let i = 0; i < 1000 && !fired; i++) await nextTurn();
  assert.ok(fired);
  let ran = false;
  const cancel = afterTurn(() => (ran = true));
  cancel();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(ran, false);
});

async function flood(afterTurnOption?: (fn: () => void) => () => void): Promise<number> {
  let turns = 0;
  const counting = afterTurnOption
    ? (fn: () => void) => {
      turns++;
      return afterTurnOption(fn);
    }
    : undefined;
  const link: { b?: Peer } = {};
  const a = new Peer({ send: (json) => link.b!.receive(JSON.parse(json)) });
  const b = link.b = new Peer({
    send: (json) => a.receive(JSON.parse(json)),
    onRequest: (_m, p) => p,
    ...(counting ? { afterTurn: counting } : {}),
  });
  // A thousand requests arrive at once, as a Promise.all of calls sends them.
  const out = await Promise.all(Array.from({ length: 1000 }, (_, i) => a.request("echo", i)));
  assert.deepEqual(out, Array.from({ length: 1000 }, (_, i) => i));
  assert.ok(b.deferredSlices > 0, "the flood was not cut into slices");
  return turns;
}

Deno.test("a Peer ends busy slices with the turn it is given, or a zero timeout", async () => {
  assert.equal(await flood(), 0);
  assert.ok((await flood(afterTurn)) > 0);
});

Deno.test("keepTurnShort lets work run until a turn has lasted its budget, then waits for a turn", async () => {
  await nextTurn();
  assert.equal(keepTurnShort(5), undefined, "the first check of a turn waits");
  const start = performance.now();
  while (performance.now() - start < 2) { /* under the budget */ }
  assert.equal(keepTurnShort(5), undefined, "2 ms into a 5 ms budget it waited");
  while (performance.now() - start < 6) { /* over the budget */ }
  let timerRan = false;
  setTimeout(() => (timerRan = true), 0);
  const wait = keepTurnShort(5);
  assert.ok(wait instanceof Promise, "over the budget it did not wait");
  for (let i = 0; i < 1000 && !timerRan; i++) await (keepTurnShort(5) ?? nextTurn());
  assert.ok(timerRan, "the loop never turned");
  await wait;
});
