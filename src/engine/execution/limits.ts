/**
 * Per-execution limits. Each has a default (what an execution gets when it
 * asks for nothing) and a maximum (the most it may ask for); both can be set
 * when the runtime is created. Every value is a named number with a reason.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { CHILD_PIDS_MAX } from "../../sandbox/cgroup.ts";

/** The limits one execution runs under. */
export interface Limits {
  /** Wall-clock time before the child is killed with SIGKILL, in ms. */
  timeoutMs: number;
  /** V8 old-space cap, in MiB. */
  heapMiB: number;
  /** cgroup memory limit for the whole child (heap, ArrayBuffers, Wasm, runtime), in MiB. */
  memoryMiB: number;
  /**
   * Tool calls one execution may make. Steps and every `codemode` request (search, describe,
   * run, connector handle methods, readLogs/readRecovery/readResult) count too: each costs the host work
   * or a stored row, so one budget bounds them all.
   */
  maxToolCalls: number;
  /** Tool calls one execution may have unanswered at once. */
  maxCallsInFlight: number;
  /** The longest frame the child may send, in bytes. */
  maxFrameBytes: number;
  /**
   * The largest result (as encoded JSON), in bytes: the hard cap that protects the host. Past
   * it the run fails with `result_too_large`.
   */
  maxResultBytes: number;
  /**
   * The largest result (as encoded JSON, in bytes) returned inline. A larger one, up to
   * `maxResultBytes`, is stored as an artifact of the execution's namespace and the outcome's
   * `result` is a reference with a preview (`ResultReference`), read in pages with `readResult`.
   */
  inlineResultBytes: number;
  /** Console output kept per execution, in bytes; the rest is dropped and counted. */
  maxConsoleBytes: number;
  /** Console output returned inline in the result, in bytes. */
  maxInlineConsoleBytes: number;
  /** Everything the child may write to stdout in one execution, in bytes. */
  maxOutputBytes: number;
  /**
   * Processes and threads the child may have at once (the document's `MaxPIDs`), enforced by
   * the cgroup `pids` controller where the host has one (`capabilities().enforcedLimits`). A run
   * that starts more (a `new Worker`, say) fails with `limit_exceeded`.
   */
  maxPids: number;
  /**
   * An approximate percent of one CPU the child may use (the document's `CPUPercent`; up to 100
   * per core), enforced as a CFS quota where the cgroup `cpu` controller is writable. Absent:
   * no quota (the child shares the CPU with the others).
   */
  cpuPercent?: number;
}

const MiB = 1024 * 1024;

/** What an execution gets when it asks for nothing. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  // Long enough for a script making dozens of slow API calls.
  timeoutMs: 30_000,
  // Model-written glue code rarely needs more; small keeps many runs side by side.
  heapMiB: 128,
  // Deno's runtime is about 40 MiB resident; heap and buffers on top.
  memoryMiB: 384,
  // A loop that calls a tool thousands of times is almost always a bug.
  maxToolCalls: 5_000,
  // A Promise.all over a thousand items is a real pattern; a million is a flood.
  maxCallsInFlight: 1_024,
  // A result of maxResultBytes plus its envelope, with room for escaping.
  maxFrameBytes: 4 * MiB,
  // The hard cap: the largest value that fits one default frame (4 MiB) with its envelope. A
  // result past the inline limit is stored, not handed to a model, so this bounds the host's
  // memory and the store, not anyone's context.
  maxResultBytes: 4_000_000,
  // About 8,000 tokens of JSON (4 bytes a token): a model reads it in one go and keeps most of
  // its context; anything larger is better filtered in the script or read in pages.
  inlineResultBytes: 32 * 1024,
  maxConsoleBytes: 1 * MiB,
  // What fits in a model's context without crowding out the result.
  maxInlineConsoleBytes: 16 * 1024,
  // Console, frames and results together; past it the run is a flood.
  maxOutputBytes: 64 * MiB,
  // Room for a few Workers; a thread bomb stops here.
  maxPids: CHILD_PIDS_MAX,
});

/** The most any execution may ask for. */
export const DEFAULT_MAX_LIMITS: Readonly<Limits> = Object.freeze({
  timeoutMs: 120_000,
  heapMiB: 1_024,
  memoryMiB: 2_048,
  maxToolCalls: 100_000,
  maxCallsInFlight: 10_000,
  maxFrameBytes: 64 * MiB,
  maxResultBytes: 16 * MiB,
  inlineResultBytes: 16 * MiB,
  maxConsoleBytes: 16 * MiB,
  maxInlineConsoleBytes: 1 * MiB,
  maxOutputBytes: 512 * MiB,
  maxPids: CHILD_PIDS_MAX,
  // Every core of this machine.
  cpuPercent: 100 * (navigator.hardwareConcurrency || 1),
});

/** The names of every limit (`cpuPercent` has no default: without it a run has no quota). */
export const LIMIT_NAMES = Object.keys(DEFAULT_MAX_LIMITS) as (keyof Limits)[];

/**
 * The fewest tasks (processes and threads) a sandbox child needs to start and run a trivial
 * script (a console line, a tool call, a timer), scaling with the cores. Measured with Deno
 * 2.9.6 on 2 cores: a child starts its main thread, one V8 worker and one tokio worker per core
 * (5 tasks: a cold child under `maxPids: 4` dies at start, under 5 it runs the script) and
 * adds a runtime thread or two as it idles. Two per core, and four for the main thread and
 * those later threads: 8 here.
 */
export const MIN_MAX_PIDS = 2 * (navigator.hardwareConcurrency || 1) + 4;

/** The least value of a limit, where more than 1 is needed. */
export const LIMIT_MINIMA: Readonly<Partial<Record<keyof Limits, number>>> = Object.freeze({
  maxPids: MIN_MAX_PIDS,
});

function checkValue(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new CordonError(
      "invalid_request",
      `Limit ${name} must be a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  const minimum = LIMIT_MINIMA[name as keyof Limits];
  if (minimum !== undefined && value < minimum) {
    throw new CordonError(
      "invalid_request",
      `Limit ${name} must be at least ${minimum}, got ${value}`,
      { details: { limit: name, requested: value, minimum } },
    );
  }
  return value;
}

function checkKnown(partial: Record<string, unknown>): void {
  for (const key of Object.keys(partial)) {
    if (!(LIMIT_NAMES as string[]).includes(key)) {
      throw new CordonError(
        "invalid_request",
        `Unknown limit "${key}"; known limits: ${LIMIT_NAMES.join(", ")}`,
      );
    }
  }
}

/**
 * Merges configured defaults and maxima over the built-in ones. A default
 * above its maximum is a configuration error.
 */
export function configureLimits(
  defaults: Partial<Limits> = {},
  maxima: Partial<Limits> = {},
): { defaults: Limits; maxima: Limits } {
  checkKnown(defaults);
  checkKnown(maxima);
  const max = { ...DEFAULT_MAX_LIMITS } as Limits;
  for (const [k, v] of Object.entries(maxima)) {
    if (v !== undefined) max[k as keyof Limits] = checkValue(k, v);
  }
  const def = { ...DEFAULT_LIMITS } as Limits;
  for (const name of LIMIT_NAMES) {
    if (def[name] !== undefined) def[name] = Math.min(def[name], max[name]!);
  }
  for (const [k, v] of Object.entries(defaults)) {
    if (v !== undefined) def[k as keyof Limits] = checkValue(k, v);
  }
  for (const name of LIMIT_NAMES) {
    if (def[name]! > max[name]!) {
      throw new CordonError(
        "limit_exceeded",
        `Default ${name} ${def[name]} is above its maximum ${max[name]}`,
      );
    }
  }
  return { defaults: def, maxima: max };
}

/**
 * The limits for one execution: its overrides over the defaults, each
 * checked against the maximum (`limit_exceeded` names the limit and the
 * bound, so the caller can correct it).
 */
export function resolveLimits(
  defaults: Limits,
  maxima: Limits,
  overrides: Partial<Limits> | undefined,
): Limits {
  const out = { ...defaults };
  if (!overrides) return out;
  checkKnown(overrides);
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) continue;
    const name = k as keyof Limits;
    const value = checkValue(name, v);
    if (value > maxima[name]!) {
      throw new CordonError(
        "limit_exceeded",
        `${name} ${value} is above the maximum ${maxima[name]}`,
        {
          details: { limit: name, requested: value, maximum: maxima[name] },
        },
      );
    }
    out[name] = value;
  }
  return out;
}
