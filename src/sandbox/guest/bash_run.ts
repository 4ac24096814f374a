/**
 * A `language: "bash"` run in the guest: the block (or a program's script)
 * through {@link runBash} on the workspace, its output as console lines
 * (stdout at level `log`, stderr at `error`), its exit status as the
 * program's, or a failed block's `script_error`.
 *
 * Inside bash, `/` is the workspace, so the workspace's variables
 * (`WORKSPACE_DIR`, `OUTPUT_DIR`, …) are given as bash sees those places.
 * A block (not a program) gets its execution's input as JSON in `$INPUT`.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { LogLevel, RunParams } from "../protocol.ts";
import { runBash } from "./bash.ts";
import { concealPath } from "./conceal.ts";

const ARG_BASH = "--cordon-bash=";

/** The bundle a bash child was started with (from its arguments), hidden from stack traces. */
export function bashBundleUrl(args: readonly string[]): string | undefined {
  const path = args.find((a) => a.startsWith(ARG_BASH))?.slice(ARG_BASH.length);
  if (!path) return undefined;
  concealPath(path, "cordon:bash.js");
  return new URL(`file://${path}`).href;
}

/** Runs a bash frame; resolves with a program's exit status, or undefined for a block. */
export async function runBashFrame(
  params: RunParams,
  bundleUrl: string | undefined,
  env: Record<string, string> | undefined,
  log: (level: LogLevel, message: string) => void,
): Promise<number | undefined> {
  if (!bundleUrl) throw new CordonError("spawn_failed", "This sandbox was not started with bash");
  const ws = params.workspace?.dir;
  const program = params.program;
  const inBash = (v: string) =>
    ws && (v === ws || v.startsWith(ws + "/")) ? v.slice(ws.length) || "/" : v;
  const lines = (level: LogLevel) => (text: string) => {
    const parts = text.split("\n");
    if (parts.at(-1) === "") parts.pop();
    for (const line of parts) log(level, line);
  };
  if (ws && program?.cwd) Deno.mkdirSync(`${ws}/${program.cwd}`, { recursive: true });
  const { exitCode } = await runBash({
    code: params.module,
    bundleUrl,
    ...(ws ? { cwd: ws } : {}),
    ...(program?.cwd ? { workDir: `/${program.cwd}` } : {}),
    ...(program ? { args: program.args, stdin: program.stdin ?? "" } : {}),
    env: env
      ? Object.fromEntries(Object.entries(env).map(([k, v]) => [k, inBash(v)]))
      // A block's input, as JSON in $INPUT (read it with jq).
      : params.input === undefined
      ? {}
      : { INPUT: JSON.stringify(params.input) ?? "null" },
    onStdout: lines("log"),
    onStderr: lines("error"),
  });
  if (program) return exitCode;
  if (exitCode !== 0) {
    throw new CordonError("script_error", `bash exited with status ${exitCode}`, {
      details: { exitCode },
    });
  }
  return undefined;
}
