/**
 * How much of an operation is the store: wraps the libSQL client's
 * `execute` and `batch` (on its prototype, for the duration of the
 * measurement only) to count statements and the time spent in them, then
 * runs a pooled trivial execution, a 100-call script and a live resume.
 *
 * @module
 */
import { createClient } from "@libsql/client";
import { createRuntime, type Runtime } from "../mod.ts";
import { completed, math, ops, sequentialCalls, TRIVIAL } from "./setup.ts";
import { check, percentile, round, sleep } from "./stats.ts";

interface Tally {
  statements: number;
  ms: number;
}

type Method = (this: unknown, ...args: unknown[]) => Promise<unknown>;

/** Counts store statements and their time while installed. */
function tallyStore(): { tally: Tally; restore: () => void } {
  const probe = createClient({ url: ":memory:" });
  const proto = Object.getPrototypeOf(probe) as Record<string, Method>;
  probe.close();
  const tally: Tally = { statements: 0, ms: 0 };
  const originals: [string, Method][] = [];
  for (const name of ["execute", "batch"]) {
    const original = proto[name];
    originals.push([name, original]);
    proto[name] = async function (this: unknown, ...args: unknown[]) {
      const start = performance.now();
      try {
        return await original.apply(this, args);
      } finally {
        tally.ms += performance.now() - start;
        tally.statements++;
      }
    };
  }
  return { tally, restore: () => originals.forEach(([name, fn]) => (proto[name] = fn)) };
}

/** Median statements, store time and total time of `op` over `samples` runs. */
async function share(
  tally: Tally,
  samples: number,
  prepare: () => Promise<unknown>,
  op: () => Promise<void>,
) {
  const totals: number[] = [];
  const store: number[] = [];
  const statements: number[] = [];
  for (let i = 0; i < samples + 2; i++) {
    await prepare();
    tally.statements = 0;
    tally.ms = 0;
    const start = performance.now();
    await op();
    const total = performance.now() - start;
    if (i < 2) continue;
    totals.push(total);
    store.push(tally.ms);
    statements.push(tally.statements);
  }
  const totalMs = percentile(totals, 50);
  const storeMs = percentile(store, 50);
  return {
    statements: percentile(statements, 50),
    storeMs: round(storeMs, 2),
    totalMs: round(totalMs, 2),
    storePercent: round((storeMs / totalMs) * 100, 0),
  };
}

async function ready(rt: Runtime) {
  await rt.warm();
  await sleep(20);
}

/** Store share of a pooled trivial execution, a 100-call script and a live resume. */
export async function storeShareBench(samples: number, db = ":memory:") {
  const { tally, restore } = tallyStore();
  try {
    await using rt = await createRuntime({ connectors: [math, ops], db, pool: { size: 2 } });
    const trivial = await share(tally, samples, () => ready(rt), async () => {
      completed(await rt.execute({ code: TRIVIAL }), 1);
    });
    const hundred = await share(tally, samples, () => ready(rt), async () => {
      completed(await rt.execute({ code: sequentialCalls(100) }), 100);
    });
    let pausedId = "";
    const resume = await share(tally, samples, async () => {
      await rt.warm();
      const out = await rt.execute({ code: "return await ops.confirm({ value: 1 })" });
      check(out.status === "paused", "the approval did not pause");
      pausedId = out.executionId;
      await ready(rt);
    }, async () => {
      completed(await rt.approve(pausedId), 1);
    });
    return { db, trivialExecute: trivial, calls100Execute: hundred, liveResume: resume };
  } finally {
    restore();
  }
}
