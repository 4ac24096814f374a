/**
 * Cordon's side of the floor's burst workload: 50 runs at once, each
 * sleeping 200 ms in a host tool, with the default pool (most children
 * spawned cold) and with a pool warmed to 50 (the pre-spawned case), and the
 * default pool's burst again as a new process's first. The host's longest
 * event-loop stall during each burst is reported with it.
 *
 * @module
 */
import { z } from "zod";
import { createRuntime, defineConnector, type Runtime } from "../mod.ts";
import { LoopMonitor } from "./hostile.ts";
import { check, round } from "./stats.ts";

const RUNS = 50;
const SLEEP_MS = 200;

/** The host tool every burst calls: a timer, no CPU. */
export const clock = defineConnector({
  name: "clock",
  description: "Time",
  tools: {
    sleep: {
      description: "Wait a number of milliseconds",
      input: z.object({ ms: z.number() }),
      execute: ({ ms }) => new Promise((r) => setTimeout(() => r(null), ms)),
    },
  },
});

/**
 * One burst of {@link RUNS} sleeping runs on a runtime with `poolSize` children warmed first, or,
 * with `prewarm`, the default pool and `prewarm(RUNS)`: children that are not replaced once
 * taken, as the floor's pre-spawned children are not.
 */
async function burst(
  poolSize: number,
  prewarm = false,
): Promise<{ wallMs: number; stallMs: number }> {
  await using rt = await createRuntime({
    connectors: [clock],
    db: ":memory:",
    typecheck: "off",
    pool: { size: poolSize },
  });
  if (prewarm) await rt.prewarm(RUNS);
  else await rt.warm();
  return await sleepingBurst(rt);
}

/** {@link RUNS} runs at once on `rt`, each sleeping {@link SLEEP_MS} in a host tool. */
export async function sleepingBurst(rt: Runtime): Promise<{ wallMs: number; stallMs: number }> {
  const code = `await clock.sleep({ ms: ${SLEEP_MS} }); return 1`;
  const monitor = new LoopMonitor();
  const t = performance.now();
  const results = await Promise.all(Array.from({ length: RUNS }, () => rt.execute({ code })));
  const wallMs = performance.now() - t;
  const stallMs = monitor.stop();
  check(results.every((r) => r.status === "completed"), "a sleeping run failed");
  return { wallMs: Math.round(wallMs), stallMs: round(stallMs, 1) };
}

/**
 * The burst as a service's first: in a new process (bench/fresh_burst.ts), after a few trivial
 * runs, with the default pool. Its stall includes what a process pays once (code compiled the
 * first time, the kernel growing the process's tables), which the other bursts, late in the
 * bench's process, no longer see.
 */
async function freshProcessBurst(): Promise<{ wallMs: number; stallMs: number }> {
  const script = new URL("./fresh_burst.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--cached-only", script],
    stdin: "null",
  }).output();
  check(code === 0, `the fresh-process burst failed: ${new TextDecoder().decode(stderr)}`);
  return JSON.parse(new TextDecoder().decode(stdout));
}

/** Rows of a result of about 4 MB of JSON (stored as an artifact, over `inlineResultBytes`). */
const BIG_RESULT_CODE =
  `const rows = []; for (let i = 0; i < 64000; i++) rows.push({ id: i, name: "item-" + i, tags: ["a", "b"], v: i * 1.5 }); return rows;`;

/**
 * The host's longest stall while one run, then `runs` at once, return a result of about 4 MB
 * (parsed, encoded, checked and stored as an artifact by the host).
 */
async function bigResults(runs: number): Promise<Record<string, number>> {
  await using rt = await createRuntime({ db: ":memory:", typecheck: "off", pool: { size: 2 } });
  const out: Record<string, number> = {};
  for (const n of [1, runs]) {
    await rt.prewarm(n);
    const monitor = new LoopMonitor();
    const t = performance.now();
    const results = await Promise.all(
      Array.from({ length: n }, () => rt.execute({ code: BIG_RESULT_CODE })),
    );
    out[`runs${n}WallMs`] = Math.round(performance.now() - t);
    out[`runs${n}StallMs`] = round(monitor.stop(), 1);
    check(
      results.every((r) => r.status === "completed" && r.meta.resultRef !== undefined),
      "a 4 MB result was not stored",
    );
  }
  return out;
}

/**
 * 50 sleeping runs at once: with the default pool (2), with a pool warmed to 50, and with the
 * default pool after `prewarm(50)`; and the
 * stall while 1 and 10 runs return 4 MB results.
 */
export async function concurrentBench() {
  return {
    defaultPool: await burst(2),
    warmedPool: await burst(RUNS),
    prewarmed: await burst(2, true),
    freshProcess: await freshProcessBurst(),
    bigResult: await bigResults(10),
  };
}
