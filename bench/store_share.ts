/**
 * How much of an operation is the store: wraps the embedded store's
 * `execute` (on its prototype, for the duration of the measurement only) to count statements and the time spent in them, then
 * runs a pooled trivial execution, a 100-call script and a live resume.
 *
 * @module
 */
import { LocalDb } from "../src/store/local.ts";
import { createRuntime, type Runtime } from "../mod.ts";
import { completed, math, ops, sequentialCalls, TRIVIAL } from "./setup.ts";
import { check, percentile, round, sleep } from "./stats.ts";

interface Tally {
  statements: number;
  ms: number;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Counts store statements and their time while installed. Embedded databases run on
 * `LocalDb` (src/store/local.ts), whose `batch` goes through `execute`, so only `execute`
 * is wrapped: every statement, BEGIN and COMMIT included, counts once.
 */
function tallyStore(): { tally: Tally; restore: () => void } {
  const proto = LocalDb.prototype as unknown as Record<string, Method>;
  const tally: Tally = { statements: 0, ms: 0 };
  const original = proto.execute;
  proto.execute = function (this: unknown, ...args: unknown[]) {
    const start = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      tally.ms += performance.now() - start;
      tally.statements++;
    }
  };
  return { tally, restore: () => (proto.execute = original) };
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
    await using rt = await createRuntime({
      connectors: [math, ops],
      db,
      pool: { size: 2 },
      typecheck: "off",
    });
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
