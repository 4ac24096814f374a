import assert from "node:assert/strict";
import type { CordonError } from "../../../src/errors.ts";
import { Gate } from "../../../src/service/requests/gate.ts";

/** Enters, notes the turn, and gives the slot straight back. */
function passThrough(gate: Gate, namespace: string, name: string, order: string[]) {
  return gate.enter(namespace).then((leave) => {
    order.push(name);
    leave();
  });
}

Deno.test("Gate hands freed slots round-robin over namespaces, not first come first served", async () => {
  const gate = new Gate(1, 8);
  const holder = await gate.enter("a");
  const order: string[] = [];
  const waits = [
    passThrough(gate, "a", "a1", order),
    passThrough(gate, "a", "a2", order),
    passThrough(gate, "a", "a3", order),
    passThrough(gate, "b", "b1", order),
  ];
  holder();
  await Promise.all(waits);
  assert.deepEqual(order, ["a1", "b1", "a2", "a3"], "b's one request waits one turn, not three");
});

Deno.test("Gate lets one namespace fill at most half the queue; another still gets in line", async () => {
  const gate = new Gate(1, 4);
  const holder = await gate.enter("a");
  const order: string[] = [];
  const queued = [passThrough(gate, "a", "a1", order), passThrough(gate, "a", "a2", order)];
  await assert.rejects(gate.enter("a"), (err: CordonError) => err.code === "too_many_requests");
  const b = passThrough(gate, "b", "b1", order);
  assert.equal(gate.load.queued, 3);
  holder();
  await Promise.all([...queued, b]);
  assert.deepEqual(order, ["a1", "b1", "a2"]);
  assert.equal(gate.load.running, 0);
});
