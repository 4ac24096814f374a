/**
 * The guest's Python runner. A child started for Python (its arguments name Pyodide's directory,
 * which is all it may read besides its workspace) loads Pyodide before it says `ready`, from the
 * host's snapshot when there is one, and runs each `language: "python"` frame with
 * `python_boot.ts`'s `_cordon_run`. Connector calls go through the same guest functions a
 * TypeScript script calls (so authorization, the journal, approvals and replay apply unchanged);
 * `print` goes to the guest's console capture; packages load from the host's copy only.
 *
 * Runs inside the child: nothing but the shared protocol, errors and the guest's own modules.
 *
 * @module
 */
import { CordonError, type ErrorInfo, isErrorCode } from "../../errors.ts";
import {
  ARG_PYODIDE,
  ARG_PYODIDE_SNAPSHOT as ARG_SNAPSHOT,
  type GuestConnector,
  type LogLevel,
  type RunParams,
} from "../protocol.ts";
import { concealPath } from "./conceal.ts";
import { explainPermission } from "./permissions.ts";
import { PYTHON_BOOT } from "./python_boot.ts";
import { PythonOutput, type RawWriter } from "./python_output.ts";
import { programStdin } from "./program.ts";

/** What the guest was told about Python on its command line. */
export interface PythonArgs {
  dir: string;
  snapshot?: string;
}

/** What stands for Pyodide's directory in anything the script can read. */
const PYODIDE_NAME = "cordon:pyodide/";

interface PyCallable {
  (...args: unknown[]): Promise<unknown>;
}
interface Pyodide {
  runPythonAsync(code: string): Promise<unknown>;
  setStdout(options: RawWriter): void;
  setStderr(options: RawWriter): void;
  registerJsModule(name: string, module: object): void;
  globals: { get(name: string): PyCallable };
  FS: { mkdirTree(path: string): void };
  mountNodeFS(emscriptenPath: string, hostPath: string): void;
  _api?: { config?: Record<string, unknown> };
}

let py: Pyodide | undefined;
let output: PythonOutput | undefined;
let runner: PyCallable | undefined;
/** Workspaces mounted in Pyodide's file system (at their own paths). */
const mounted = new Set<string>();

/** Failed calls by token: only a token this guest made turns a Python exception into its code. */
const failures = new Map<string, ErrorInfo>();

/**
 * The Python arguments this child was started with, or `undefined` for a TypeScript child.
 * Reads `Deno.args` once and empties it, so the script never sees the host's paths there.
 */
export function pythonArgs(): PythonArgs | undefined {
  const args = [...Deno.args];
  // Configurable: a TypeScript program run gives the script its own arguments here.
  Object.defineProperty(Deno, "args", { value: Object.freeze([]), configurable: true });
  const dir = args.find((a) => a.startsWith(ARG_PYODIDE))?.slice(ARG_PYODIDE.length);
  if (!dir) return undefined;
  const snapshot = args.find((a) => a.startsWith(ARG_SNAPSHOT))?.slice(ARG_SNAPSHOT.length);
  return { dir, ...(snapshot ? { snapshot } : {}) };
}

/**
 * Pyodide schedules each step of Python's event loop with `setTimeout(fn, 0)` under Deno, which
 * timers clamp to 4 ms once nested (measured: 8 ms per tool call from Python). Zero-delay timeouts
 * go through a MessageChannel instead: still a task (I/O and the host's frames keep their turn),
 * not clamped. Ids below zero are these; `clearTimeout` knows both kinds.
 */
function unclampZeroTimeouts(): void {
  const native = { set: globalThis.setTimeout, clear: globalThis.clearTimeout };
  const queued = new Map<number, () => void>();
  const channel = new MessageChannel();
  let next = -1;
  channel.port1.onmessage = (e: MessageEvent<number>) => {
    const fn = queued.get(e.data);
    queued.delete(e.data);
    fn?.();
  };
  const setTimeout = (fn: unknown, delay?: number, ...args: unknown[]) => {
    if (typeof fn !== "function" || (Number(delay) || 0) > 0) {
      return Reflect.apply(native.set, globalThis, [fn, delay, ...args]) as number;
    }
    const id = next--;
    queued.set(id, () => fn(...args));
    channel.port2.postMessage(id);
    return id;
  };
  const clearTimeout = (id?: number) => {
    if (typeof id === "number" && id < 0) queued.delete(id);
    else native.clear(id);
  };
  Object.assign(globalThis, { setTimeout, clearTimeout });
}

/**
 * Loads Pyodide from `args.dir` (restoring the snapshot when given) with `print` sent to `log`,
 * then runs the boot code. Packages resolve against the host's directory only.
 */
export async function loadPython(
  args: PythonArgs,
  log: (level: LogLevel, message: string) => void,
): Promise<void> {
  unclampZeroTimeouts();
  const indexURL = args.dir.endsWith("/") ? args.dir : `${args.dir}/`;
  concealPath(indexURL, PYODIDE_NAME);
  concealPath(indexURL.slice(0, -1), PYODIDE_NAME.slice(0, -1));
  const { loadPyodide } = await import(new URL(`file://${indexURL}pyodide.mjs`).href);
  const options = {
    indexURL,
    packageCacheDir: indexURL,
    packageBaseUrl: indexURL,
    stdout: (line: string) => log("log", line),
    stderr: (line: string) => log("error", line),
    // The child's real stdin carries the host's frames: Python reads end of file instead.
    stdin: () => null,
  };
  let loaded: Pyodide;
  try {
    const snapshot = args.snapshot ? Deno.readFileSync(args.snapshot) : undefined;
    loaded = await loadPyodide({ ...options, ...(snapshot ? { _loadSnapshot: snapshot } : {}) });
  } catch (err) {
    if (!args.snapshot) throw err;
    // A snapshot that does not restore (damaged, or of another build): boot without it.
    loaded = await loadPyodide(options);
  }
  py = loaded;
  // Bytes as Python flushes them, so a prompt shows before the program waits for input.
  output = new PythonOutput(log);
  py.setStdout(output.writer("log"));
  py.setStderr(output.writer("error"));
  py.registerJsModule("_cordon_host", {
    call,
    stdin_readline: () => programStdin.readLine(),
    stdin_read: (size: number) => programStdin.read(Number(size)),
    flush_output: () => output?.flush(),
  });
  await py.runPythonAsync(PYTHON_BOOT);
  runner = py.globals.get("_cordon_run");
  // Rehearsed once before `ready`, as the TypeScript guest rehearses its run: the first real run
  // finds the runner's code paths warm (measured: 26 ms for a pooled child's first block, 4–12 ms
  // after).
  await runner("None", "null", "{}", "");
  // Anything later that asks Pyodide where it lives reads the neutral name, not the host path.
  const config = py._api?.config;
  if (config) {
    for (const key of ["indexURL", "packageCacheDir", "packageBaseUrl", "lockFileURL"]) {
      if (typeof config[key] === "string") config[key] = PYODIDE_NAME;
    }
  }
}

/** A tool call from Python, through the connector global TypeScript scripts call. */
async function call(connector: string, tool: string, argsJson: string | undefined) {
  try {
    const handle = (globalThis as Record<string, unknown>)[String(connector)] as
      | Record<string, (args: unknown) => Promise<unknown>>
      | undefined;
    const fn = handle?.[String(tool)];
    if (typeof fn !== "function") {
      throw new CordonError("tool_not_found", `${connector}.${tool} is not a tool of this run`);
    }
    const value = await fn(argsJson == null ? undefined : JSON.parse(String(argsJson)));
    return JSON.stringify({ ok: true, value });
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown; details?: unknown };
    const code = typeof e?.code === "string" && isErrorCode(e.code) ? e.code : "tool_error";
    const info: ErrorInfo = { code, message: String(e?.message ?? err) };
    if (e?.details !== undefined) info.details = e.details as Record<string, unknown>;
    const token = crypto.randomUUID();
    failures.set(token, info);
    return JSON.stringify({ ok: false, token, ...info });
  }
}

/** True once Pyodide is loaded in this child. */
export function hasPython(): boolean {
  return runner !== undefined;
}

/**
 * Runs one Python frame: mounts the workspace at its own path and makes it the working
 * directory, runs the block, and returns its plain result or throws the run's `CordonError`.
 */
export async function runPython(
  params: RunParams,
  connectors: readonly GuestConnector[],
  env?: Record<string, string>,
): Promise<unknown> {
  if (!py || !runner) {
    throw new CordonError("spawn_failed", "This sandbox was not started with Python");
  }
  const dir = params.workspace?.dir;
  if (dir && !mounted.has(dir)) {
    py.FS.mkdirTree(dir);
    py.mountNodeFS(dir, dir);
    mounted.add(dir); // A session's later runs find it mounted.
  }
  const tools = Object.fromEntries(connectors.map((c) => [c.name, c.tools]));
  let input = "null";
  try {
    input = JSON.stringify(params.input ?? null) ?? "null";
  } catch {
    // An input JSON cannot carry (a bigint): Python sees None.
  }
  const program = params.program ? JSON.stringify({ ...params.program, env: env ?? {} }) : "";
  const text = await runner(params.module, input, JSON.stringify(tools), dir ?? "", program);
  // An unfinished last line is the run's too.
  output?.flush();
  let out: Record<string, unknown>;
  try {
    out = JSON.parse(String(text));
  } catch {
    throw new CordonError("script_error", "The Python run ended without a readable outcome");
  }
  if (out.ok === true) return out.value;
  const location = typeof out.line === "number"
    ? { line: out.line, column: typeof out.column === "number" ? out.column : 1 }
    : undefined;
  if (out.kind === "tool") {
    const info = failures.get(String(out.token));
    if (info) throw new CordonError(info.code, info.message, { details: info.details, location });
  }
  if (out.kind === "result") {
    throw new CordonError(
      "result_not_serializable",
      `The result cannot be returned: ${String(out.path)} is ${String(out.what)}`,
      { details: { path: String(out.path) } },
    );
  }
  // A refused permission reached through `js` reads in Cordon's words, as in TypeScript.
  const message = new Error(String(out.message ?? "Python error"));
  const permission = explainPermission(message);
  const details: Record<string, unknown> = {
    name: String(out.name ?? "Exception"),
    traceback: String(out.traceback ?? ""),
  };
  if (permission !== undefined) details.permission = permission;
  throw new CordonError("script_error", message.message, { details, location });
}
