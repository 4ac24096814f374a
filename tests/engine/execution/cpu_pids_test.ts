/**
 * `cpuPercent` and `maxPids` with real children: a quota holds a CPU-bound script to its share,
 * a run that starts Workers past its task limit fails `limit_exceeded` while a trivial one runs,
 * bad values are refused, and a host that cannot enforce them runs the script and says so.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult } from "../../../mod.ts";
import { MIN_MAX_PIDS } from "../../../src/engine/execution/limits.ts";

const TICKS_PER_SECOND = 100;

/** utime + stime of every thread of `pid`, in seconds. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
}

/**
 * A connector the script calls before and after it spins: the host reads the child's CPU time
 * (it tells its pid) at both, and the wall time between.
 */
function meter() {
  let start = { cpu: 0, at: 0 };
  let share = NaN;
  const connector = defineConnector({
    name: "meter",
    description: "Measures the caller's CPU share",
    tools: {
      start: {
        description: "Start",
        input: z.object({ pid: z.number() }),
        execute: async ({ pid }) =>
          void (start = { cpu: await cpuSeconds(pid), at: performance.now() }),
      },
      stop: {
        description: "Stop",
        input: z.object({ pid: z.number() }),
        execute: async ({ pid }) => {
          const cpu = await cpuSeconds(pid);
          share = (cpu - start.cpu) / ((performance.now() - start.at) / 1000);
        },
      },
    },
  });
  return { connector, share: () => share };
}

const SPIN = `
  await meter.start({ pid: Deno.pid });
  const until = Date.now() + 800;
  let n = 0;
  while (Date.now() < until) n++;
  await meter.stop({ pid: Deno.pid });
  return n > 0;
`;

function failed(
  r: ExecuteResult,
): { code: string; message: string; details?: Record<string, unknown> } {
  assert.equal(r.status, "error", Deno.inspect(r).slice(0, 600));
  return (r as { error: { code: string; message: string } }).error;
}

Deno.test("cpuPercent: 20 holds a CPU-bound script to about a fifth of a CPU", async () => {
  const m = meter();
  await using rt = await createRuntime({
    connectors: [m.connector],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
  });
  if (!rt.capabilities().enforcedLimits.cpuPercent) return; // Tested below, as not enforced.
  await rt.warm();
  const limited = await rt.execute({ code: SPIN, limits: { cpuPercent: 20 } });
  assert.equal(limited.status, "completed", Deno.inspect(limited).slice(0, 600));
  // A pooled child, spawned before its run's quota was known, was moved into it before it ran.
  assert.equal(limited.meta.pooled, true);
  assert.equal(limited.meta.cpuPercent, 20);
  assert.equal(limited.meta.limitsNotEnforced, undefined);
  const capped = m.share();
  assert.ok(capped <= 0.4, `with a 20 % quota the script used ${(capped * 100).toFixed(0)} %`);
  await rt.warm();
  const free = await rt.execute({ code: SPIN });
  assert.equal(free.status, "completed");
  const load = Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
  const idleCore = load <= navigator.hardwareConcurrency - 1;
  // Only on an idle core does an unbounded spin get most of one (children weigh little).
  if (idleCore) {
    assert.ok(
      m.share() >= 0.7,
      `without a quota: ${(m.share() * 100).toFixed(0)} % at load ${load}`,
    );
  }
});

Deno.test("a cold child (no pool) starts in its quota group: cpuPercent: 20 holds it too", async () => {
  const m = meter();
  await using rt = await createRuntime({
    connectors: [m.connector],
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
  });
  if (!rt.capabilities().enforcedLimits.cpuPercent) return; // Tested below, as not enforced.
  const r = await rt.execute({ code: SPIN, limits: { cpuPercent: 20 } });
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  assert.equal(r.meta.pooled, false);
  assert.ok(
    m.share() <= 0.4,
    `with a 20 % quota the script used ${(m.share() * 100).toFixed(0)} %`,
  );
});

Deno.test("maxPids: Workers past the limit fail limit_exceeded; a trivial script runs under it", async () => {
  await using rt = await createRuntime({
    connectors: [],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
  });
  const limits = { maxPids: MIN_MAX_PIDS };
  const trivial = await rt.execute({ code: "console.log('hi'); return 1 + 1", limits });
  assert.equal(trivial.status, "completed", Deno.inspect(trivial).slice(0, 600));
  assert.equal(trivial.meta.maxPids, MIN_MAX_PIDS);
  if (!rt.capabilities().enforcedLimits.maxPids) return; // Tested below, as not enforced.
  const workers = `
    const ws = [];
    for (let i = 0; i < 8; i++) ws.push(new Worker("data:text/javascript,postMessage(1)", { type: "module" }));
    await Promise.all(ws.map((w) => new Promise((r) => (w.onmessage = r))));
    return ws.length;
  `;
  const e = failed(await rt.execute({ code: workers, limits }));
  assert.equal(e.code, "limit_exceeded", e.message);
  assert.equal(e.details?.limit, "maxPids");
  assert.equal(e.details?.maxPids, MIN_MAX_PIDS);
  assert.match(e.message, new RegExp(`more than ${MIN_MAX_PIDS} threads`));
  // The default leaves room for them.
  const ok = await rt.execute({ code: workers });
  assert.equal(ok.status, "completed", Deno.inspect(ok).slice(0, 600));
});

Deno.test("cpuPercent and maxPids out of bounds are refused with the bound", async () => {
  await using rt = await createRuntime({
    connectors: [],
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    maxLimits: { maxPids: 64, cpuPercent: 50 },
  });
  const caps = rt.capabilities();
  assert.equal(caps.maxLimits.maxPids, 64);
  assert.equal(caps.limits.maxPids, 64, "the default is lowered to a configured maximum");
  assert.equal(caps.limits.cpuPercent, undefined, "no quota unless asked for");
  const low = failed(await rt.execute({ code: "return 1", limits: { maxPids: MIN_MAX_PIDS - 1 } }));
  assert.equal(low.code, "invalid_request");
  assert.match(low.message, new RegExp(`at least ${MIN_MAX_PIDS}`));
  assert.equal(low.details?.minimum, MIN_MAX_PIDS);
  const high = failed(await rt.execute({ code: "return 1", limits: { cpuPercent: 51 } }));
  assert.equal(high.code, "limit_exceeded");
  assert.equal(high.details?.maximum, 50);
  for (const bad of [0, -5, 2.5, "20"]) {
    const r = failed(await rt.execute({ code: "return 1", limits: { cpuPercent: bad as number } }));
    assert.equal(r.code, "invalid_request", String(bad));
  }
  await assert.rejects(
    createRuntime({ connectors: [], db: ":memory:", limits: { maxPids: 2 } }),
    (err: Error & { code?: string }) =>
      err.code === "invalid_request" && /at least/.test(err.message),
  );
});

Deno.test("a host without cgroups runs the script and reports the limits it did not enforce", async () => {
  await using rt = await createRuntime({
    connectors: [],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
    sandbox: { cgroups: "off" },
  });
  assert.deepEqual(rt.capabilities().enforcedLimits, {
    memoryMiB: false,
    cpuPercent: false,
    maxPids: false,
  });
  const r = await rt.execute({ code: "return 6 * 7", limits: { cpuPercent: 20, maxPids: 32 } });
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  assert.equal((r as { result: unknown }).result, 42);
  assert.deepEqual(r.meta.limitsNotEnforced, ["memoryMiB", "cpuPercent", "maxPids"]);
  const plain = await rt.execute({ code: "return 1" });
  assert.deepEqual(plain.meta.limitsNotEnforced, ["memoryMiB", "maxPids"]);
});

Deno.test("on a host that enforces them, a run's limits are not reported", async () => {
  await using rt = await createRuntime({
    connectors: [],
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
  });
  const enforced = rt.capabilities().enforcedLimits;
  const r = await rt.execute({ code: "return 1", limits: { cpuPercent: 30, maxPids: 64 } });
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  const expected = (["memoryMiB", "cpuPercent", "maxPids"] as const).filter((l) => !enforced[l]);
  assert.deepEqual(r.meta.limitsNotEnforced ?? [], expected);
});
