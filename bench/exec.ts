/**
 * Execution latency through the public API: cold (no pool), pooled, the
 * per-call cost of sequential tool calls, a 1,000-call `Promise.all`, and
 * how soon a `while (true) {}` is killed after its deadline.
 *
 * @module
 */
import { createRuntime, type Runtime, type RuntimeOptions } from "../mod.ts";
import {
  completed,
  math,
  parallelCalls,
  procState,
  sandboxChildren,
  sequentialCalls,
  steadyCallsBody,
  TRIVIAL,
} from "./setup.ts";
import { brief, check, progress, round, sleep, timed } from "./stats.ts";

/**
 * A runtime with the math connector and an in-memory store, unless told otherwise. The type
 * check is off: these figures are the engine's; `bench/discovery.ts` measures the check.
 */
export function benchRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return createRuntime({ connectors: [math], db: ":memory:", typecheck: "off", ...options });
}

/** Cold executions: pool off, so every run spawns its child. */
export async function coldBench(samples: number, cgroups: "auto" | "off" = "auto") {
  await using rt = await benchRuntime({ pool: { size: 0 }, sandbox: { cgroups } });
  const times: number[] = [];
  for (let i = 0; i < samples + 2; i++) {
    const { ms, value } = await timed(() => rt.execute({ code: TRIVIAL }));
    completed(value, 1);
    check(!value.meta.pooled, "a cold run came from the pool");
    if (i >= 2) times.push(ms); // the first two warm the host's own code paths
    // Let the previous child's teardown finish, so each sample is one cold run alone.
    await sleep(25);
  }
  return brief(times);
}

/** Pooled trivial executions, with the pool refilled and ready before each one. */
export async function pooledBench(
  samples: number,
  cgroups: "auto" | "off" = "auto",
  typecheck: "off" | "warn" = "off",
) {
  await using rt = await benchRuntime({ pool: { size: 2 }, sandbox: { cgroups }, typecheck });
  const times: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    await rt.warm();
    const { ms, value } = await timed(() => rt.execute({ code: TRIVIAL }));
    completed(value, 1);
    check(value.meta.pooled, "a pooled run did not come from the pool");
    if (i >= 3) times.push(ms);
  }
  return brief(times);
}

/** One per-call sample: a 0-call and a 100-call script, each on a ready pooled child (ms). */
export async function perCallSample(rt: Runtime): Promise<{ t0: number; t100: number }> {
  await rt.warm();
  const a = await timed(() => rt.execute({ code: sequentialCalls(0) }));
  completed(a.value, 0);
  await rt.warm();
  const b = await timed(() => rt.execute({ code: sequentialCalls(100) }));
  completed(b.value, 100);
  check(b.value.meta.calls === 100, "the 100-call script did not make 100 calls");
  return { t0: a.ms, t100: b.ms };
}

/**
 * Per-call overhead: pairs of a script making 100 sequential calls and the
 * same script making none, each on a ready pooled child. The per-sample
 * difference divided by 100 is the cost of one call.
 */
export async function perCallBench(samples: number, options: RuntimeOptions = {}) {
  await using rt = await benchRuntime({ pool: { size: 2 }, ...options });
  const zero: number[] = [];
  const hundred: number[] = [];
  const perCallUs: number[] = [];
  for (let i = 0; i < samples + 2; i++) {
    const { t0, t100 } = await perCallSample(rt);
    if (i < 2) continue;
    zero.push(t0);
    hundred.push(t100);
    perCallUs.push(((t100 - t0) / 100) * 1000);
  }
  return {
    ...brief(perCallUs, 1),
    t0Ms: brief(zero),
    t100Ms: brief(hundred),
    steadyUs: await steadyPerCall(rt, samples),
  };
}

/**
 * Sequential calls timed inside the child over `STEADY_CALLS` calls (its JIT warm, no
 * run's fixed cost): µs a call, one sample per run. The floor measures the same way.
 */
export async function steadyPerCall(
  rt: Runtime,
  perCallSamples: number,
  call = "math.add({ a: s, b: 1 })",
) {
  // A thousand calls a sample: a quarter of the per-call section's samples is plenty.
  const samples = Math.max(3, Math.ceil(perCallSamples / 4));
  const out: number[] = [];
  for (let i = 0; i < samples + 1; i++) {
    await rt.warm();
    const r = await rt.execute({ code: steadyCallsBody(call) });
    check(r.status === "completed" && typeof r.result === "number", "the steady calls failed");
    if (i > 0) out.push((r as { result: number }).result);
  }
  return brief(out, 1);
}

/** 1,000 calls under one `Promise.all`, minus a trivial script, both pooled. */
export async function parallelBench(samples: number) {
  await using rt = await benchRuntime({ pool: { size: 2 } });
  const extra: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < samples + 2; i++) {
    await rt.warm();
    const a = await timed(() => rt.execute({ code: TRIVIAL }));
    completed(a.value, 1);
    await rt.warm();
    const b = await timed(() => rt.execute({ code: parallelCalls(1000) }));
    completed(b.value, 1000);
    if (i < 2) continue;
    whole.push(b.ms);
    extra.push(b.ms - a.ms);
  }
  return { ...brief(extra), scriptMs: brief(whole) };
}

/**
 * `while (true) {}` with a 500 ms timeout. Reports how long after the
 * deadline (execute start + timeout) the result came back, and when the
 * child's process was seen gone (polled every millisecond).
 */
export async function whileTrueBench(samples: number, timeoutMs = 500) {
  await using rt = await benchRuntime({ pool: { size: 1 } });
  const resultAfter: number[] = [];
  const exitAfter: number[] = [];
  for (let i = 0; i < samples; i++) {
    await rt.warm();
    const idle = await sandboxChildren();
    check(idle.length === 1, `expected one idle child, found ${idle.length}`);
    const pid = idle[0].pid;
    const start = performance.now();
    let exitedAt = NaN;
    let running = true;
    const watch = (async () => {
      while (running) {
        const s = await procState(pid);
        if (!s || s.state === "Z" || s.ppid !== Deno.pid) {
          exitedAt = performance.now();
          return;
        }
        await sleep(1);
      }
    })();
    const out = await rt.execute({ code: "while (true) {}", timeoutMs });
    const doneAt = performance.now();
    await Promise.race([watch, sleep(2_000)]);
    running = false;
    check(out.status === "error" && out.error.code === "sandbox_timeout", "expected a timeout");
    const deadline = start + timeoutMs;
    resultAfter.push(doneAt - deadline);
    exitAfter.push(exitedAt - deadline);
    progress(`  while(true) #${i + 1}: result +${round(doneAt - deadline, 1)} ms`);
  }
  return { ...brief(resultAfter), processExitMs: brief(exitAfter) };
}
