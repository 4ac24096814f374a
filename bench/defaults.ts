/**
 * The figures issue 14 holds to the floor, with Cordon's shipped defaults:
 * a durable `file:` store and the default type check (`warn`). A trivial
 * pooled run with the check on and off (what the check adds), and the
 * per-call cost of sequential tool calls.
 *
 * @module
 */
import { join } from "node:path";
import { createRuntime, type Runtime } from "../mod.ts";
import { perCallSample, steadyPerCall } from "./exec.ts";
import { completed, math, TRIVIAL } from "./setup.ts";
import { brief, check, timed } from "./stats.ts";

/** A runtime as a service starts one: a file store, the default check and pool. */
async function withDefaults<T>(
  typecheck: "warn" | "off",
  body: (rt: Runtime) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-defaults-" });
  try {
    await using rt = await createRuntime({
      connectors: [math],
      db: `file:${join(dir, "cordon.db")}`,
      ...(typecheck === "off" ? { typecheck } : {}),
    });
    await rt.warm();
    return await body(rt);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Trivial runs; `unique`: each run's code differs (`return 1 + 0 * i`), so no check is reused. */
async function trivial(rt: Runtime, samples: number, unique = false) {
  const times: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    await rt.warm();
    const code = unique ? `return 1 + 0 * ${i}` : TRIVIAL;
    const { ms, value } = await timed(() => rt.execute({ code }));
    completed(value, 1);
    check(value.meta.pooled, "a pooled run did not come from the pool");
    if (i >= 3) times.push(ms);
  }
  return brief(times);
}

/**
 * Trivial runs one after another with nothing in between, as a caller in a loop makes them:
 * each run takes a pooled child and its replacement boots meanwhile, so this is what the pool's
 * refill costs the runs (`pooled`: how many found a child waiting or booting).
 */
async function backToBackRuns(rt: Runtime, runs: number) {
  const times: number[] = [];
  let pooled = 0;
  for (let i = 0; i < runs; i++) {
    const { ms, value } = await timed(() => rt.execute({ code: TRIVIAL }));
    completed(value, 1);
    if (value.meta.pooled) pooled++;
    times.push(ms);
  }
  return { ...brief(times), runs, pooled };
}

/**
 * Trivial pooled runs with the defaults, and with the check off (same store); then with a
 * different script each run, so every check is a real TypeScript pass (none found kept); and
 * back to back.
 */
export async function defaultTrivialBench(samples: number) {
  const checked = await withDefaults("warn", (rt) => trivial(rt, samples));
  const unchecked = await withDefaults("off", (rt) => trivial(rt, samples));
  const fresh = await withDefaults("warn", (rt) => trivial(rt, samples, true));
  const freshUnchecked = await withDefaults("off", (rt) => trivial(rt, samples, true));
  const percent = (a: number, b: number) => Math.round((a / b - 1) * 1000) / 10;
  const backToBack = await withDefaults("warn", (rt) => backToBackRuns(rt, samples * 4));
  return {
    ...checked,
    backToBackMs: backToBack,
    checkOffMs: unchecked,
    checkAddsPercent: percent(checked.p50, unchecked.p50),
    everyScriptNewMs: { check: fresh, checkOff: freshUnchecked },
    checkAddsPercentEveryScriptNew: percent(fresh.p50, freshUnchecked.p50),
  };
}

/** The per-call cost of sequential calls with the defaults (file store, warn check). */
export function defaultPerCallBench(samples: number) {
  return withDefaults("warn", async (rt) => {
    const perCallUs: number[] = [];
    for (let i = 0; i < samples + 2; i++) {
      const { t0, t100 } = await perCallSample(rt);
      if (i >= 2) perCallUs.push(((t100 - t0) / 100) * 1000);
    }
    return {
      ...brief(perCallUs, 1),
      steadyUs: await steadyPerCall(rt, samples),
      // The same to a tool declared `readOnly`: its entry is written behind, not before it runs.
      readOnlySteadyUs: await steadyPerCall(rt, samples, "math.plus({ a: s, b: 1 })"),
    };
  });
}
