/**
 * Where the time goes: Cordon's pieces measured one at a time, below the
 * public API. A sandbox child driven directly (no engine, no store, no
 * pool refill), the store's writes alone, the connector registry alone,
 * and a bare pipe ping-pong between two `deno` processes as the floor.
 *
 * These import internals from src/, so they may need updating when those
 * change; the public-API figures in exec.ts are the ones with targets.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConnectorRegistry } from "../src/connectors/registry.ts";
import { prepareSource } from "../src/engine/source/source.ts";
import { detectMemoryGuard } from "../src/sandbox/cgroup.ts";
import { type ChildEnvironment, SandboxChild } from "../src/sandbox/child.ts";
import { METHOD_RUN, type RunParams } from "../src/sandbox/protocol.ts";
import { CallStore } from "../src/store/calls.ts";
import { openDb } from "../src/store/client.ts";
import { ExecutionStore } from "../src/store/executions.ts";
import { migrate } from "../src/store/migrations.ts";
import { benchRuntime } from "./exec.ts";
import { math, sequentialCalls, TRIVIAL } from "./setup.ts";
import { CWD, DENO_DIR, emptyScript, rawSpawn } from "./spawn.ts";
import { brief, check, round, sleep, timed } from "./stats.ts";

const MiB = 1024 * 1024;

async function environment(cgroups: "auto" | "off"): Promise<ChildEnvironment> {
  await Deno.mkdir(CWD, { recursive: true });
  return {
    denoPath: Deno.execPath(),
    guestEntry: fileURLToPath(new URL("../src/sandbox/guest/entry.ts", import.meta.url)),
    denoDir: DENO_DIR,
    cwd: CWD,
    memoryGuard: await detectMemoryGuard(cgroups),
    allowPrivateNetwork: false,
  };
}

function spawnChild(env: ChildEnvironment): Promise<SandboxChild> {
  return SandboxChild.spawn({
    env,
    policy: { heapMiB: 128, netAllow: [] },
    limits: { maxFrameBytes: 4 * MiB, maxOutputBytes: 64 * MiB },
    memoryBytes: 384 * MiB,
  });
}

function runParams(code: string): RunParams {
  const source = prepareSource(code);
  return {
    module: source.module,
    lineOffset: source.lineOffset,
    input: undefined,
    connectors: [{ name: "math", tools: ["add"] }],
    maxResultBytes: 1_000_000,
  };
}

/** One `run` on a fresh ready child whose tool calls are answered at once (no store). */
async function directRun(env: ChildEnvironment, code: string, alongside?: string) {
  const child = await spawnChild(env);
  child.bind({
    onRequest: (_method, params) => {
      const { a, b } = (params as { args: { a: number; b: number } }).args;
      return a + b;
    },
  });
  await child.ready;
  await sleep(100);
  const other = alongside ? rawSpawn(alongside) : undefined;
  const r = await timed(() => child.peer.request(METHOD_RUN, runParams(code)));
  await other;
  child.kill();
  await child.exited;
  return r.ms;
}

/** Times the memory guard's create, add and remove around a `deno` starting up. */
async function cgroupSteps(env: ChildEnvironment, samples: number) {
  if (env.memoryGuard.kind === "heap-only") return undefined;
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-" });
  const script = join(dir, "wait.ts");
  await Deno.writeTextFile(script, "setTimeout(() => {}, 5_000);");
  const create: number[] = [];
  const add: number[] = [];
  const remove: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const made = await timed(() => env.memoryGuard.create(384 * MiB));
      const group = made.value!;
      const proc = new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", script],
        stdout: "null",
        stderr: "null",
      }).spawn();
      const added = await timed(() => group.add(proc.pid));
      proc.kill("SIGKILL");
      await proc.status;
      const removed = await timed(() => group.remove());
      create.push(made.ms);
      add.push(added.ms);
      remove.push(removed.ms);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return { create: brief(create), add: brief(add), remove: brief(remove) };
}

/**
 * Parts of a pooled execution:
 * - `childRunMs`: one `run` request on a ready child, nothing else running;
 * - `childRunWithSpawnMs`: the same while one raw `deno` starts alongside (what the pool's
 *   refill does after every take, on this 2-core machine);
 * - `storeOnlyMs`: `execute()` of code that fails to parse: store writes and envelope, no child;
 * - `spawnToReadyMs`: `SandboxChild.spawn()` until the guest says ready, without and with a
 *   cgroup;
 * - `cgroupMs`: the memory guard's steps around a `deno` starting up: `create` (before the
 *   spawn, on a cold run's path), `add` (right after it, while the child starts) and `remove`.
 */
export async function breakdownBench(samples: number) {
  const script = await emptyScript();
  const plain = await environment("off");
  const guarded = await environment("auto");
  const run: number[] = [];
  const runWithSpawn: number[] = [];
  const readyPlain: number[] = [];
  const readyGuarded: number[] = [];
  let cgroup: Awaited<ReturnType<typeof cgroupSteps>>;
  try {
    for (let i = 0; i < samples + 1; i++) {
      const a = await directRun(plain, TRIVIAL);
      const b = await directRun(plain, TRIVIAL, script.path);
      const t0 = performance.now();
      const child = await spawnChild(plain);
      await child.ready;
      const ready = performance.now() - t0;
      child.kill();
      await child.exited;
      const t1 = performance.now();
      const guardedChild = await spawnChild(guarded);
      await guardedChild.ready;
      const guardedReady = performance.now() - t1;
      guardedChild.kill();
      await guardedChild.exited;
      if (i === 0) continue;
      run.push(a);
      runWithSpawn.push(b);
      readyPlain.push(ready);
      readyGuarded.push(guardedReady);
    }
    cgroup = await cgroupSteps(guarded, samples);
  } finally {
    await plain.memoryGuard.dispose();
    await guarded.memoryGuard.dispose();
    await script.remove();
  }
  const store: number[] = [];
  {
    await using rt = await benchRuntime({ pool: { size: 0 } });
    for (let i = 0; i < samples * 2 + 2; i++) {
      const { ms, value } = await timed(() => rt.execute({ code: "return (" }));
      check(value.status === "error", "the syntax error was not reported");
      if (i >= 2) store.push(ms);
    }
  }
  return {
    childRunMs: brief(run),
    childRunWithSpawnMs: brief(runWithSpawn),
    storeOnlyMs: brief(store),
    spawnToReadyMs: {
      noCgroup: brief(readyPlain),
      [guarded.memoryGuard.kind]: brief(readyGuarded),
    },
    cgroupMs: cgroup,
  };
}

/** A `deno` child that echoes stdin to stdout: the floor for one round trip over pipes. */
async function pipeFloorUs(rounds: number): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-" });
  const path = join(dir, "echo.ts");
  await Deno.writeTextFile(
    path,
    `const b = new Uint8Array(65536);
     for (let n; (n = await Deno.stdin.read(b)) !== null;) await Deno.stdout.write(b.subarray(0, n));`,
  );
  const p = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", path],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const w = p.stdin.getWriter();
  const r = p.stdout.getReader();
  const frame = new TextEncoder().encode(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tool.call", params: { a: 1, b: 2 } })}\n`,
  );
  const once = async () => {
    await w.write(frame);
    for (let got = 0; got < frame.length;) got += (await r.read()).value?.length ?? frame.length;
  };
  try {
    for (let i = 0; i < 200; i++) await once();
    const { ms } = await timed(async () => {
      for (let i = 0; i < rounds; i++) await once();
    });
    return (ms / rounds) * 1000;
  } finally {
    await w.close().catch(() => {});
    await p.status;
    await Deno.remove(dir, { recursive: true });
  }
}

/** Two store writes per call (append, then finish), as the journal makes them. */
async function storeWritesUs(url: string, calls: number): Promise<number> {
  const db = await openDb(url);
  try {
    await migrate(db);
    const store = new CallStore(db);
    const id = `exec_bench_${crypto.randomUUID()}`;
    const now = Date.now();
    await new ExecutionStore(db).create({
      id,
      namespace: "default",
      logRef: `log_${id}`,
      code: "",
      input: null,
      connectors: ["math"],
      declarationHash: "bench",
      limits: {},
      policy: { net: [] },
      owner: "bench",
      leaseUntil: now + 60_000,
      createdAt: now,
    });
    const write = async (seq: number) => {
      await store.append({
        executionId: id,
        seq,
        connector: "math",
        tool: "add",
        kind: "tool",
        state: "executing",
        startedAt: Date.now(),
      }, '{"a":1,"b":2}');
      await store.finish(id, seq, "applied", { resultJson: "3" });
    };
    for (let seq = 1; seq <= 50; seq++) await write(seq);
    const { ms } = await timed(async () => {
      for (let seq = 51; seq <= 50 + calls; seq++) await write(seq);
    });
    return (ms / calls) * 1000;
  } finally {
    db.close();
  }
}

/**
 * Parts of one sequential tool call, in µs: the pipe floor, Cordon's RPC
 * (a direct child answering each call at once), the store's two writes
 * (`:memory:` and a file), and the registry's validate-and-execute.
 */
export async function perCallPartsBench(samples: number) {
  const env = await environment("off");
  const rpc: number[] = [];
  try {
    for (let i = 0; i < samples + 1; i++) {
      const t0 = await directRun(env, sequentialCalls(0));
      const t100 = await directRun(env, sequentialCalls(100));
      if (i > 0) rpc.push(((t100 - t0) / 100) * 1000);
    }
  } finally {
    await env.memoryGuard.dispose();
  }
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-db-" });
  let storeMemory: number;
  let storeFile: number;
  try {
    storeMemory = await storeWritesUs(":memory:", 500);
    storeFile = await storeWritesUs(`file:${join(dir, "parts.db")}`, 500);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const registry = new ConnectorRegistry([math]);
  const ctx = { executionId: "bench" };
  for (let i = 0; i < 500; i++) await registry.call("math", "add", { a: i, b: 1 }, ctx);
  const reg = await timed(async () => {
    for (let i = 0; i < 2_000; i++) await registry.call("math", "add", { a: i, b: 1 }, ctx);
  });
  return {
    pipeRoundTripUs: round(await pipeFloorUs(1_000), 1),
    rpcRoundTripUs: brief(rpc, 1),
    storeWritesUs: { memory: round(storeMemory, 1), file: round(storeFile, 1) },
    registryCallUs: round((reg.ms / 2_000) * 1000, 1),
  };
}
