import assert from "node:assert/strict";
import { Deadlines } from "../../src/connectors/deadlines.ts";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import { defineConnector } from "../../src/connectors/define.ts";
import { z } from "zod";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("Deadlines fires each live entry once, in order, and never a cancelled one", async () => {
  const deadlines = new Deadlines();
  const fired: number[] = [];
  const cancels = Array.from({ length: 6 }, (_, i) => deadlines.add(20, () => fired.push(i)));
  cancels[1]();
  cancels[4]();
  cancels[4](); // idempotent
  const other = deadlines.add(5, () => fired.push(99));
  await sleep(60);
  assert.deepEqual(fired, [99, 0, 2, 3, 5]);
  other(); // after it fired: nothing happens
  assert.deepEqual(fired, [99, 0, 2, 3, 5]);
});

Deno.test("Deadlines leaves no timer that keeps anything alive once every entry is cancelled (the test sanitizer checks)", () => {
  const deadlines = new Deadlines();
  const cancels = Array.from({ length: 3000 }, () => deadlines.add(60_000, () => {}));
  for (const cancel of cancels) cancel();
});

Deno.test("Deadlines: a process whose entries are all cancelled exits at once, not at the timer", async () => {
  const url = new URL("../../src/connectors/deadlines.ts", import.meta.url).href;
  const code = `const { Deadlines } = await import(${JSON.stringify(url)});
    const d = new Deadlines();
    for (let i = 0; i < 3; i++) d.add(60_000, () => {})();`;
  const t = performance.now();
  const out = await new Deno.Command(Deno.execPath(), { args: ["eval", code], stderr: "piped" })
    .output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.ok(performance.now() - t < 30_000, "the process waited for the deadline's timer");
});

Deno.test("Deadlines: an entry added after the others ended fires at its own deadline, not before", async () => {
  const deadlines = new Deadlines();
  // The timer armed for the first entry stays armed when it is cancelled.
  deadlines.add(40, () => {
    throw new Error("a cancelled entry fired");
  })();
  await sleep(15);
  const added = performance.now();
  let firedAfter = -1;
  deadlines.add(40, () => firedAfter = performance.now() - added);
  await sleep(100);
  assert.ok(firedAfter >= 39, `fired ${firedAfter} ms after it was added`);
});

Deno.test("Deadlines keeps only live entries under a steady stream of calls", async () => {
  const deadlines = new Deadlines();
  let fired = 0;
  let live = deadlines.add(30, () => fired++);
  for (let i = 0; i < 5000; i++) {
    const next = deadlines.add(30, () => fired++);
    live();
    live = next;
  }
  await sleep(60);
  assert.equal(fired, 1);
});

const slow = defineConnector({
  name: "slow",
  description: "Slow tools",
  timeoutMs: 40,
  tools: {
    wait: {
      description: "Waits, watching its signal",
      input: z.object({ ms: z.number() }),
      execute: ({ ms }, ctx) =>
        new Promise((resolve, reject) => {
          const t = setTimeout(() => resolve("done"), ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
        }),
    },
    quick: {
      description: "Answers at once",
      input: z.object({}),
      execute: () => "ok",
    },
  },
});

Deno.test("a tool call past its time limit fails tool_timeout and its signal aborts", async () => {
  const registry = new ConnectorRegistry([slow]);
  const t = performance.now();
  const out = await registry.call("slow", "wait", { ms: 5_000 }, { executionId: "e" });
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.error.code, "tool_timeout");
  assert.ok(performance.now() - t < 2_000);
  const ok = await registry.call("slow", "wait", { ms: 1 }, { executionId: "e" });
  assert.deepEqual(ok, { ok: true, value: "done" });
});

Deno.test("a tool's signal follows the execution's, made only when the tool asks for it", async () => {
  const registry = new ConnectorRegistry([slow]);
  const outer = new AbortController();
  const pending = registry.call("slow", "wait", { ms: 30 }, {
    executionId: "e",
    signal: outer.signal,
  });
  outer.abort(new Error("the run ended"));
  const out = await pending;
  assert.equal(out.ok, false);
  // A thousand quick calls with a live execution signal leave no listener behind on it.
  const execution = new AbortController();
  let added = 0;
  const add = execution.signal.addEventListener.bind(execution.signal);
  execution.signal.addEventListener = ((...a: Parameters<typeof add>) => {
    added++;
    return add(...a);
  }) as typeof add;
  const outs = await Promise.all(
    Array.from(
      { length: 1000 },
      () => registry.call("slow", "quick", {}, { executionId: "e", signal: execution.signal }),
    ),
  );
  assert.ok(outs.every((o) => o.ok));
  // The calls that waited for a permit share one listener on it.
  assert.ok(added <= 1, `${added} listeners`);
});
