/**
 * What the benchmarks share: the connectors they call, the scripts they
 * run, sample counts, and a look at the process table for sandbox children.
 *
 * @module
 */
import { z } from "zod";
import { defineConnector, type ExecuteResult } from "../mod.ts";
import { check } from "./stats.ts";

/** A connector whose tools cost next to nothing, so a call's time is Cordon's. */
export const math = defineConnector({
  name: "math",
  description: "Arithmetic",
  tools: {
    add: {
      description: "Add two numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.number(),
      execute: ({ a, b }) => a + b,
    },
    plus: {
      description: "Add two numbers (declared read-only: its calls are journaled behind)",
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.number(),
      readOnly: true,
      execute: ({ a, b }) => a + b,
    },
  },
});

/** A connector with a tool that waits for approval (pauses the run). */
export const ops = defineConnector({
  name: "ops",
  description: "Operations that need a person",
  tools: {
    confirm: {
      description: "Confirm a value (needs approval)",
      input: z.object({ value: z.number() }),
      output: z.number(),
      requiresApproval: true,
      execute: ({ value }) => value,
    },
  },
});

/** The trivial script. */
export const TRIVIAL = "return 1";

/** A script making `n` sequential tool calls (the same shape for every `n`, 0 included). */
export function sequentialCalls(n: number): string {
  return `let s = 0;\nfor (let i = 0; i < ${n}; i++) s = await math.add({ a: s, b: 1 });\nreturn s;`;
}

/** Sequential calls timed inside the child: `n` calls, returning µs a call (JIT warm by then). */
export const STEADY_CALLS = 1000;

/** The body that times {@link STEADY_CALLS} sequential calls of `call(s)` and returns µs a call. */
export function steadyCallsBody(call: string): string {
  return `const t0 = performance.now(); let s = 0;
for (let i = 0; i < ${STEADY_CALLS}; i++) s = await ${call};
return ((performance.now() - t0) / ${STEADY_CALLS}) * 1000;`;
}

/** A script making `n` tool calls at once under `Promise.all`. */
export function parallelCalls(n: number): string {
  return `const r = await Promise.all(Array.from({ length: ${n} }, (_, i) => math.add({ a: i, b: 1 })));\nreturn r.length;`;
}

/** Sample counts; `--quick` uses the small set. */
export interface Samples {
  cold: number;
  pooled: number;
  raw: number;
  perCall: number;
  parallel: number;
  sustainedWindowMs: number;
  idlePool: number;
  whileTrue: number;
  durablePerCall: number;
  liveResume: number;
  replayResume: number;
  breakdown: number;
  transpile: number;
  typecheck: number;
  search: number;
}

/** Full runs and quick runs. */
export const SAMPLES: Record<"full" | "quick", Samples> = {
  full: {
    cold: 30,
    pooled: 100,
    raw: 30,
    perCall: 20,
    parallel: 15,
    sustainedWindowMs: 3_000,
    idlePool: 4,
    whileTrue: 5,
    durablePerCall: 30,
    liveResume: 30,
    replayResume: 8,
    breakdown: 15,
    transpile: 500,
    typecheck: 200,
    search: 2_000,
  },
  quick: {
    cold: 8,
    pooled: 20,
    raw: 8,
    perCall: 6,
    parallel: 5,
    sustainedWindowMs: 1_500,
    idlePool: 2,
    whileTrue: 2,
    durablePerCall: 6,
    liveResume: 4,
    replayResume: 3,
    breakdown: 5,
    transpile: 100,
    typecheck: 40,
    search: 500,
  },
};

/** Returns the result of a completed execution, or throws with what came back instead. */
export function completed(out: ExecuteResult, expect?: unknown): unknown {
  check(out.status === "completed", `expected completed, got ${Deno.inspect(out).slice(0, 400)}`);
  const result = (out as { result: unknown }).result;
  if (expect !== undefined) check(result === expect, `expected ${expect}, got ${result}`);
  return result;
}

/** A live child process of this one. */
export interface ChildProc {
  pid: number;
  cmd: string;
}

/** Live (not zombie) children of `parent`, from /proc. */
export async function childProcesses(parent = Deno.pid): Promise<ChildProc[]> {
  const out: ChildProc[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const state = await procState(Number(entry.name));
    if (!state || state.ppid !== parent || state.state === "Z") continue;
    try {
      const cmd = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      out.push({ pid: Number(entry.name), cmd: cmd.replaceAll("\0", " ").trim() });
    } catch {
      // It ended while we looked.
    }
  }
  return out;
}

/** Sandbox children of this process (their command line denies reads). */
export async function sandboxChildren(): Promise<ChildProc[]> {
  return (await childProcesses()).filter((p) => p.cmd.includes("--deny-read"));
}

/** State letter and parent of a process, or `undefined` once it is gone. */
export async function procState(pid: number): Promise<{ state: string; ppid: number } | undefined> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // The command (field 2) may hold spaces; the fields after it start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** Memory figures of one process from /proc/<pid>/smaps_rollup, in KiB. */
export async function smapsRollup(pid: number): Promise<Record<string, number>> {
  const text = await Deno.readTextFile(`/proc/${pid}/smaps_rollup`);
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}
