/**
 * The host's event loop under hostile input: for each attack a script or a
 * request can make, the longest time the host's event loop went without
 * running a timer while the runtime dealt with it. The trust rule is 50 ms
 * (DESIGN.md); the floor is the same monitor over a trivial run, measured in
 * the same process, so the summary gives each figure and its ratio to that.
 *
 * ```sh
 * deno run -A bench/hostile.ts     # or: deno task bench --only=hostile
 * ```
 *
 * @module
 */
import { createRuntime, type ExecuteRequest, type Runtime } from "../mod.ts";
import { math } from "./setup.ts";
import { progress, round } from "./stats.ts";

/** How often the monitor's timer asks to run; a stall is the gap past this. */
const TICK_MS = 1;

/** Watches the event loop: the longest gap between timer ticks, minus the tick. */
export class LoopMonitor {
  #last = performance.now();
  #worst = 0;
  #timer = setInterval(() => {
    const now = performance.now();
    this.#worst = Math.max(this.#worst, now - this.#last - TICK_MS);
    this.#last = now;
  }, TICK_MS);

  /** Stops the monitor; returns the longest stall in ms. */
  stop(): number {
    clearInterval(this.#timer);
    return Math.max(this.#worst, performance.now() - this.#last - TICK_MS);
  }
}

/** One attack: what it sends, and nothing it answers is trusted. */
interface Attack {
  name: string;
  run(rt: Runtime): Promise<unknown>;
}

const nested = (depth: number) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

function execute(rt: Runtime, options: ExecuteRequest): Promise<unknown> {
  return rt.execute(options).catch((err) => ({ threw: String(err) }));
}

const ATTACKS: Attack[] = [
  {
    name: "trivialRun",
    run: (rt) => execute(rt, { code: "return 1" }),
  },
  {
    name: "outputGlob",
    // A backtracking glob matcher takes seconds on this name; a linear one microseconds.
    run: (rt) =>
      execute(rt, {
        code: `await workspace.writeText("out/${"a".repeat(40)}", "x"); return 1`,
        workspace: { outputs: { globs: ["out/*a*a*a*a*a*a*a*a*b"] } },
      }),
  },
  {
    name: "schemaPattern",
    // A backtracking regex engine takes seconds on `^(a+)+$` against 27 characters.
    run: async (rt) => {
      const saved = await rt.execute({ code: "return input" });
      const name = `evil_${crypto.randomUUID().slice(0, 8)}`;
      await rt.saveSnippet(name, {
        executionId: saved.executionId,
        description: "echo",
        inputSchema: {
          type: "object",
          properties: { s: { type: "string", pattern: "^(a+)+$" } },
        },
      }).catch(() => undefined);
      return await rt.runSnippet(name, { s: "a".repeat(27) + "!" }).catch((e) => e);
    },
  },
  {
    name: "bigintFrame",
    // A 3.9-million-digit bigint in the result: decoding it is quadratic unless bounded.
    run: (rt) =>
      execute(rt, {
        code: `return BigInt("9".repeat(3_900_000))`,
        limits: { maxResultBytes: 16 * 1024 * 1024, maxFrameBytes: 16 * 1024 * 1024 },
      }),
  },
  {
    name: "nestedInput",
    run: (rt) => execute(rt, { code: "return 1", input: nested(10_000) }),
  },
  {
    name: "callBurst",
    run: (rt) =>
      execute(rt, {
        code: "await Promise.all(Array.from({ length: 1000 }, (_, i) => math.add({ a: i, b: 1 })))",
      }),
  },
  {
    name: "logFlood",
    run: (rt) =>
      execute(rt, { code: `for (let i = 0; i < 20000; i++) console.log("line " + i); return 1` }),
  },
];

/** The longest host stall per attack (ms), the worst of `rounds`, and each ÷ the floor. */
export async function hostileBench(rounds: number): Promise<{
  stallMs: Record<string, number>;
  worstMs: number;
  worstAttack: string;
  ratioToTrivial: Record<string, number>;
}> {
  await using rt = await createRuntime({
    connectors: [math],
    db: ":memory:",
    pool: { size: 2 },
  });
  const stallMs: Record<string, number> = {};
  for (const attack of ATTACKS) {
    let worst = 0;
    for (let i = 0; i < rounds; i++) {
      await rt.warm();
      const monitor = new LoopMonitor();
      await attack.run(rt);
      worst = Math.max(worst, monitor.stop());
    }
    stallMs[attack.name] = round(worst, 1);
    progress(`  ${attack.name}: longest host stall ${stallMs[attack.name]} ms`);
  }
  const floor = Math.max(stallMs.trivialRun, 1);
  const ratioToTrivial: Record<string, number> = {};
  let worstAttack = "trivialRun";
  for (const [name, ms] of Object.entries(stallMs)) {
    ratioToTrivial[name] = round(ms / floor, 1);
    if (ms > stallMs[worstAttack]) worstAttack = name;
  }
  return { stallMs, worstMs: stallMs[worstAttack], worstAttack, ratioToTrivial };
}

if (import.meta.main) {
  console.log(JSON.stringify(await hostileBench(3), null, 2));
}
