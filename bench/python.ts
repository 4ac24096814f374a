/**
 * Python's figures: a cold Python run with no snapshot (the child boots CPython), a cold run
 * restored from the snapshot, a trivial run on a warm pooled Python child, and the cost of one
 * sequential tool call from Python; then a bash block on a warm and on a cold child, and a Python program
 * on a file of a new workspace. `bench/run.ts` divides each by the floor it measures.
 *
 * @module
 */
import type { Runtime } from "../mod.ts";
import { benchRuntime } from "./exec.ts";
import { completed } from "./setup.ts";
import { brief, check, sleep, timed } from "./stats.ts";

/** A Python block making `n` sequential tool calls (the same shape for every `n`). */
export function pythonCalls(n: number): string {
  return `s = 0\nfor i in range(${n}):\n    s = await math.add(a=s, b=1)\ns`;
}

async function coldRuns(rt: Runtime, samples: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const { ms, value } = await timed(() =>
      rt.execute({ language: "python", code: "1", timeoutMs: 60_000 })
    );
    completed(value, 1);
    check(!value.meta.pooled, "a cold Python run came from the pool");
    times.push(ms);
    await sleep(50);
  }
  return times;
}

/** The four figures, in ms (per call in µs). */
export async function pythonBench(quick: boolean) {
  const cold = quick ? 2 : 4;
  const warm = quick ? 4 : 10;
  const pairs = quick ? 2 : 5;
  let coldNoSnapshotMs;
  {
    await using rt = await benchRuntime({
      pool: { size: 0 },
      python: { pool: 0, snapshot: false },
    });
    coldNoSnapshotMs = brief(await coldRuns(rt, cold));
  }
  await using rt = await benchRuntime({ pool: { size: 0 }, python: { pool: 1 } });
  // The first run starts the snapshot (built once, then found on disk) and the pool.
  completed(await rt.execute({ language: "python", code: "1", timeoutMs: 60_000 }), 1);
  await rt.warm();
  const pooled: number[] = [];
  for (let i = 0; i < warm + 1; i++) {
    await rt.warm();
    const { ms, value } = await timed(() => rt.execute({ language: "python", code: "1" }));
    completed(value, 1);
    check(value.meta.pooled, "a warm Python run did not come from the pool");
    if (i > 0) pooled.push(ms);
  }
  // Calls are timed in a session: one warm interpreter, and no pool refill booting Pyodide beside
  // the measured run (a refill takes a core for about a second, which is not a call's cost).
  const session = await rt.execute({ language: "python", code: "0", session: true });
  const sessionId = session.meta.sessionId!;
  await rt.warm();
  const perCallUs: number[] = [];
  for (let i = 0; i < pairs + 2; i++) {
    const run = (n: number) => rt.execute({ language: "python", sessionId, code: pythonCalls(n) });
    const a = await timed(() => run(0));
    completed(a.value, 0);
    const b = await timed(() => run(100));
    completed(b.value, 100);
    // The first two pairs warm the call path (Pyodide's and the host's); they are not kept.
    if (i >= 2) perCallUs.push(((b.ms - a.ms) / 100) * 1000);
  }
  await rt.closeSession(sessionId);
  let coldSnapshotMs;
  const bash: number[] = [];
  const bashCold: number[] = [];
  const programs: number[] = [];
  {
    await using coldRt = await benchRuntime({ pool: { size: 0 }, python: { pool: 0 } });
    coldSnapshotMs = brief(await coldRuns(coldRt, cold));
    // bash: a warm pooled child (bundle compiled, one block rehearsed), and a cold one (a
    // workspace takes a cold child).
    completed(await coldRt.execute({ language: "bash", code: "true" }), undefined);
    for (let i = 0; i < warm; i++) {
      await coldRt.warm();
      const { ms, value } = await timed(() => coldRt.execute({ language: "bash", code: "echo 1" }));
      check(value.status === "completed" && value.meta.pooled, "a pooled bash block failed");
      bash.push(ms);
    }
    for (let i = 0; i < cold; i++) {
      const { ms, value } = await timed(() =>
        coldRt.execute({ language: "bash", code: "echo 1", workspace: {} })
      );
      check(value.status === "completed" && !value.meta.pooled, "a cold bash block failed");
      bashCold.push(ms);
    }
    // A program: python3 on a file of a new workspace (a workspace takes a cold child).
    for (let i = 0; i < cold; i++) {
      const { ms, value } = await timed(() =>
        coldRt.runProgram({ files: { "p.py": "print(1)" } }, { cmd: "python3", args: ["p.py"] })
      );
      check(value.exitCode === 0 && value.stdout === "1\n", "a Python program failed");
      programs.push(ms);
    }
  }
  return {
    coldNoSnapshotMs,
    coldSnapshotMs,
    pooledMs: brief(pooled),
    perCallUs: brief(perCallUs, 1),
    bashPooledMs: brief(bash),
    bashColdMs: brief(bashCold),
    pythonProgramMs: brief(programs),
  };
}

/** What {@link pythonBench} returns. */
export type PythonFigures = Awaited<ReturnType<typeof pythonBench>>;

/** The floor's figures this file divides by (bench/floor.ts). */
export interface FloorFigures {
  trivialMs?: { p50: number };
  perCallUs?: { p50: number };
}

/** Each Python figure's p50 as a multiple of the floor's (trivial run, per call). */
export function pythonVsFloor(py: PythonFigures, floor: FloorFigures) {
  const x = (value: number, base: number | undefined) =>
    base && base > 0 ? Math.round((value / base) * 10) / 10 : undefined;
  return {
    coldNoSnapshot: x(py.coldNoSnapshotMs.p50, floor.trivialMs?.p50),
    coldSnapshot: x(py.coldSnapshotMs.p50, floor.trivialMs?.p50),
    pooled: x(py.pooledMs.p50, floor.trivialMs?.p50),
    perCall: x(py.perCallUs.p50, floor.perCallUs?.p50),
    bashPooled: x(py.bashPooledMs.p50, floor.trivialMs?.p50),
    bashCold: x(py.bashColdMs.p50, floor.trivialMs?.p50),
    pythonProgram: x(py.pythonProgramMs.p50, floor.trivialMs?.p50),
    floorTrivialMs: floor.trivialMs?.p50,
    floorPerCallUs: floor.perCallUs?.p50,
  };
}
