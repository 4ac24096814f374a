/**
 * Sessions: an execution in a reused session (its child and heap already
 * there), against a pooled execution without one.
 *
 * @module
 */
import { z } from "zod";
import { createRuntime, defineConnector } from "../mod.ts";
import { check, summarize, type Summary } from "./stats.ts";

/** Reused-session and pooled executions, p50/p95 in ms. */
export async function sessionBench(samples: number): Promise<{
  reusedMs: Summary;
  pooledMs: Summary;
  withCallMs: Summary;
}> {
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.number(),
        execute: ({ a, b }) => a + b,
      },
    },
  });
  await using rt = await createRuntime({
    connectors: [math],
    db: ":memory:",
    pool: { size: 2 },
    typecheck: "off",
  });
  await rt.warm();
  const first = await rt.execute({ session: true, code: "let n = 0; return n" });
  check(first.status === "completed", "the session starts");
  const sessionId = first.meta.sessionId!;
  const time = async (request: Parameters<typeof rt.execute>[0]) => {
    const t0 = performance.now();
    const r = await rt.execute(request);
    const ms = performance.now() - t0;
    check(r.status === "completed", `a run completes: ${JSON.stringify(r).slice(0, 200)}`);
    return ms;
  };
  for (let i = 0; i < 20; i++) await time({ sessionId, code: "n++; return n" });
  const reused: number[] = [];
  const withCall: number[] = [];
  const pooled: number[] = [];
  for (let i = 0; i < samples; i++) {
    reused.push(await time({ sessionId, code: "n++; return n" }));
    withCall.push(await time({ sessionId, code: "n = await math.add({ a: n, b: 1 }); return n" }));
    pooled.push(await time({ code: "return 1" }));
    // The pool refills between samples, as it would between a caller's requests.
    await new Promise((r) => setTimeout(r, 40));
  }
  return {
    reusedMs: summarize(reused),
    pooledMs: summarize(pooled),
    withCallMs: summarize(withCall),
  };
}
