/**
 * Capacity: sustained executions per second against raw spawns per second,
 * and the memory an idle pooled child costs.
 *
 * @module
 */
import { benchRuntime } from "./exec.ts";
import { completed, sandboxChildren, smapsRollup, TRIVIAL } from "./setup.ts";
import { emptyScript, rawSpawn } from "./spawn.ts";
import { brief, check, progress, round, sleep } from "./stats.ts";

/** Runs `op` from `workers` loops until `windowMs` has passed; returns completions per second. */
async function throughput(
  windowMs: number,
  workers: number,
  op: () => Promise<void>,
): Promise<{ perSec: number; count: number; elapsedMs: number }> {
  const start = performance.now();
  const end = start + windowMs;
  let count = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < end) {
        await op();
        count++;
      }
    }),
  );
  const elapsedMs = performance.now() - start;
  return { perSec: round((count / elapsedMs) * 1000, 1), count, elapsedMs: round(elapsedMs, 0) };
}

/** Trivial executions on a pooled runtime against raw empty `deno` spawns, `workers` at a time. */
async function sustainedAt(windowMs: number, workers: number, poolSize: number) {
  let pooled: Awaited<ReturnType<typeof throughput>>;
  let pooledHits = 0;
  {
    await using rt = await benchRuntime({ pool: { size: poolSize } });
    await rt.warm();
    pooled = await throughput(windowMs, workers, async () => {
      const out = await rt.execute({ code: TRIVIAL });
      completed(out, 1);
      if (out.meta.pooled) pooledHits++;
    });
  }
  await sleep(200);
  const script = await emptyScript();
  let raw: Awaited<ReturnType<typeof throughput>>;
  try {
    raw = await throughput(windowMs, workers, async () => {
      const out = await rawSpawn(script.path);
      check(out.success, "the raw spawn failed");
    });
  } finally {
    await script.remove();
  }
  await sleep(200);
  return {
    pooledPerSec: pooled.perSec,
    rawPerSec: raw.perSec,
    ratio: round(pooled.perSec / raw.perSec, 3),
    pooledRuns: pooled.count,
    pooledFromPool: pooledHits,
    rawRuns: raw.count,
  };
}

/**
 * Sustained rate: trivial executions on a pooled runtime (the default pool of 2) against raw
 * empty `deno` spawns over the same window, one after another (the "sequential runs",
 * `ratio`) and two at a time (`concurrent`, both cores busy with boots on both sides).
 */
export async function sustainedBench(windowMs: number, poolSize = 2) {
  const sequential = await sustainedAt(windowMs, 1, poolSize);
  const concurrent = await sustainedAt(windowMs, 2, poolSize);
  return { ...sequential, concurrent, windowMs, poolSize };
}

const KiB_PER_MiB = 1024;

/**
 * Idle pooled children: a runtime with `size` children, warmed and left to
 * settle, then each child's memory from /proc/<pid>/smaps_rollup. The
 * marginal cost of a child is its private memory (USS: Private_Clean +
 * Private_Dirty), what would be freed if it exited; PSS adds its share of
 * pages mapped by several processes (the deno binary, shared libraries).
 */
export async function idleMemoryBench(size: number, settleMs = 1_000) {
  await using rt = await benchRuntime({ pool: { size } });
  await rt.warm();
  await sleep(settleMs);
  const children = await sandboxChildren();
  check(children.length === size, `expected ${size} idle children, found ${children.length}`);
  const uss: number[] = [];
  const pss: number[] = [];
  const rss: number[] = [];
  for (const c of children) {
    const m = await smapsRollup(c.pid);
    uss.push(((m.Private_Clean ?? 0) + (m.Private_Dirty ?? 0)) / KiB_PER_MiB);
    pss.push((m.Pss ?? 0) / KiB_PER_MiB);
    rss.push((m.Rss ?? 0) / KiB_PER_MiB);
  }
  progress(`  idle children: USS ${uss.map((v) => round(v, 1)).join(", ")} MiB`);
  return {
    ...brief(uss, 1),
    pssMiB: brief(pss, 1),
    rssMiB: brief(rss, 1),
    children: size,
  };
}
