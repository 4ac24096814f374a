/**
 * Durable executions: what the call log costs per call with a file
 * database against `:memory:`, and how fast a paused run continues, live
 * (its child held) and by replay (a new child fed the recorded calls).
 *
 * @module
 */
import { join } from "node:path";
import { createRuntime, type ExecuteResult, type Runtime } from "../mod.ts";
import { benchRuntime, perCallSample } from "./exec.ts";
import { completed, math, ops, sequentialCalls } from "./setup.ts";
import { brief, check, percentile, progress, round, sleep, timed } from "./stats.ts";

/** A script making `n` applied calls, then one that waits for approval. */
function callsThenApproval(n: number): string {
  return `${sequentialCalls(n).replace(/return s;$/, "")}return await ops.confirm({ value: s });`;
}

function paused(out: ExecuteResult): string {
  check(out.status === "paused", `expected paused, got ${Deno.inspect(out).slice(0, 400)}`);
  return out.executionId;
}

/**
 * Per-call overhead with a file database and with `:memory:`, by the
 * perCall method. Both runtimes live side by side and their samples
 * alternate, so drift on the machine falls on both alike; the added cost
 * is the p50 of the paired differences.
 */
export async function durablePerCallBench(samples: number) {
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-db-" });
  const fileUs: number[] = [];
  const memoryUs: number[] = [];
  const addedUs: number[] = [];
  try {
    await using file = await benchRuntime({ pool: { size: 2 }, db: `file:${join(dir, "b.db")}` });
    await using memory = await benchRuntime({ pool: { size: 2 }, db: ":memory:" });
    for (let i = 0; i < samples + 2; i++) {
      const order = i % 2 === 0 ? [file, memory] : [memory, file];
      const [first, second] = [await perCallSample(order[0]), await perCallSample(order[1])];
      const [f, m] = order[0] === file ? [first, second] : [second, first];
      if (i < 2) continue;
      const perFile = ((f.t100 - f.t0) / 100) * 1000;
      const perMemory = ((m.t100 - m.t0) / 100) * 1000;
      fileUs.push(perFile);
      memoryUs.push(perMemory);
      addedUs.push(perFile - perMemory);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return {
    perCallFileUs: brief(fileUs, 1),
    perCallMemoryUs: brief(memoryUs, 1),
    addedPerCallUs: round(percentile(addedUs, 50), 1),
    addedPerCallP95Us: round(percentile(addedUs, 95), 1),
  };
}

/**
 * Live resume: pause on an approval, let the pool finish refilling (as it
 * would before a person answers), then time `approve()` while the child is
 * still held.
 */
export async function liveResumeBench(samples: number, db: string) {
  await using rt = await createRuntime({
    connectors: [math, ops],
    db,
    pool: { size: 2 },
    typecheck: "off",
  });
  const times: number[] = [];
  for (let i = 0; i < samples + 2; i++) {
    await rt.warm();
    const id = paused(await rt.execute({ code: callsThenApproval(0) }));
    // A person approves seconds later, not while the pool refills behind the execute.
    await rt.warm();
    await sleep(20);
    const { ms, value } = await timed(() => rt.approve(id));
    completed(value, 0);
    check(!value.meta.replayed, "a live resume replayed");
    if (i >= 2) times.push(ms);
  }
  return brief(times);
}

/**
 * Replay resume: 100 applied calls, then an approval. The runtime releases
 * a paused child after 1 ms, so `approve()` starts a new child and answers
 * the 100 calls from the log before the approved one runs.
 */
async function replayOnce(rt: Runtime, poolSize: number): Promise<number> {
  if (poolSize > 0) await rt.warm();
  const id = paused(await rt.execute({ code: callsThenApproval(100) }));
  await sleep(50);
  if (poolSize > 0) await rt.warm();
  const { ms, value } = await timed(() => rt.approve(id));
  completed(value, 100);
  check(value.meta.replayed, "the resume did not replay (was the child still held?)");
  check(value.meta.pooled === (poolSize > 0), "unexpected pooled/cold child on replay");
  return ms;
}

/** Replay resume timed on a pooled child (default pool) and on a cold one (pool off). */
export async function replayResumeBench(samples: number, db: string) {
  const out: Record<string, { p50: number; p95: number }> = {};
  for (const poolSize of [2, 0]) {
    await using rt = await createRuntime({
      connectors: [math, ops],
      db,
      typecheck: "off",
      pool: { size: poolSize },
      durability: { holdMs: 1 },
    });
    const times: number[] = [];
    for (let i = 0; i < samples + 1; i++) {
      const ms = await replayOnce(rt, poolSize);
      if (i >= 1) times.push(ms);
    }
    out[poolSize > 0 ? "pooled" : "cold"] = brief(times);
  }
  return out;
}

/** Every durable figure; resumes use a file database (the durable case). */
export async function durableBench(s: { perCall: number; live: number; replay: number }) {
  progress("durable: per-call overhead, file vs :memory:");
  const perCall = await durablePerCallBench(s.perCall);
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-db-" });
  try {
    const db = `file:${join(dir, "resume.db")}`;
    progress("durable: live resume");
    const live = await liveResumeBench(s.live, db);
    progress("durable: replay resume");
    const replay = await replayResumeBench(s.replay, db);
    return {
      ...perCall,
      liveResumeMs: live,
      replayResumeMs: replay.pooled,
      replayResumeColdMs: replay.cold,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
