import assert from "node:assert/strict";
import { z } from "zod";
import {
  type CallRecord,
  CordonError,
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type PausedResult,
  type Runtime,
} from "../../../mod.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";
import { durableJson } from "../../../src/engine/execution/durable_value.ts";

/** A connector whose side effects are counted, so a test can prove none ran twice. */
function makeWorld() {
  const effects = { send: 0, charge: 0, flaky: 0, read: 0, reverted: [] as string[] };
  const mail = defineConnector({
    name: "mail",
    description: "Mail",
    tools: {
      send: {
        description: "Send a mail (needs approval)",
        input: z.object({ to: z.string() }),
        output: z.string(),
        requiresApproval: true,
        execute: ({ to }) => {
          effects.send++;
          return `sent:${to}`;
        },
        revert: ({ to }) => void effects.reverted.push(`unsend:${to}`),
      },
      charge: {
        description: "Charge a card",
        input: z.object({ cents: z.number().int() }),
        execute: ({ cents }) => {
          effects.charge++;
          return { charged: cents, n: effects.charge };
        },
        revert: ({ cents }) => void effects.reverted.push(`refund:${cents}`),
      },
      flaky: {
        description: "Fails twice, then works",
        input: z.object({}),
        execute: () => {
          effects.flaky++;
          if (effects.flaky <= 2) throw new Error(`try ${effects.flaky} failed`);
          return "ok";
        },
      },
      read: {
        description: "Fresh data each pass",
        input: z.object({}),
        readOnly: true,
        replay: "reexecute",
        execute: () => ++effects.read,
      },
      big: {
        description: "Returns a large value",
        input: z.object({ bytes: z.number() }),
        execute: ({ bytes }) => "x".repeat(bytes),
      },
      pick: {
        description: "A person picks one option (client-resolved)",
        input: z.object({ options: z.array(z.string()) }),
        output: z.object({ choice: z.string() }),
      },
    },
  });
  return { connectors: [mail], effects };
}

type Mode = "live" | "replay";

/** Runs `fn` with a runtime whose paused children are held (live) or released at once (replay). */
async function withRuntime(
  mode: Mode,
  fn: (rt: Runtime, effects: ReturnType<typeof makeWorld>["effects"]) => Promise<void>,
) {
  const { connectors, effects } = makeWorld();
  {
    await using rt = await createRuntime({
      connectors,
      db: ":memory:",
      pool: { size: 1 },
      durability: { holdMs: mode === "live" ? 60_000 : 1 },
    });
    await fn(rt, effects);
  }
  await assertNoSandboxChildren();
}

function paused(r: ExecuteResult): PausedResult {
  assert.equal(r.status, "paused", Deno.inspect(r).slice(0, 500));
  return r as PausedResult;
}

function completed(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 500));
  return (r as { result: unknown }).result;
}

/** Waits for a replay-mode pause to release its child (so approve must replay). */
async function released(rt: Runtime, id: string) {
  for (let i = 0; i < 100; i++) {
    const d = await rt.execution(id);
    if (d?.status === "paused") {
      await new Promise((r) => setTimeout(r, 20));
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

const shape = (calls: CallRecord[]) => calls.map((c) => [c.seq, c.tool, c.state]);

const SCRIPT = `
  const first = await mail.charge({ cents: 100 });
  const [sent, fresh] = await Promise.all([mail.send({ to: "a@x" }), mail.read({})]);
  let retries = 0, flaky;
  while (true) { try { flaky = await mail.flaky({}); break } catch { retries++ } }
  return { first, sent, fresh: typeof fresh, retries, flaky };
`;

for (const mode of ["live", "replay"] as const) {
  Deno.test(`approve() (${mode}) continues the run and never repeats a side effect`, async () => {
    await withRuntime(mode, async (rt, effects) => {
      const p = paused(await rt.execute({ code: SCRIPT }));
      assert.deepEqual(p.pending.map((x) => [x.tool, x.needs, x.args]), [["send", "approval", {
        to: "a@x",
      }]]);
      assert.deepEqual((await rt.pending()).map((x) => x.executionId), [p.executionId]);
      assert.deepEqual(
        (await rt.pendingExecutions()).map((x) => [x.resolution, x.clientConnected]),
        [["approval", false]],
      );
      const first = rt.watchExecution(p.executionId);
      const second = rt.watchExecution(p.executionId);
      assert.equal((await rt.pending())[0].clientConnected, true);
      first();
      first(); // a second call does not release the other watch
      assert.equal((await rt.pending())[0].clientConnected, true);
      second();
      assert.equal((await rt.pending())[0].clientConnected, false);
      assert.equal(effects.send, 0);
      if (mode === "replay") await released(rt, p.executionId);
      const done = await rt.approve(p.executionId);
      assert.deepEqual(completed(done), {
        first: { charged: 100, n: 1 },
        sent: "sent:a@x",
        fresh: "number",
        retries: 2,
        flaky: "ok",
      });
      assert.equal(done.meta.replayed, mode === "replay");
      // `read` runs again on replay ("reexecute"), but only if it reached the host before the
      // pause: Promise.all sends both calls at once, and a call that arrives after the pause is
      // held back until the decision.
      const readBeforePause = p.calls.some((c) => c.tool === "read");
      const reads = mode === "replay" && readBeforePause ? 2 : 1;
      assert.deepEqual(effects, { send: 1, charge: 1, flaky: 3, read: reads, reverted: [] });
      const stored = await rt.execution(p.executionId);
      assert.equal(stored?.status, "completed");
      assert.deepEqual(shape(stored!.calls), [
        [1, "charge", "applied"],
        [2, "send", "applied"],
        [3, "read", "applied"],
        [4, "flaky", "error"],
        [5, "flaky", "error"],
        [6, "flaky", "applied"],
      ]);
      assert.deepEqual(await rt.pending(), []);
    });
  });

  Deno.test(`reject() (${mode}) fails the waiting call; a script may catch it`, async () => {
    await withRuntime(mode, async (rt, effects) => {
      const code = `
        await mail.charge({ cents: 5 });
        try { await mail.send({ to: "b@x" }) } catch (e) { return { caught: e.code, message: e.message } }
        return "not reached"`;
      const p = paused(await rt.execute({ code }));
      if (mode === "replay") await released(rt, p.executionId);
      const done = await rt.reject(p.executionId, { reason: "not today" });
      assert.deepEqual(completed(done), {
        caught: "rejected",
        message: "mail.send: Rejected: not today",
      });
      assert.deepEqual(effects.send, 0);
      assert.deepEqual(effects.charge, 1);
      const uncaught = paused(
        await rt.execute({ code: 'await mail.send({ to: "c@x" }); return 1' }),
      );
      const r = await rt.reject(uncaught.executionId);
      assert.equal(r.status, "rejected");
      assert.equal((await rt.execution(uncaught.executionId))?.status, "rejected");
    });
  });

  Deno.test(`resolve() (${mode}) supplies a client value checked against the output schema`, async () => {
    await withRuntime(mode, async (rt) => {
      const p = paused(
        await rt.execute({
          code:
            'const { choice } = await mail.pick({ options: ["a", "b"] }); return choice.toUpperCase()',
        }),
      );
      assert.equal(p.pending[0].needs, "value");
      assert.equal(p.pending[0].resolution, "client");
      if (mode === "replay") await released(rt, p.executionId);
      await assert.rejects(
        rt.resolve(p.executionId, p.pending[0].seq, { choice: 7 }),
        (e: unknown) => {
          return e instanceof CordonError && e.code === "invalid_output";
        },
      );
      await assert.rejects(
        rt.approve(p.executionId),
        (e: unknown) => e instanceof CordonError && e.code === "invalid_state",
      );
      assert.equal((await rt.execution(p.executionId))?.status, "paused");
      assert.equal(
        completed(await rt.resolve(p.executionId, p.pending[0].seq, { choice: "b" })),
        "B",
      );
    });
  });
}

Deno.test("approve() of gated calls under Promise.all runs each once, whichever pause they join", async () => {
  await withRuntime("live", async (rt, effects) => {
    let r = await rt.execute({
      code: 'return await Promise.all([mail.send({ to: "1" }), mail.send({ to: "2" })])',
    });
    // Both calls leave the child together; those that reach the host before the pause is
    // recorded are listed in it, a later one pauses the run again after the first approval.
    const seen: unknown[] = [];
    // Each approval names the call it approves, so nothing unseen is approved.
    for (let turn = 0; turn < 3 && r.status === "paused"; turn++) {
      const [first] = r.pending;
      if (!seen.includes(first.args)) seen.push(first.args);
      assert.equal(effects.send, turn);
      r = await rt.approve(r.executionId, { seq: first.seq });
    }
    assert.deepEqual(completed(r), ["sent:1", "sent:2"]);
    assert.deepEqual(seen, [{ to: "1" }, { to: "2" }]);
    assert.equal(effects.send, 2);
  });
});

Deno.test("replay fails with replay_divergence when the code's calls change", async () => {
  await withRuntime("replay", async (rt, effects) => {
    // The charge depends on the clock, so a replay makes a different call.
    const code =
      'await mail.charge({ cents: Date.now() % 100000 }); await mail.send({ to: "d" }); return 1';
    const p = paused(await rt.execute({ code }));
    await released(rt, p.executionId);
    await new Promise((r) => setTimeout(r, 5));
    const r = await rt.approve(p.executionId);
    assert.equal(r.status, "error");
    assert.equal((r as { error: { code: string } }).error.code, "replay_divergence");
    assert.equal(effects.charge, 1);
    assert.equal(effects.send, 0);
  });
});

Deno.test("codemode.step() records a non-deterministic value once, so replay matches", async () => {
  await withRuntime("replay", async (rt, effects) => {
    const code = `
      const stamp = await codemode.step("now", () => Date.now() % 100000);
      await mail.charge({ cents: stamp });
      await mail.send({ to: "e" });
      return stamp`;
    const p = paused(await rt.execute({ code }));
    await released(rt, p.executionId);
    await new Promise((r) => setTimeout(r, 5));
    const done = await rt.approve(p.executionId);
    assert.equal(typeof completed(done), "number");
    assert.equal(effects.charge, 1);
    assert.deepEqual(done.calls.map((c) => c.kind), ["step", "tool", "tool"]);
  });
});

Deno.test("approve(), reject() and resolve() refuse unknown ids and wrong states, changing nothing", async () => {
  await withRuntime("live", async (rt) => {
    const code = (e: string) => (err: unknown) => err instanceof CordonError && err.code === e;
    await assert.rejects(rt.approve("exec_nope"), code("execution_not_found"));
    await assert.rejects(rt.reject("exec_nope"), code("execution_not_found"));
    await assert.rejects(rt.resolve("exec_nope", 1, 1), code("execution_not_found"));
    const done = await rt.execute({ code: "return 1" });
    await assert.rejects(rt.approve(done.executionId), code("invalid_state"));
    const p = paused(await rt.execute({ code: 'await mail.send({ to: "f" })' }));
    await assert.rejects(rt.resolve(p.executionId, p.pending[0].seq, "x"), code("invalid_state"));
    await assert.rejects(rt.approve(p.executionId, { seq: 99 }), code("invalid_state"));
    assert.equal((await rt.execution(p.executionId))?.status, "paused");
    await rt.reject(p.executionId);
    await assert.rejects(rt.approve(p.executionId), code("invalid_state"));
    await assert.rejects(rt.reject(p.executionId), code("invalid_state"));
  });
});

Deno.test("approve() and reject() racing resolve to exactly one", async () => {
  await withRuntime("live", async (rt, effects) => {
    const p = paused(
      await rt.execute({
        code: 'try { return await mail.send({ to: "g" }) } catch (e) { return e.code }',
      }),
    );
    const outcomes = await Promise.allSettled([
      rt.approve(p.executionId),
      rt.reject(p.executionId),
    ]);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    assert.equal(won.length, 1, Deno.inspect(outcomes));
    const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    assert.equal((lost.reason as CordonError).code, "invalid_state");
    const result = completed((won[0] as PromiseFulfilledResult<ExecuteResult>).value);
    assert.ok(
      result === "sent:g" ? effects.send === 1 : result === "rejected" && effects.send === 0,
    );
  });
});

Deno.test("a value over maxDurableValueBytes fails the call with value_too_large", async () => {
  const { connectors } = makeWorld();
  await using rt = await createRuntime({
    connectors,
    db: ":memory:",
    durability: { maxDurableValueBytes: 1000 },
  });
  const r = await rt.execute({
    code: `
      const out = [];
      try { await mail.big({ bytes: 5000 }) } catch (e) { out.push(e.code, /reference/.test(e.message)) }
      try { await mail.charge({ cents: 1, pad: "y".repeat(5000) }) } catch (e) { out.push(e.code) }
      return out`,
  });
  assert.deepEqual(completed(r), ["value_too_large", true, "value_too_large"]);
});

Deno.test("rollback() reverts applied calls newest first and records it", async () => {
  await withRuntime("live", async (rt, effects) => {
    const p = paused(
      await rt.execute({
        code:
          'await mail.charge({ cents: 1 }); await mail.charge({ cents: 2 }); await mail.send({ to: "h" }); await mail.flaky({}).catch(() => 0)',
      }),
    );
    await rt.approve(p.executionId);
    const report = await rt.rollback(p.executionId);
    assert.deepEqual(report.reverted, [3, 2, 1]);
    assert.deepEqual(effects.reverted, ["unsend:h", "refund:2", "refund:1"]);
    const d = await rt.execution(p.executionId);
    assert.equal(d?.status, "rolled_back");
    assert.deepEqual(d!.calls.map((c) => c.state), ["reverted", "reverted", "reverted", "error"]);
    await assert.rejects(
      rt.rollback(p.executionId),
      (e: unknown) => e instanceof CordonError && e.code === "invalid_state",
    );
  });
});

Deno.test("expirePaused() rejects stale paused runs and their calls", async () => {
  await withRuntime("live", async (rt, effects) => {
    const p = paused(await rt.execute({ code: 'await mail.send({ to: "i" })' }));
    assert.deepEqual(await rt.expirePaused({ maxAgeMs: 60_000 }), []);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await rt.expirePaused({ maxAgeMs: 10 }), [p.executionId]);
    const d = await rt.execution(p.executionId);
    assert.equal(d?.status, "rejected");
    assert.equal(d?.error?.code, "expired");
    assert.deepEqual(await rt.pending(), []);
    assert.equal(effects.send, 0);
  });
});

Deno.test("executions() pages newest first; deleteExecution() and pruneExecutions() remove ended runs", async () => {
  await withRuntime("live", async (rt) => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await rt.execute({ code: `return ${i}` })).executionId);
    const failed = await rt.execute({ code: "throw new Error('x')" });
    const first = await rt.executions({ limit: 4 });
    assert.equal(first.items.length, 4);
    assert.equal(first.items[0].executionId, failed.executionId);
    const rest = await rt.executions({ limit: 4, cursor: first.nextCursor });
    assert.deepEqual(rest.items.map((i) => i.executionId), [ids[1], ids[0]]);
    assert.equal(rest.nextCursor, undefined);
    assert.deepEqual((await rt.executions({ status: "error" })).items.map((i) => i.executionId), [
      failed.executionId,
    ]);
    await assert.rejects(
      rt.executions({ cursor: "garbage" }),
      (e: unknown) => e instanceof CordonError && e.code === "invalid_request",
    );
    assert.equal(await rt.deleteExecution(ids[0]), true);
    assert.equal(await rt.execution(ids[0]), undefined);
    assert.equal(await rt.pruneExecutions({ keep: 2 }), 3);
    assert.equal((await rt.executions()).items.length, 2);
  });
});

Deno.test("durableJson() counts UTF-8 bytes: text under the limit in characters but over it in bytes is refused", () => {
  // 600 "é" are 600 characters of JSON text but 1,200 bytes, over a 1,000-byte limit.
  assert.throws(
    () => durableJson("é".repeat(600), 1_000, "The value"),
    (err: Error & { code?: string; details?: { bytes?: number } }) =>
      err.code === "value_too_large" && err.details?.bytes === 1_202,
  );
  assert.equal(durableJson("é".repeat(300), 1_000, "The value"), JSON.stringify("é".repeat(300)));
  assert.equal(durableJson("e".repeat(998), 1_000, "The value").length, 1_000);
  assert.throws(() => durableJson("e".repeat(999), 1_000, "The value"), /1001 bytes/);
});
