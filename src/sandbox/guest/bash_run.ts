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
import type { GuestConnector, LogLevel, RunParams } from "../protocol.ts";
import { type BashTool, runBash } from "./bash.ts";
import { concealPath } from "./conceal.ts";

const ARG_BASH = "--cordon-bash=";

/** The bundle a bash child was started with (from its arguments), hidden from stack traces. */
export function bashBundleUrl(args: readonly string[]): string | undefined {
  const path = args.find((a) => a.startsWith(ARG_BASH))?.slice(ARG_BASH.length);
  if (!path) return undefined;
  concealPath(path, "cordon:bash.js");
  return new URL(`file://${path}`).href;
}

/**
 * A tool's input from a command line: one JSON object (`math add '{"a": 1}'`), `key=value` pairs
 * (each value read as JSON when it is JSON: `math add a=1 b=2`), or JSON on standard input.
 */
function toolInput(args: string[], stdin: string): unknown {
  if (args.length === 0) return stdin.trim() === "" ? {} : JSON.parse(stdin);
  if (args.length === 1 && args[0].trim().startsWith("{")) return JSON.parse(args[0]);
  const input: Record<string, unknown> = {};
  for (const arg of args) {
    const eq = arg.indexOf("=");
    if (eq <= 0) {
      throw new Error(`expected key=value, or one JSON object, not ${JSON.stringify(arg)}`);
    }
    const raw = arg.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the text itself.
    }
    input[arg.slice(0, eq)] = value;
  }
  return input;
}

/**
 * One command per connector, as in TypeScript and Python through the same guest functions (so
 * every call is authorized and journaled): `math add a=1 b=2` prints the result (a string as it
 * is, anything else as JSON) and exits 0; a failed call prints `math.add: code: message` on
 * stderr and exits 1.
 */
function connectorCommands(connectors: readonly GuestConnector[]): Record<string, BashTool> {
  const out: Record<string, BashTool> = {};
  for (const c of connectors) {
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(c.name)) continue;
    out[c.name] = async (args, stdin) => {
      const [tool, ...rest] = args;
      if (!tool || !c.tools.includes(tool)) {
        const stderr = `${c.name}: usage: ${c.name} <tool> [key=value… | JSON]; tools: ${
          c.tools.join(", ")
        }\n`;
        return { stdout: "", stderr, exitCode: 2 };
      }
      let input: unknown;
      try {
        input = toolInput(rest, stdin);
      } catch (err) {
        return {
          stdout: "",
          stderr: `${c.name} ${tool}: ${(err as Error).message}\n`,
          exitCode: 2,
        };
      }
      try {
        const handle = (globalThis as Record<string, unknown>)[c.name] as Record<
          string,
          (a: unknown) => Promise<unknown>
        >;
        const value = await handle[tool](input);
        const text = typeof value === "string" ? value : JSON.stringify(value) ?? "null";
        return { stdout: text.endsWith("\n") ? text : text + "\n", stderr: "", exitCode: 0 };
      } catch (err) {
        const e = err as { code?: unknown; message?: unknown };
        const stderr = `${c.name}.${tool}: ${String(e?.code ?? "tool_error")}: ${
          String(e?.message ?? err)
        }\n`;
        return { stdout: "", stderr, exitCode: 1 };
      }
    };
  }
  return out;
}

/** Runs a bash frame; resolves with a program's exit status, or undefined for a block. */
export async function runBashFrame(
  params: RunParams,
  bundleUrl: string | undefined,
  env: Record<string, string> | undefined,
  log: (level: LogLevel, message: string) => void,
  connectors: readonly GuestConnector[] = [],
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
    tools: connectorCommands(connectors),
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
