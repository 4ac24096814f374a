/**
 * The `program` of an execution request (set by `runProgram`/`startProgram`):
 * checked here, at admission, because it reaches the guest as it is and is
 * stored with the execution (a replay or resume runs the program with the
 * same arguments and environment).
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { ProgramRunParams } from "../../sandbox/protocol.ts";

const MAX_ARGS = 1024;
const MAX_TEXT = 4 * 1024 * 1024;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function bad(message: string): CordonError {
  return new CordonError("invalid_request", `program: ${message}`);
}

function text(v: unknown, what: string): string {
  if (typeof v !== "string" || v.length > MAX_TEXT) throw bad(`${what} must be a string`);
  return v;
}

/** A copy of `raw` with every field checked; throws `invalid_request` otherwise. */
export function checkProgramParams(raw: unknown): ProgramRunParams {
  if (!raw || typeof raw !== "object") throw bad("must be an object");
  const p = raw as Record<string, unknown>;
  if (!Array.isArray(p.args) || p.args.length > MAX_ARGS) {
    throw bad("args must be an array of strings");
  }
  const env = p.env ?? {};
  if (typeof env !== "object" || Array.isArray(env)) throw bad("env must be an object of strings");
  const vars = Object.entries(env as Record<string, unknown>);
  if (vars.length > 256) throw bad("env has too many entries");
  for (const [k, v] of vars) {
    if (!ENV_NAME.test(k)) throw bad(`"${k.slice(0, 64)}" is not an environment variable name`);
    text(v, `env.${k}`);
  }
  const cwd = text(p.cwd ?? "", "cwd");
  if (cwd.startsWith("/") || cwd.split("/").includes("..") || cwd.includes("\0")) {
    throw bad("cwd must stay inside the workspace");
  }
  return {
    argv0: text(p.argv0, "argv0"),
    args: p.args.map((a, i) => text(a, `args[${i}]`)),
    env: Object.fromEntries(vars) as Record<string, string>,
    cwd,
    ...(p.stdin !== undefined ? { stdin: text(p.stdin, "stdin") } : {}),
    interactive: p.interactive === true,
  };
}
