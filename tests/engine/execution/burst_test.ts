/**
 * A burst of tool calls or console lines never holds the host's event loop:
 * the calls are dispatched in slices with a turn between, and every call is
 * still journaled, executed once, answered, and logged in order.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult } from "../../../mod.ts";
import { SLICE_MAX_REQUESTS } from "../../../src/rpc/peer.ts";
import { STALL_BOUND_MS, withLag } from "../../_helpers/lag.ts";

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return r.status === "completed" ? r.result : undefined;
}

const BURST = 1000;

Deno.test("a burst of 1,000 calls gives the host turns while it runs, and each is journaled and applied", async () => {
  let executed = 0;
  let turnTaken = false;
  let executedBeforeTurn = -1;
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.number(),
        execute: ({ a, b }) => {
          // The first call of the burst sets a timer; it runs at the host's next turn.
          if (executed++ === 0) {
            setTimeout(() => {
              turnTaken = true;
              executedBeforeTurn = executed;
            }, 0);
          }
          return a + b;
        },
      },
    },
  });
  await using rt = await createRuntime({
    connectors: [math],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
  });
  const { value: r, lagMs } = await withLag(() =>
    rt.execute({
      code: `const sums = await Promise.all(
  Array.from({ length: ${BURST} }, (_, i) => math.add({ a: i, b: 1 })),
);
return sums.reduce((s, x) => s + x, 0);`,
    })
  );
  assert.equal(ok(r), (BURST * (BURST + 1)) / 2);
  assert.equal(executed, BURST);
  assert.ok(lagMs < STALL_BOUND_MS, `the host stalled ${lagMs} ms`);
  assert.ok(turnTaken);
  // The slice that ran the first call, and at most the next one, ran before the host's turn.
  assert.ok(
    executedBeforeTurn <= 2 * SLICE_MAX_REQUESTS + 4,
    `${executedBeforeTurn} calls ran before the host got a turn`,
  );
  const details = await rt.execution(r.executionId);
  assert.equal(details?.calls.length, BURST);
  assert.deepEqual(details.calls.map((c) => c.seq), Array.from({ length: BURST }, (_, i) => i + 1));
  assert.ok(details.calls.every((c) => c.state === "applied" && c.tool === "add"));
  // Each entry holds the result of its own arguments.
  assert.ok(details.calls.every((c) => {
    const args = c.args as { a: number; b: number };
    return c.result === args.a + args.b;
  }));
  assert.deepEqual(
    details.calls.map((c) => (c.args as { a: number }).a).sort((x, y) => x - y),
    Array.from({ length: BURST }, (_, i) => i),
  );
});

Deno.test("a burst's first calls reach the host and run while the script is still making more", async () => {
  let firstRanAt: number | undefined;
  let ran = 0;
  const probe = defineConnector({
    name: "probe",
    description: "Notes when it runs",
    tools: {
      hit: {
        description: "Note a call",
        input: z.object({ i: z.number() }),
        execute: ({ i }) => {
          firstRanAt ??= Date.now();
          ran++;
          return i;
        },
      },
    },
  });
  await using rt = await createRuntime({
    connectors: [probe],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
  });
  // 400 calls are about 40 KB of frames: the child writes them as they pile up, not when the
  // script first waits, which here is 400 ms later.
  const r = await rt.execute({
    code: `const calls = [];
for (let i = 0; i < 400; i++) calls.push(probe.hit({ i }));
const until = Date.now() + 400;
while (Date.now() < until) {}
const madeAt = Date.now();
const got = await Promise.all(calls);
return { madeAt, sum: got.reduce((s, x) => s + x, 0) };`,
  });
  const { madeAt, sum } = ok(r) as { madeAt: number; sum: number };
  assert.equal(sum, (399 * 400) / 2);
  assert.equal(ran, 400);
  assert.ok(firstRanAt! < madeAt, `the first call ran ${firstRanAt! - madeAt} ms after the burst`);
});

Deno.test("a flood of 20,000 console lines is kept whole and in order, the host never held for long", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 1 }, typecheck: "off" });
  const lines = 20_000;
  const { value: r, lagMs } = await withLag(() =>
    rt.execute({ code: `for (let i = 0; i < ${lines}; i++) console.log("line " + i); return 1` })
  );
  assert.equal(ok(r), 1);
  assert.ok(lagMs < STALL_BOUND_MS, `the host stalled ${lagMs} ms`);
  const details = await rt.execution(r.executionId);
  assert.ok(details?.logRef);
  const stored: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await rt.readLogs({ logRef: details.logRef, cursor, limit: 500 });
    stored.push(...page.items.map((l) => l.message));
    cursor = page.nextCursor;
  } while (cursor);
  assert.equal(stored.length, lines);
  assert.ok(stored.every((m, i) => m === `line ${i}`));
});

Deno.test("a session's next execution gets none of the lines its last one flooded before answering", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 1 }, typecheck: "off" });
  const lines = 5_000;
  const first = await rt.execute({
    session: true,
    code: `for (let i = 0; i < ${lines}; i++) console.log("before " + i);
return 1`,
  });
  assert.equal(ok(first), 1);
  const sessionId = first.meta.sessionId!;
  const second = await rt.execute({ sessionId, code: "return 2" });
  assert.equal(ok(second), 2);
  assert.equal(second.meta.sessionStatus, "reused");
  const read = async (executionId: string) => {
    const details = await rt.execution(executionId);
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rt.readLogs({ logRef: details!.logRef!, cursor, limit: 500 });
      out.push(...page.items.map((l) => l.message));
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  };
  const firstLines = await read(first.executionId);
  assert.equal(firstLines.length, lines);
  assert.ok(firstLines.every((m, i) => m === `before ${i}`));
  assert.deepEqual(await read(second.executionId), []);
  await rt.closeSession(sessionId);
});
