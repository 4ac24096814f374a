/**
 * The floor Cordon is measured against: a minimal warm Deno child with
 * Cordon's sandbox flags, env and working directory, speaking NDJSON on
 * stdio, with no Cordon logic at all (no codec, no journal, no limits, no
 * cgroup). The host answers two tools, `add` and `sleep`. It runs the same
 * workloads as Cordon's sections: a trivial run on a pre-spawned child,
 * sequential calls, 1,000 calls under `Promise.all`, and 50 concurrent runs
 * sleeping 200 ms (pre-spawned and cold).
 *
 * @module
 */
import { join } from "node:path";
import { childArgs } from "../src/sandbox/flags.ts";
import { CWD, DENO_DIR } from "./spawn.ts";
import { brief, check } from "./stats.ts";
import { steadyCallsBody } from "./setup.ts";

/** The child: tools as globals over NDJSON, each run a `data:` module with a default function. */
const FLOOR_CHILD = `
const enc = new TextEncoder();
const dec = new TextDecoder();
const waiting = new Map();
let next = 1;
const write = (o) => {
  const b = enc.encode(JSON.stringify(o) + "\\n");
  let off = 0;
  while (off < b.length) off += Deno.stdout.writeSync(b.subarray(off));
};
const call = (tool, args) => new Promise((resolve) => {
  const id = next++;
  waiting.set(id, resolve);
  write({ id, tool, args });
});
globalThis.add = (a, b) => call("add", [a, b]);
globalThis.sleep = (ms) => call("sleep", [ms]);
const run = async (m) => {
  const mod = await import("data:text/javascript," + encodeURIComponent(m.code));
  write({ done: m.run, value: await mod.default() });
};
// As Cordon's guest does before it says it is ready: one import rehearsed, so the first run's
// module machinery is warm.
await import("data:text/javascript,export default 0");
write({ ready: true });
let buf = "";
for await (const chunk of Deno.stdin.readable) {
  buf += dec.decode(chunk, { stream: true });
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.run !== undefined) run(m);
    else {
      const resolve = waiting.get(m.id);
      waiting.delete(m.id);
      resolve(m.value);
    }
  }
}
`;

/** One floor child: spawned with Cordon's flags, answering `add` and `sleep`, one run at a time. */
class FloorChild {
  readonly #proc: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #enc = new TextEncoder();
  readonly ready: Promise<void>;
  #done = new Map<number, (value: unknown) => void>();
  #runs = 0;
  #onReady!: () => void;

  constructor(entry: string) {
    this.#proc = new Deno.Command(Deno.execPath(), {
      args: childArgs({
        policy: { heapMiB: 128, netAllow: [] },
        guestEntry: entry,
        runId: crypto.randomUUID(),
      }),
      cwd: CWD,
      clearEnv: true,
      env: { DENO_DIR, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#proc.stdin.getWriter();
    this.ready = new Promise((r) => (this.#onReady = r));
    this.#read();
  }

  #send(o: unknown): void {
    this.#writer.write(this.#enc.encode(JSON.stringify(o) + "\n")).catch(() => {});
  }

  async #read(): Promise<void> {
    let buf = "";
    for await (const text of this.#proc.stdout.pipeThrough(new TextDecoderStream())) {
      buf += text;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const m = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (m.ready) this.#onReady();
        else if (m.done !== undefined) {
          this.#done.get(m.done)?.(m.value);
          this.#done.delete(m.done);
        } else if (m.tool === "add") this.#send({ id: m.id, value: m.args[0] + m.args[1] });
        else if (m.tool === "sleep") {
          setTimeout(() => this.#send({ id: m.id, value: null }), m.args[0]);
        }
      }
    }
  }

  /** Runs `code` (a module whose default export is an async function) and answers its value. */
  run(code: string): Promise<unknown> {
    const run = this.#runs++;
    return new Promise((resolve) => {
      this.#done.set(run, resolve);
      this.#send({ run, code });
    });
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    try {
      this.#proc.kill("SIGKILL");
    } catch { /* gone */ }
    await this.#proc.status;
  }
}

/** Spawns a child and waits until it is ready. */
async function warmChild(entry: string): Promise<FloorChild> {
  const child = new FloorChild(entry);
  await child.ready;
  return child;
}

/** How long a floor child sits ready before its timed run, as a warm pool's child does. */
const POOL_IDLE_MS = 100;

const TRIVIAL = "export default async () => 1;";
const sequential = (n: number) =>
  `export default async () => { let s = 0; for (let i = 0; i < ${n}; i++) s = await add(s, 1); return s; };`;
const PARALLEL =
  "export default async () => (await Promise.all(Array.from({ length: 1000 }, (_, i) => add(i, 1)))).length;";
const SLEEPER = "export default async () => { await sleep(200); return 1; };";
const STEADY = `export default async () => { ${steadyCallsBody("add(s, 1)")} };`;

/** The floor's figures: p50s of the same workloads Cordon's sections measure. */
export async function floorBench(samples: number) {
  await Deno.mkdir(CWD, { recursive: true });
  await Deno.mkdir(DENO_DIR, { recursive: true });
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-floor-" });
  const entry = join(dir, "floor_child.js");
  await Deno.writeTextFile(entry, FLOOR_CHILD);
  try {
    const trivial: number[] = [];
    const perCall: number[] = [];
    const parallel: number[] = [];
    const steady: number[] = [];
    for (let i = 0; i < samples + 2; i++) {
      const child = await warmChild(entry);
      // As a pooled child does, it waits a moment before its run: its startup work is over.
      await new Promise((r) => setTimeout(r, POOL_IDLE_MS));
      let t = performance.now();
      check((await child.run(TRIVIAL)) === 1, "the floor's trivial run failed");
      const trivialMs = performance.now() - t;
      t = performance.now();
      await child.run(sequential(0));
      const zero = performance.now() - t;
      t = performance.now();
      check((await child.run(sequential(100))) === 100, "the floor's sequential calls failed");
      const hundred = performance.now() - t;
      t = performance.now();
      check((await child.run(PARALLEL)) === 1000, "the floor's parallel calls failed");
      const parallelMs = performance.now() - t;
      const steadyUs = (await child.run(STEADY)) as number;
      await child.close();
      if (i < 2) continue;
      trivial.push(trivialMs);
      perCall.push(((hundred - zero) / 100) * 1000);
      parallel.push(parallelMs);
      steady.push(steadyUs);
    }
    const concurrent = async (preSpawned: boolean) => {
      const children = preSpawned
        ? await Promise.all(Array.from({ length: 50 }, () => warmChild(entry)))
        : [];
      const t = performance.now();
      await Promise.all(Array.from({ length: 50 }, async (_, i) => {
        const child = preSpawned ? children[i] : await warmChild(entry);
        check((await child.run(SLEEPER)) === 1, "a floor sleeper failed");
        if (!preSpawned) children.push(child);
      }));
      const ms = performance.now() - t;
      await Promise.all(children.map((c) => c.close()));
      return Math.round(ms);
    };
    return {
      trivialMs: brief(trivial),
      perCallUs: brief(perCall, 1),
      perCallSteadyUs: brief(steady, 1),
      parallel1000Ms: brief(parallel),
      concurrent50SleepMs: { preSpawned: await concurrent(true), cold: await concurrent(false) },
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
