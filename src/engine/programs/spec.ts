/**
 * Checks a {@link RunProgramSpec} before anything starts: every field is
 * bounded, the working directory stays inside the workspace, environment
 * names are plain.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { InteractiveProgramSpec, ResourceLimits, RunProgramSpec } from "./types.ts";

/** Bounds of a spec. */
export const PROGRAM_LIMITS: Readonly<{
  cmdChars: number;
  args: number;
  argChars: number;
  envEntries: number;
  envChars: number;
  stdinChars: number;
}> = Object.freeze({
  cmdChars: 4096,
  args: 1024,
  argChars: 256 * 1024,
  envEntries: 256,
  envChars: 64 * 1024,
  stdinChars: 4 * 1024 * 1024,
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function bad(message: string): CordonError {
  return new CordonError("invalid_request", message);
}

/** A workspace-relative directory: no absolute path, no `..`, no NUL. `""` is the root. */
export function checkCwd(cwd: unknown): string {
  if (cwd === undefined || cwd === "" || cwd === ".") return "";
  if (typeof cwd !== "string" || cwd.length > 1024 || cwd.includes("\0")) {
    throw bad("cwd must be a workspace-relative path");
  }
  const parts = cwd.replace(/\\/g, "/").split("/").filter((p) => p !== "" && p !== ".");
  if (cwd.startsWith("/") || parts.some((p) => p === "..")) {
    throw bad(`cwd "${cwd}" leaves the workspace: give a path relative to its root, without ..`);
  }
  return parts.join("/");
}

/** The spec, checked and copied (nothing of the caller's objects is kept). */
export function checkProgramSpec(spec: RunProgramSpec | InteractiveProgramSpec): RunProgramSpec {
  if (!spec || typeof spec !== "object") throw bad("A program spec is an object with a cmd");
  const { cmd, args = [], env = {}, stdin, timeoutMs, limits } = spec;
  if (typeof cmd !== "string" || cmd.trim() === "" || cmd.length > PROGRAM_LIMITS.cmdChars) {
    throw bad("cmd must be a non-empty string");
  }
  if (!Array.isArray(args) || args.length > PROGRAM_LIMITS.args) {
    throw bad(`args must be an array of at most ${PROGRAM_LIMITS.args} strings`);
  }
  for (const a of args) {
    if (typeof a !== "string" || a.length > PROGRAM_LIMITS.argChars) {
      throw bad(`Each argument must be a string of at most ${PROGRAM_LIMITS.argChars} characters`);
    }
  }
  if (!env || typeof env !== "object" || Array.isArray(env)) {
    throw bad("env must be an object of strings");
  }
  const entries = Object.entries(env);
  let envChars = 0;
  if (entries.length > PROGRAM_LIMITS.envEntries) throw bad("env has too many entries");
  for (const [k, v] of entries) {
    if (!ENV_NAME.test(k)) throw bad(`"${k.slice(0, 64)}" is not an environment variable name`);
    if (typeof v !== "string" || v.includes("\0")) {
      throw bad(`env.${k} must be a string without NUL`);
    }
    envChars += k.length + v.length;
  }
  if (envChars > PROGRAM_LIMITS.envChars) throw bad("env is too large");
  if (
    stdin !== undefined && (typeof stdin !== "string" || stdin.length > PROGRAM_LIMITS.stdinChars)
  ) {
    throw bad(`stdin must be a string of at most ${PROGRAM_LIMITS.stdinChars} characters`);
  }
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw bad("timeoutMs must be a positive number");
  }
  if (limits !== undefined) {
    if (!limits || typeof limits !== "object") throw bad("limits must be an object");
    for (const key of ["cpuPercent", "memoryMB", "maxPIDs"] as const) {
      const v = limits[key];
      if (v !== undefined && (!Number.isSafeInteger(v) || v <= 0)) {
        throw bad(`limits.${key} must be a positive whole number`);
      }
    }
  }
  if ((spec as InteractiveProgramSpec).tty === true) {
    throw new CordonError("not_supported", "A terminal (tty) is not offered: programs get pipes");
  }
  return {
    cmd,
    args: [...args],
    env: Object.fromEntries(entries),
    cwd: checkCwd(spec.cwd),
    ...(stdin !== undefined ? { stdin } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(limits ? { limits: { ...limits } } : {}),
  };
}

/**
 * A program's `ResourceLimits` as execution limits: `cpuPercent`, `memoryMB` (as `memoryMiB`)
 * and `maxPIDs` (as `maxPids`), each only when given (zero means "not set", as in the document).
 */
export function programLimits(
  limits: ResourceLimits,
): { cpuPercent?: number; memoryMiB?: number; maxPids?: number } {
  return {
    ...(limits.cpuPercent ? { cpuPercent: limits.cpuPercent } : {}),
    ...(limits.memoryMB ? { memoryMiB: limits.memoryMB } : {}),
    ...(limits.maxPIDs ? { maxPids: limits.maxPIDs } : {}),
  };
}
