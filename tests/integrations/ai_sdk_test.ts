/**
 * `codeTool()` in real AI SDK loops: `generateText`/`streamText` with a scripted
 * `MockLanguageModelV4`, a real runtime (libSQL in memory, real Deno children) and a
 * connector with a tool that needs approval and one that does not.
 */
import assert from "node:assert/strict";
import { generateText, isStepCount, type ModelMessage } from "ai";
import type { z } from "zod";
import {
  codeTool,
  type CodeToolInput,
  type CodeToolOptions,
  type CodeToolOutput,
  CordonError,
  createRuntime,
  type Runtime,
} from "../../mod.ts";
import {
  lastToolOutput,
  makeShop,
  type Order,
  REFUND_CODE,
  refundPolicy,
  runAgent,
  scriptedModel,
} from "../../examples/ai_sdk_agent.ts";

const ORDERS: Order[] = [
  { id: "o1", customer: "ada", totalUsd: 40, late: true },
  { id: "o2", customer: "ada", totalUsd: 90, late: false },
  { id: "o3", customer: "bob", totalUsd: 75, late: true },
  { id: "o4", customer: "cy", totalUsd: 10, late: true },
  { id: "o5", customer: "cy", totalUsd: 20, late: true },
  { id: "o6", customer: "cy", totalUsd: 30, late: true },
];

/** The runtime and shop every step shares (a runtime's type checker costs ~1 s to start and stop). */
interface World {
  runtime: Runtime;
  /** The orders refunded in this step. */
  refunded: string[];
}

const steps: [string, (w: World) => Promise<void>][] = [];
function step(name: string, fn: (w: World) => Promise<void>) {
  steps.push([name, fn]);
}

/** Calls the tool as the AI SDK would, outside a model loop. */
async function call(
  runtime: Runtime,
  input: CodeToolInput,
  options: CodeToolOptions = {},
): Promise<CodeToolOutput> {
  const cordon = await codeTool(runtime, options);
  const out = await cordon.execute!(input, { toolCallId: "t1", messages: [], context: {} });
  return out as CodeToolOutput;
}

step(
  "codeTool() describes itself with the runtime's model description, and the model gets it",
  async (w) => {
    const base = await w.runtime.modelDescription();
    const { model } = await runAgent(w.runtime, {
      customer: "ada",
      tool: { onPause: refundPolicy, instructions: "Never refund twice." },
    });
    const sent = model.doGenerateCalls[0].tools?.find((t) => t.name === "cordon");
    assert.ok(sent && sent.type === "function");
    assert.ok(sent.description?.startsWith(base), "starts with modelDescription()");
    assert.match(sent.description!, /shop \(2\): Orders and refunds/);
    assert.match(sent.description!, /only \{ executionId \}/);
    assert.ok(sent.description!.endsWith("Never refund twice."));
    const schema = sent.inputSchema as { properties: Record<string, unknown> };
    assert.deepEqual(Object.keys(schema.properties).sort(), ["code", "executionId", "input"]);
  },
);

step(
  "codeTool() agent loop: the run pauses, onPause approves, the run completes, the model answers from the result",
  async (w) => {
    const asked: string[] = [];
    const { text, outputs, model } = await runAgent(w.runtime, {
      customer: "ada",
      tool: {
        onPause: (pause) => {
          asked.push(
            ...pause.pending.map((p) => `${p.connector}.${p.tool}#${p.seq}@${pause.round}`),
          );
          return refundPolicy(pause);
        },
      },
    });
    assert.deepEqual(asked, ["shop.refund#2@1"]);
    assert.deepEqual(w.refunded, ["o1"]);
    assert.equal(outputs.length, 1);
    const [out] = outputs;
    assert.equal(out.status, "completed");
    assert.deepEqual(out.result, [{ orderId: "o1", refundedUsd: 40 }]);
    assert.deepEqual(out.console, ["[log] refunded 1 order(s)"]);
    assert.equal(text, "Refunded o1 ($40).");
    // The second model step saw exactly this output as the tool result.
    assert.deepEqual(lastToolOutput(model.doGenerateCalls[1].prompt), out);
    const stored = await w.runtime.execution(out.executionId!);
    assert.equal(stored?.status, "completed");
    assert.deepEqual(stored?.calls.map((c) => [c.tool, c.state]), [
      ["list_orders", "applied"],
      ["refund", "applied"],
    ]);
  },
);

step(
  "codeTool() reject path: onPause rejects with a reason, the model reads a typed error",
  async (w) => {
    const { text, outputs } = await runAgent(w.runtime, {
      customer: "bob",
      tool: { onPause: refundPolicy },
    });
    assert.deepEqual(w.refunded, []);
    const [out] = outputs;
    assert.equal(out.status, "rejected");
    assert.equal(out.error?.code, "rejected");
    assert.match(out.error!.message, /refunds over \$50 need a manager/);
    assert.match(text, /^The refund failed: rejected: .*manager/);
  },
);

step(
  "codeTool() without onPause answers paused; a later call with { executionId } gets the outcome after a person approves",
  async (w) => {
    const cordon = await codeTool(w.runtime);
    const turns = [
      () => ({ code: REFUND_CODE, input: { customer: "ada" } }),
      (last: CodeToolOutput | undefined) => ({ text: `waiting:${last?.executionId}` }),
      (last: CodeToolOutput | undefined) => ({ executionId: last!.executionId! }),
      (last: CodeToolOutput | undefined) => ({ text: `done:${JSON.stringify(last?.result)}` }),
    ];
    const model = scriptedModel(turns);
    const messages: ModelMessage[] = [{ role: "user", content: "Refund ada's late orders." }];
    const first = await generateText({
      model,
      tools: { cordon },
      messages,
      stopWhen: isStepCount(4),
    });
    const paused = first.steps[0].toolResults[0].output as CodeToolOutput;
    assert.equal(paused.status, "paused");
    assert.deepEqual(paused.pending, [{
      seq: 2,
      tool: "shop.refund",
      args: { orderId: "o1", amountUsd: 40 },
      waitsFor: "approval",
    }]);
    assert.match(paused.next!, /only \{ executionId \}/);
    assert.equal(first.text, `waiting:${paused.executionId}`);
    assert.deepEqual(w.refunded, []);

    // A person approves elsewhere (the console, the HTTP API); the run ends there.
    const waiting = (await w.runtime.pending()).find((p) => p.executionId === paused.executionId);
    assert.ok(waiting);
    const approved = await w.runtime.approve(paused.executionId!, { seq: waiting.seq });
    assert.equal(approved.status, "completed");

    messages.push(...first.responseMessages, { role: "user", content: "Approved. Go on." });
    const second = await generateText({
      model,
      tools: { cordon },
      messages,
      stopWhen: isStepCount(4),
    });
    const done = second.steps[0].toolResults[0].output as CodeToolOutput;
    assert.equal(done.status, "completed");
    assert.equal(done.executionId, paused.executionId);
    assert.deepEqual(done.result, [{ orderId: "o1", refundedUsd: 40 }]);
    assert.deepEqual(done.console, ["[log] refunded 1 order(s)"]);
    assert.equal(second.text, 'done:[{"orderId":"o1","refundedUsd":40}]');
    assert.deepEqual(w.refunded, ["o1"]);
  },
);

step(
  "codeTool() { executionId } waits for a decision made while it waits, up to waitMs",
  async (w) => {
    const paused = await call(w.runtime, { code: REFUND_CODE, input: { customer: "ada" } });
    assert.equal(paused.status, "paused");
    const id = paused.executionId!;
    const waited = call(w.runtime, { executionId: id }, { waitMs: 20_000 });
    const started = performance.now();
    const approving = new Promise((r) => setTimeout(r, 150)).then(() => w.runtime.approve(id));
    const done = await waited;
    assert.equal((await approving).status, "completed");
    assert.equal(done.status, "completed");
    assert.ok(performance.now() - started < 10_000, "returned on the decision, not at waitMs");
    // With nothing decided, it answers paused once waitMs is over.
    const again = await call(w.runtime, { code: REFUND_CODE, input: { customer: "bob" } });
    const still = await call(w.runtime, { executionId: again.executionId }, { waitMs: 50 });
    assert.equal(still.status, "paused");
    assert.equal(still.pending?.[0].tool, "shop.refund");
    // An aborted AI SDK call stops the wait at once; the run stays paused.
    const cordon = await codeTool(w.runtime, { waitMs: 20_000 });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const t0 = performance.now();
    const aborted = await cordon.execute!({ executionId: again.executionId }, {
      toolCallId: "t2",
      messages: [],
      context: {},
      abortSignal: abort.signal,
    }) as CodeToolOutput;
    assert.equal(aborted.status, "paused");
    assert.ok(performance.now() - t0 < 5_000, "the abort ended the wait");
  },
);

step(
  "codeTool() onPause may decide some calls; maxRounds bounds the rounds of one tool call",
  async (w) => {
    let rounds = 0;
    const out = await call(w.runtime, { code: REFUND_CODE, input: { customer: "cy" } }, {
      maxRounds: 2,
      onPause: ({ pending }) => (rounds++, pending.map((p) => ({ seq: p.seq, action: "approve" }))),
    });
    assert.equal(rounds, 2);
    assert.deepEqual(w.refunded, ["o4", "o5"]);
    assert.equal(out.status, "paused");
    assert.deepEqual(out.pending?.map((p) => p.args), [{ orderId: "o6", amountUsd: 30 }]);
    // The same tool picks it up by id: onPause is asked again and the run ends.
    const done = await call(w.runtime, { executionId: out.executionId }, {
      waitMs: 0,
      onPause: ({ pending }) => pending.map((p) => ({ seq: p.seq, action: "approve" })),
    });
    assert.equal(done.status, "completed");
    assert.deepEqual(w.refunded, ["o4", "o5", "o6"]);
  },
);

step("codeTool() a decision that cannot apply is a notice, and the run stays paused", async (w) => {
  const out = await call(w.runtime, { code: REFUND_CODE, input: { customer: "ada" } }, {
    onPause: () => [{ seq: 99, action: "approve" }],
  });
  assert.equal(out.status, "paused");
  assert.deepEqual(out.notices, ["call #99: not waiting any more; the decision was not applied"]);
  assert.deepEqual(w.refunded, []);
});

step(
  "codeTool() a script error comes back as a tool result with its code and line, and the loop goes on",
  async (w) => {
    const cordon = await codeTool(w.runtime);
    const model = scriptedModel([
      () => ({ code: 'const n = 1;\nthrow new Error("no such order: " + n);' }),
      (last) => ({ code: `return "fixed after ${last?.error?.code}"` }),
      (last) => ({ text: String(last?.result) }),
    ]);
    const result = await generateText({
      model,
      tools: { cordon },
      prompt: "go",
      stopWhen: isStepCount(5),
    });
    const [failed, fixed] = result.steps.flatMap((s) =>
      s.toolResults.map((r) => r.output as CodeToolOutput)
    );
    assert.equal(failed.status, "error");
    assert.equal(failed.error?.code, "script_error");
    assert.match(failed.error!.message, /no such order: 1/);
    assert.equal(failed.error?.location?.line, 2);
    assert.equal(fixed.status, "completed");
    assert.equal(result.text, "fixed after script_error");

    const syntax = await call(w.runtime, { code: "return (1 +" });
    assert.equal(syntax.status, "error");
    assert.equal(syntax.error?.code, "syntax_error");
    assert.ok(syntax.diagnostics?.[0].startsWith("[error] syntax_error"));
  },
);

step("codeTool() refuses bad input and unknown or foreign ids with typed errors", async (w) => {
  assert.deepEqual(await call(w.runtime, {}), {
    status: "error",
    error: {
      code: "invalid_request",
      message: "Send code to run, or the executionId of a paused run",
    },
  });
  const both = await call(w.runtime, { code: "return 1", executionId: "exec_x" });
  assert.equal(both.error?.code, "invalid_request");
  const unknown = await call(w.runtime, { executionId: "exec_nope" });
  assert.equal(unknown.error?.code, "execution_not_found");
  const theirs = await call(w.runtime, { code: "return 1" }, { namespace: "team-a" });
  assert.equal(theirs.status, "completed");
  const foreign = await call(w.runtime, { executionId: theirs.executionId }, {
    namespace: "team-b",
  });
  assert.equal(foreign.error?.code, "execution_not_found");
  const own = await call(w.runtime, { executionId: theirs.executionId }, { namespace: "team-a" });
  assert.equal(own.result, 1);
  await assert.rejects(() => codeTool(w.runtime, { maxRounds: 0 }), CordonError);
  await assert.rejects(() => codeTool(w.runtime, { waitMs: -1 }), /waitMs/);
  await assert.rejects(() => codeTool(w.runtime, { maxConsoleLines: 500 }), /from 0 to 499/);
});

step("codeTool() bounds console lines and the result it hands the model", async (w) => {
  const out = await call(
    w.runtime,
    { code: 'for (let i = 0; i < 30; i++) console.log("line", i);\nreturn "x".repeat(5000);' },
    { maxConsoleLines: 3, maxResultChars: 1000 },
  );
  assert.equal(out.status, "completed");
  assert.deepEqual(out.console, ["[log] line 0", "[log] line 1", "[log] line 2"]);
  assert.equal(out.consoleTruncated, true);
  assert.equal(out.result, undefined);
  assert.equal(out.resultChars, 5002);
  assert.equal(out.resultPreview?.length, 1000);
  assert.match(out.next!, /return a smaller value/);
  // The stored outcome, read back by id, is bounded the same way.
  const again = await call(w.runtime, { executionId: out.executionId }, {
    maxConsoleLines: 3,
    maxResultChars: 1000,
  });
  assert.deepEqual(again.console, out.console);
  assert.equal(again.consoleTruncated, true);
  assert.equal(again.resultChars, 5002);
});

step(
  "codeTool() in streamText: the paused run is approved by onPause and the answer streams",
  async (w) => {
    const { text, outputs } = await runAgent(w.runtime, {
      customer: "ada",
      stream: true,
      tool: { onPause: refundPolicy },
    });
    assert.equal(outputs[0].status, "completed");
    assert.equal(text, "Refunded o1 ($40).");
    assert.deepEqual(w.refunded, ["o1"]);
  },
);

step(
  "codeTool() runs options' limits and typecheck: a run over its time limit is a typed timeout",
  async (w) => {
    const out = await call(w.runtime, { code: "while (true) {}" }, { timeoutMs: 300 });
    assert.equal(out.status, "error");
    assert.equal(out.error?.code, "sandbox_timeout");
    const strict = await call(w.runtime, { code: "const n: number = 'x'; return n" }, {
      typecheck: "strict",
    });
    assert.equal(strict.status, "error");
    assert.ok(strict.diagnostics?.some((d) => d.includes("TS2322")), JSON.stringify(strict));
  },
);

step("codeTool() with languages: [typescript, python] offers a language field", async (w) => {
  const cordon = await codeTool(w.runtime, { languages: ["typescript", "python"] });
  const schema = cordon.inputSchema as unknown as z.ZodType;
  assert.equal(schema.safeParse({ code: "1", language: "python" }).success, true);
  assert.equal(schema.safeParse({ code: "1", language: "bash" }).success, false);
  assert.match(String(cordon.description), /language: python/);
  await assert.rejects(
    () => codeTool(w.runtime, { languages: ["bash" as "python"] }),
    /languages must list/,
  );
});

step(
  "codeTool() with the AI SDK's own toolApproval: the whole program waits for a yes before it runs",
  async (w) => {
    const cordon = await codeTool(w.runtime);
    const model = scriptedModel([
      () => ({ code: "return 6 * 7" }),
      (last) => ({ text: `got ${last?.result}` }),
    ]);
    const before = (await w.runtime.executions({ limit: 500 })).length;
    const messages: ModelMessage[] = [{ role: "user", content: "compute" }];
    const settings = {
      model,
      tools: { cordon },
      toolApproval: { cordon: "user-approval" as const },
      stopWhen: isStepCount(3),
    };
    const asked = await generateText({ ...settings, messages });
    const request = asked.content.find((p) => p.type === "tool-approval-request");
    assert.ok(request?.type === "tool-approval-request");
    assert.equal((await w.runtime.executions({ limit: 500 })).length, before, "nothing ran yet");
    messages.push(...asked.responseMessages, {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }],
    });
    const answered = await generateText({ ...settings, messages });
    assert.equal(answered.text, "got 42");
    assert.equal((await w.runtime.executions({ limit: 500 })).length, before + 1);
  },
);

step(
  "codeTool() with sessionId: declarations carry over from one tool call to the next",
  async (w) => {
    const opened = await w.runtime.execute({ code: "const base = 40;", session: true });
    const sessionId = opened.meta.sessionId;
    assert.ok(sessionId);
    await call(w.runtime, { code: "const bonus = 2;" }, { sessionId });
    const out = await call(w.runtime, { code: "return base + bonus" }, { sessionId });
    assert.equal(out.result, 42);
  },
);

Deno.test("codeTool() in AI SDK loops over one runtime", async (t) => {
  const shop = makeShop(ORDERS);
  await using runtime = await createRuntime({
    connectors: [shop.connector],
    db: ":memory:",
    pool: { size: 1 },
  });
  for (const [name, fn] of steps) {
    shop.refunded.length = 0;
    await t.step(name, () => fn({ runtime, refunded: shop.refunded }));
  }
});
