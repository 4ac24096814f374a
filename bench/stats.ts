/**
 * Small helpers for the benchmarks: percentiles, timing, progress on
 * stderr. Nothing here knows about Cordon.
 *
 * @module
 */

/** A sample set reduced to the figures the summary reports. */
export interface Summary {
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
  n: number;
}

/** The `p`-th percentile (0–100) of `values`, by linear interpolation between ranks. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** Rounds to `digits` decimals (for a readable JSON summary). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** p50, p95, p99, min, max and mean of `values`, rounded. */
export function summarize(values: readonly number[], digits = 2): Summary {
  const n = values.length;
  const mean = n === 0 ? NaN : values.reduce((a, b) => a + b, 0) / n;
  return {
    p50: round(percentile(values, 50), digits),
    p95: round(percentile(values, 95), digits),
    p99: round(percentile(values, 99), digits),
    min: round(n === 0 ? NaN : Math.min(...values), digits),
    max: round(n === 0 ? NaN : Math.max(...values), digits),
    mean: round(mean, digits),
    n,
  };
}

/** The short form the summary uses for most figures. */
export function brief(values: readonly number[], digits = 2): { p50: number; p95: number } {
  return {
    p50: round(percentile(values, 50), digits),
    p95: round(percentile(values, 95), digits),
  };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `fn` and returns its wall time in milliseconds along with its value. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Progress for the person watching; stdout stays reserved for the JSON summary. */
export function progress(message: string): void {
  console.error(`[bench] ${message}`);
}

/** Throws unless `cond` holds (a benchmark that measured the wrong thing is worse than none). */
export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(`bench: ${message}`);
}

/** CPU time counters (clock ticks): the whole machine's busy time and this process tree's. */
export interface CpuSnapshot {
  busy: number;
  total: number;
  own: number;
}

/** Reads /proc/stat and /proc/self/stat (Linux); zeros elsewhere. */
export async function cpuSnapshot(): Promise<CpuSnapshot> {
  try {
    const stat = await Deno.readTextFile("/proc/stat");
    const f = stat.split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
    const busy = user + nice + system + irq + softirq + steal;
    const self = await Deno.readTextFile("/proc/self/stat");
    // utime, stime, cutime, cstime: fields 14–17; cutime/cstime cover reaped children.
    const s = self.slice(self.lastIndexOf(")") + 2).split(" ").map(Number);
    const own = s[11] + s[12] + s[13] + s[14];
    return { busy, total: busy + idle + iowait, own };
  } catch {
    return { busy: 0, total: 0, own: 0 };
  }
}

/**
 * How busy the machine was with other work between two snapshots, as a
 * percentage of all CPUs. Above a few percent, the figures are disturbed.
 */
export function otherCpuPercent(a: CpuSnapshot, b: CpuSnapshot): number {
  const total = b.total - a.total;
  if (total <= 0) return 0;
  return round((Math.max(0, b.busy - a.busy - (b.own - a.own)) / total) * 100, 1);
}

/**
 * Runs a bench module (`moduleUrl`) in a fresh `deno` child with `--json --samples=<n>` and
 * returns the JSON it prints, so cold figures are really cold and the child's imports stay out
 * of this process.
 */
export async function inFreshChild<T>(
  moduleUrl: string,
  samples: number,
  what: string,
  flags: string[] = [],
): Promise<T> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...flags,
      "--allow-all",
      new URL(moduleUrl).pathname,
      "--json",
      `--samples=${samples}`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  check(out.success, `the ${what} benchmark failed (exit ${out.code})`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
