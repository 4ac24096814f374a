import assert from "node:assert/strict";
import { z } from "zod";
import { defineConnector } from "../../src/connectors/define.ts";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import { Semaphore } from "../../src/connectors/semaphore.ts";

/** Lets the microtask queue drain, so granted waiters run their continuations. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("Semaphore.acquire() hands permits round-robin over waiting namespaces", async () => {
  const sem = new Semaphore(1);
  const first = await sem.acquire(undefined, "a");
  const order: string[] = [];
  // Each waiter gives its permit back as soon as it has it, so grants follow the turn order.
  const take = (ns: string, label: string) =>
    sem.acquire(undefined, ns).then((release) => {
      order.push(label);
      release();
    });
  const waiting = [
    take("a", "a1"),
    take("a", "a2"),
    take("a", "a3"),
    take("b", "b1"),
    take("c", "c1"),
  ];
  assert.equal(sem.waiting, 5);
  first();
  await Promise.all(waiting);
  assert.deepEqual(order, ["a1", "b1", "c1", "a2", "a3"]);
  assert.equal(sem.waiting, 0);
  assert.equal(sem.available, 1);
});

Deno.test("Semaphore.acquire() drops an aborted waiter from its namespace's turn", async () => {
  const sem = new Semaphore(1);
  const held = await sem.acquire(undefined, "a");
  const abort = new AbortController();
  const gone = sem.acquire(abort.signal, "b");
  const next = sem.acquire(undefined, "c");
  abort.abort(new Error("stop"));
  await assert.rejects(gone, /stop/);
  assert.equal(sem.waiting, 1);
  held();
  (await next)();
  assert.equal(sem.available, 1);
});

Deno.test("ConnectorRegistry.call() starts another namespace's call within two grants of a 200-call fan-out", async () => {
  const started: string[] = [];
  const gates: (() => void)[] = [];
  const slow = defineConnector({
    name: "slow",
    description: "A slow backend",
    concurrency: 2,
    tools: {
      work: {
        description: "Works until the test lets it finish",
        input: z.object({ tag: z.string() }),
        execute: async ({ tag }) => {
          started.push(tag);
          await new Promise<void>((resolve) => gates.push(resolve));
          return tag;
        },
      },
    },
  });
  const reg = new ConnectorRegistry([slow]);
  const fanOut = Array.from(
    { length: 200 },
    (_, i) => reg.call("slow", "work", { tag: `a${i}` }, { executionId: "exec_a", namespace: "a" }),
  );
  await settle();
  assert.equal(started.length, 2, "two permits, two running");
  const single = reg.call("slow", "work", { tag: "b" }, { executionId: "exec_b", namespace: "b" });
  await settle();
  // Finish calls one at a time, as a slow backend would, until b has started.
  let grants = 0;
  while (!started.includes("b")) {
    gates.shift()!();
    grants++;
    await settle();
    assert.ok(grants <= 2, `b waited ${grants} grants; started: ${started.slice(0, 8).join(",")}`);
  }
  assert.ok(started.indexOf("b") <= 3, `b started ${started.indexOf("b")}th`);
  // Let everything finish so nothing leaks.
  while (gates.length > 0 || started.length < 201) {
    gates.shift()?.();
    await settle();
  }
  assert.equal((await single).ok, true);
  assert.equal((await Promise.all(fanOut)).every((o) => o.ok), true);
});
