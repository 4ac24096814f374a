// deno run -A examples/ai_sdk_agent.ts
/**
 * An AI SDK agent loop with Cordon as its one tool. The model (scripted here, so the example
 * runs offline) writes code that lists a customer's late orders and refunds them; a refund
 * needs approval, so the run pauses; the app's `onPause` applies its policy (refunds up to
 * $50 are approved, larger ones rejected with a reason); the run ends; the model reads the
 * tool result and answers. `tests/integrations/ai_sdk_test.ts` runs this file's functions.
 *
 * With a real model, replace `scriptedModel(...)` by a provider's model
 * (`openai("…")`, `anthropic("…")`): nothing else changes.
 *
 * @module
 */
import { generateText, isStepCount, streamText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import {
  codeTool,
  type CodeToolOptions,
  type CodeToolOutput,
  createRuntime,
  defineConnector,
  type Runtime,
} from "../mod.ts";

/** An order of the example shop. */
export interface Order {
  id: string;
  customer: string;
  totalUsd: number;
  late: boolean;
}

/** A shop whose refunds need a person's approval; `refunded` records the refunds made. */
export function makeShop(orders: Order[]) {
  const refunded: string[] = [];
  const connector = defineConnector({
    name: "shop",
    description: "Orders and refunds of the web shop.",
    tools: {
      list_orders: {
        description: "A customer's orders",
        input: z.object({ customer: z.string() }),
        execute: ({ customer }) => orders.filter((o) => o.customer === customer),
      },
      refund: {
        description: "Refund an order in full (needs approval)",
        input: z.object({ orderId: z.string(), amountUsd: z.number() }),
        requiresApproval: true,
        execute: ({ orderId, amountUsd }) => {
          refunded.push(orderId);
          return { orderId, refundedUsd: amountUsd };
        },
      },
    },
  });
  return { connector, refunded };
}

/** What the scripted model does in one step, given the last tool output it saw. */
export type Turn = (
  last: CodeToolOutput | undefined,
) => { code: string; input?: unknown } | { executionId: string } | { text: string };

type GenerateOptions = Parameters<MockLanguageModelV4["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
type StreamResult = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

const USAGE: GenerateResult["usage"] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The newest tool result in the prompt, as the model receives it. */
export function lastToolOutput(prompt: GenerateOptions["prompt"]): CodeToolOutput | undefined {
  for (const message of [...prompt].reverse()) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.output.type === "json") {
        return part.output.value as unknown as CodeToolOutput;
      }
    }
  }
  return undefined;
}

/**
 * A language model that follows a script: step `i` calls `turns[i]` with the newest tool
 * result in its prompt, and writes a call of the `cordon` tool or a final text. It answers
 * `generateText` and `streamText` alike.
 */
export function scriptedModel(turns: Turn[]): MockLanguageModelV4 {
  let step = 0;
  const content = (options: GenerateOptions): GenerateResult["content"] => {
    const turn = turns[Math.min(step++, turns.length - 1)];
    const said = turn(lastToolOutput(options.prompt));
    if ("text" in said) return [{ type: "text", text: said.text }];
    return [{
      type: "tool-call",
      toolCallId: `call_${step}`,
      toolName: "cordon",
      input: JSON.stringify(said),
    }];
  };
  return new MockLanguageModelV4({
    doGenerate: (options) => {
      const parts = content(options);
      const calls = parts.some((p) => p.type === "tool-call");
      return Promise.resolve({
        content: parts,
        finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
        usage: USAGE,
        warnings: [],
      });
    },
    doStream: (options) => {
      const parts = content(options);
      const calls = parts.some((p) => p.type === "tool-call");
      const chunks: StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const p of parts) {
        if (p.type !== "text") chunks.push(p as StreamPart);
        else {
          chunks.push({ type: "text-start", id: "t" });
          chunks.push({ type: "text-delta", id: "t", delta: p.text });
          chunks.push({ type: "text-end", id: "t" });
        }
      }
      chunks.push({
        type: "finish",
        usage: USAGE,
        finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
      });
      return Promise.resolve({ stream: ReadableStream.from(chunks) });
    },
  });
}

/** The code the scripted model writes: refund the customer's late orders. */
export const REFUND_CODE = `const orders = await shop.list_orders({ customer: input.customer });
const refunds = [];
for (const o of orders.filter((o) => o.late)) {
  refunds.push(await shop.refund({ orderId: o.id, amountUsd: o.totalUsd }));
}
console.log("refunded", refunds.length, "order(s)");
return refunds;`;

/** The scripted model's two steps: write the code, then answer from the tool result. */
export function refundTurns(customer: string): Turn[] {
  return [
    () => ({ code: REFUND_CODE, input: { customer } }),
    (last) => {
      if (last?.status === "completed") {
        const refunds = last.result as { orderId: string; refundedUsd: number }[];
        return {
          text: `Refunded ${refunds.map((r) => `${r.orderId} ($${r.refundedUsd})`).join(", ")}.`,
        };
      }
      if (last?.status === "paused") {
        return { text: `A refund waits for approval (execution ${last.executionId}).` };
      }
      return { text: `The refund failed: ${last?.error?.code}: ${last?.error?.message}` };
    },
  ];
}

/** The app's policy, as an `onPause`: refunds up to $50 are approved, larger ones rejected. */
export const refundPolicy: NonNullable<CodeToolOptions["onPause"]> = ({ pending }) =>
  pending.map((call) => {
    const { amountUsd } = call.args as { amountUsd: number };
    return amountUsd <= 50
      ? { seq: call.seq, action: "approve" as const }
      : { seq: call.seq, action: "reject" as const, reason: `refunds over $50 need a manager` };
  });

/** Runs the agent: one `generateText` (or `streamText`) call that may take several steps. */
export async function runAgent(
  runtime: Runtime,
  options: { customer: string; tool?: CodeToolOptions; stream?: boolean },
): Promise<{ text: string; outputs: CodeToolOutput[]; model: MockLanguageModelV4 }> {
  const cordon = await codeTool(runtime, options.tool);
  const model = scriptedModel(refundTurns(options.customer));
  const request = {
    model,
    tools: { cordon },
    stopWhen: isStepCount(4),
    system: "You help the shop's support staff. Use the cordon tool to act on orders.",
    prompt: `Refund ${options.customer}'s late orders.`,
  };
  const result = options.stream ? streamText(request) : await generateText(request);
  const steps = await result.steps;
  const outputs = steps.flatMap((s) => s.toolResults.map((r) => r.output as CodeToolOutput));
  return { text: await result.text, outputs, model };
}

if (import.meta.main) {
  const { connector } = makeShop([
    { id: "o1", customer: "ada", totalUsd: 40, late: true },
    { id: "o2", customer: "ada", totalUsd: 90, late: false },
  ]);
  await using runtime = await createRuntime({ connectors: [connector], db: ":memory:" });
  const { text, outputs } = await runAgent(runtime, {
    customer: "ada",
    tool: { onPause: refundPolicy },
  });
  console.log(JSON.stringify(outputs, null, 2));
  console.log(text);
}
