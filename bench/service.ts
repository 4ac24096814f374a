/**
 * The HTTP service against the library it wraps. One service is started
 * in-process with `startService()`; the library figures call its own
 * `service.runtime`, so the runtime, pool and store are the same and only
 * the HTTP layer (client `fetch`, `Deno.serve`, Hono, validation, JSON) differs.
 *
 * - Rate: `concurrency` workers loop trivial executions for a window after a
 *   warm-up, library and HTTP alternately (A B A B), since a 2-core machine
 *   drifts. `ratio` = mean HTTP rate ÷ mean library rate.
 * - Latency: one client, sequential, a library and an HTTP execution in
 *   turn, each on a ready pooled child; `overheadMs` is the paired difference.
 * - Floors: `GET /healthz` (the app with no execution) and a bare
 *   `Deno.serve` answering a constant (fetch and the server alone).
 *
 * Run alone (JSON on stdout): `deno run -A bench/service.ts [--quick]`.
 *
 * @module
 */
import { type Service, startService } from "../src/service/server/server.ts";
import { completed, TRIVIAL } from "./setup.ts";
import { brief, check, progress, round, sleep, timed } from "./stats.ts";

/** How long and how much the service section measures. */
export interface ServiceBenchOptions {
  /** Length of each counted rate window (ms). */
  windowMs: number;
  /** Uncounted lead-in before each window (ms). */
  warmupMs: number;
  /** Library/HTTP pairs timed for latency, after `latencyWarmup` uncounted ones. */
  latencySamples: number;
  latencyWarmup: number;
  /** Concurrent clients in the rate windows (the figure is 16). */
  concurrency: number;
  /** Warm children; one per client, so a burst of 16 does not start with cold spawns. */
  poolSize: number;
}

/** Full and quick runs. */
export const SERVICE_SAMPLES: Record<"full" | "quick", ServiceBenchOptions> = {
  full: {
    windowMs: 5_000,
    warmupMs: 1_000,
    latencySamples: 300,
    latencyWarmup: 30,
    concurrency: 16,
    poolSize: 16,
  },
  quick: {
    windowMs: 2_000,
    warmupMs: 500,
    latencySamples: 60,
    latencyWarmup: 10,
    concurrency: 16,
    poolSize: 16,
  },
};

/** The HTTP rate must keep this share of the library's. */
const RATIO_TARGET = 0.85;
/** p50 of one trivial execution over HTTP (ms). */
const HTTP_P50_TARGET_MS = 5;
const BODY = JSON.stringify({ code: TRIVIAL, typecheck: "off" });

/** The outcome of one execution, either way: did it complete with 1, from a pooled child? */
interface Outcome {
  ok: boolean;
  pooled: boolean;
}

async function viaLibrary(service: Service): Promise<Outcome> {
  const out = await service.runtime.execute({ code: TRIVIAL, typecheck: "off" });
  return { ok: out.status === "completed" && out.result === 1, pooled: out.meta.pooled };
}

async function viaHttp(service: Service): Promise<Outcome> {
  const res = await fetch(`${service.url}/v1/executions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: BODY,
  });
  const body = await res.json().catch(() => undefined);
  return {
    ok: res.status === 200 && body?.status === "completed" && body.result === 1,
    pooled: body?.meta?.pooled === true,
  };
}

/** CPU time (ms) of this process and of its reaped children, from /proc/self/stat. */
async function cpuMs(): Promise<{ host: number; children: number }> {
  const stat = await Deno.readTextFile("/proc/self/stat").catch(() => "");
  if (!stat) return { host: NaN, children: NaN };
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
  // utime, stime, cutime, cstime are fields 14–17; a tick is 10 ms on Linux (USER_HZ 100).
  return { host: (f[11] + f[12]) * 10, children: (f[13] + f[14]) * 10 };
}

/** One rate window: `workers` loops of `op`; only completions inside the window count. */
async function rate(op: () => Promise<Outcome>, o: ServiceBenchOptions) {
  const start = performance.now();
  const counted = start + o.warmupMs;
  const end = counted + o.windowMs;
  let done = 0;
  let failed = 0;
  let pooled = 0;
  let cpuAtWindow: Promise<{ host: number; children: number }> | undefined;
  await Promise.all(Array.from({ length: o.concurrency }, async () => {
    while (performance.now() < end) {
      const out = await op();
      const at = performance.now();
      if (at >= counted) cpuAtWindow ??= cpuMs();
      if (at < counted || at > end) continue;
      if (!out.ok) failed++;
      else done++;
      if (out.pooled) pooled++;
    }
  }));
  const cpu1 = await cpuMs();
  const cpu0 = await cpuAtWindow!;
  return {
    perSec: round((done / o.windowMs) * 1000, 1),
    executions: done,
    failed,
    fromPool: pooled,
    // Approximate: in-flight work at the window's edges and children reaped after it blur it.
    hostCpuMsPerExec: round((cpu1.host - cpu0.host) / Math.max(1, done), 2),
    childCpuMsPerExec: round((cpu1.children - cpu0.children) / Math.max(1, done), 2),
  };
}

type Window = Awaited<ReturnType<typeof rate>>;

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Library and HTTP rates, alternately, twice. */
async function rates(service: Service, o: ServiceBenchOptions) {
  const library: Window[] = [];
  const http: Window[] = [];
  for (let pass = 1; pass <= 2; pass++) {
    for (
      const [name, op, into] of [
        ["library", viaLibrary, library],
        ["http", viaHttp, http],
      ] as const
    ) {
      await service.runtime.warm();
      await sleep(200);
      const w = await rate(() => op(service), o);
      progress(`  ${name} ${pass}: ${w.perSec}/s (${w.fromPool} pooled, ${w.failed} failed)`);
      into.push(w);
    }
  }
  return { library, http };
}

/** Sequential latency: a library and an HTTP execution in turn, each on a ready child. */
async function latency(service: Service, o: ServiceBenchOptions) {
  const library: number[] = [];
  const http: number[] = [];
  const overhead: number[] = [];
  for (let i = 0; i < o.latencyWarmup + o.latencySamples; i++) {
    await service.runtime.warm();
    const a = await timed(() => viaLibrary(service));
    await service.runtime.warm();
    const b = await timed(() => viaHttp(service));
    check(a.value.ok && b.value.ok, "a sequential trivial execution did not complete with 1");
    check(a.value.pooled && b.value.pooled, "a sequential execution did not come from the pool");
    if (i < o.latencyWarmup) continue;
    library.push(a.ms);
    http.push(b.ms);
    overhead.push(b.ms - a.ms);
  }
  return { library: brief(library), http: brief(http), overhead: brief(overhead) };
}

/** Sequential round trips of a request that runs nothing. */
async function roundTrips(url: string, o: ServiceBenchOptions) {
  const times: number[] = [];
  for (let i = 0; i < o.latencyWarmup + o.latencySamples; i++) {
    const { ms, value } = await timed(async () => {
      const res = await fetch(url);
      await res.arrayBuffer();
      return res.status;
    });
    check(value === 200, `GET ${url} answered ${value}`);
    if (i >= o.latencyWarmup) times.push(ms);
  }
  return brief(times, 3);
}

/** `fetch` to a bare `Deno.serve` in this process answering a constant: the transport floor. */
async function bareServeFloor(o: ServiceBenchOptions) {
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (addr) => listening.resolve(addr),
  }, () => new Response('{"ok":true}', { headers: { "content-type": "application/json" } }));
  try {
    const addr = await listening.promise;
    return await roundTrips(`http://127.0.0.1:${addr.port}/`, o);
  } finally {
    await server.shutdown();
  }
}

/** The service section: HTTP against the library in one run, on one runtime. */
export async function serviceBench(o: ServiceBenchOptions) {
  const dataDir = await Deno.makeTempDir({ prefix: "cordon-bench-service-" });
  try {
    const service = await startService({
      host: "127.0.0.1",
      port: 0,
      dataDir,
      pool: { size: o.poolSize },
      typecheck: "off",
      builtins: { state: false },
    }, { shutdownGraceMs: 5_000 });
    try {
      check(!(await service.authRequired()), "the bench service should need no key on loopback");
      completed(await service.runtime.execute({ code: TRIVIAL }), 1);
      const r = await rates(service, o);
      progress("  sequential latency…");
      const seq = await latency(service, o);
      const healthzMs = await roundTrips(`${service.url}/healthz`, o);
      const bareServeMs = await bareServeFloor(o);
      const libraryPerSec = round(mean(r.library.map((w) => w.perSec)), 1);
      const httpPerSec = round(mean(r.http.map((w) => w.perSec)), 1);
      const ratio = round(httpPerSec / libraryPerSec, 3);
      return {
        libraryPerSec,
        httpPerSec,
        ratio,
        target: RATIO_TARGET,
        met: ratio >= RATIO_TARGET,
        httpP50Ms: seq.http.p50,
        httpP95Ms: seq.http.p95,
        libraryP50Ms: seq.library.p50,
        libraryP95Ms: seq.library.p95,
        overheadP50Ms: seq.overhead.p50,
        overheadP95Ms: seq.overhead.p95,
        targetP50Ms: HTTP_P50_TARGET_MS,
        p50Met: seq.http.p50 <= HTTP_P50_TARGET_MS,
        healthzMs,
        bareServeMs,
        windows: { library: r.library, http: r.http },
        windowMs: o.windowMs,
        warmupMs: o.warmupMs,
        concurrency: o.concurrency,
        poolSize: o.poolSize,
        latencySamples: o.latencySamples,
      };
    } finally {
      await service.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

if (import.meta.main) {
  const o = SERVICE_SAMPLES[Deno.args.includes("--quick") ? "quick" : "full"];
  console.log(JSON.stringify(await serviceBench(o), null, 2));
}
