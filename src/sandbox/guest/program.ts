/**
 * A program run in the guest: its standard input (given up front, or fed
 * by the host's `stdin` notifications while it runs), its environment (the
 * caller's variables and the workspace's, nothing of the host's), and for
 * TypeScript programs `Deno.args`, `Deno.env` and `Deno.exit`.
 *
 * @module
 */
import type { ProgramRunParams, RunParams } from "../protocol.ts";

/** Characters of input the guest holds unread; the host bounds what it sends too. */
const MAX_BUFFERED = 8 * 1024 * 1024;

/** Standard input: a buffer filled by the host and read by the program. */
export class StdinQueue {
  #buffer = "";
  #eof = false;
  #wake: (() => void)[] = [];

  /** Adds input; `eof` closes it (later input is dropped). */
  push(data: string, eof: boolean): void {
    if (this.#eof) return;
    this.#buffer += data.slice(0, Math.max(0, MAX_BUFFERED - this.#buffer.length));
    if (eof) this.#eof = true;
    for (const wake of this.#wake.splice(0)) wake();
  }

  async #until(ready: () => boolean): Promise<void> {
    while (!ready() && !this.#eof) await new Promise<void>((r) => this.#wake.push(r));
  }

  /** The next line with its `\n`; at the end of input what is left (`""` when nothing is). */
  async readLine(): Promise<string> {
    await this.#until(() => this.#buffer.includes("\n"));
    const nl = this.#buffer.indexOf("\n");
    const end = nl === -1 ? this.#buffer.length : nl + 1;
    const line = this.#buffer.slice(0, end);
    this.#buffer = this.#buffer.slice(end);
    return line;
  }

  /** What is there now, up to `max` characters, waiting only while nothing is (`""` at the end). */
  async readSome(max: number): Promise<string> {
    await this.#until(() => this.#buffer.length > 0);
    const out = this.#buffer.slice(0, max);
    this.#buffer = this.#buffer.slice(out.length);
    return out;
  }

  /** Up to `size` characters (all input to its end when `size` is negative or absent). */
  async read(size = -1): Promise<string> {
    if (size < 0) {
      await this.#until(() => false);
    } else {
      await this.#until(() => this.#buffer.length >= size);
    }
    const n = size < 0 ? this.#buffer.length : Math.min(size, this.#buffer.length);
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.slice(n);
    return out;
  }
}

/** The input of the program this child runs (a child runs one program). */
export const programStdin: StdinQueue = new StdinQueue();

/** `runs/run_20261125T010203.456`, as the document's local runtime names run directories. */
function runDirName(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `run_${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}T${
    p(now.getUTCHours())
  }${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}.${p(now.getUTCMilliseconds(), 3)}`;
}

/**
 * The program's environment: the workspace's variables (`WORKSPACE_DIR`, `SKILLS_DIR`,
 * `WORK_DIR`, `OUTPUT_DIR`, `RUN_DIR`, and `SKILL_NAME` when it runs in `skills/<name>`) under
 * the caller's. Makes the run's directory.
 */
export function programEnv(
  program: ProgramRunParams,
  workspaceDir: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (workspaceDir) {
    const runDir = `${workspaceDir}/runs/${runDirName()}`;
    try {
      Deno.mkdirSync(runDir, { recursive: true });
    } catch {
      // A script may have made runs/ a file; the variable still names the place.
    }
    env.WORKSPACE_DIR = workspaceDir;
    env.SKILLS_DIR = `${workspaceDir}/skills`;
    env.WORK_DIR = `${workspaceDir}/work`;
    env.OUTPUT_DIR = `${workspaceDir}/out`;
    env.RUN_DIR = runDir;
    const skill = /^skills\/([^/]+)/.exec(program.cwd)?.[1];
    if (skill) env.SKILL_NAME = skill;
  }
  return { ...env, ...program.env };
}

/** Thrown by a TypeScript program's `Deno.exit(code)`: the run ends with that exit status. */
export class ProgramExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/**
 * Gives a TypeScript program its `Deno.args`, `Deno.env` (the program's variables only; the
 * child itself may read none) and a `Deno.exit` that ends the run with a status instead of the
 * child. Resolves `exited` when the program calls it, wherever from.
 */
export function installTsProgram(
  program: ProgramRunParams,
  env: Record<string, string>,
): Promise<number> {
  const vars = new Map(Object.entries(env));
  const fixed = { configurable: false, enumerable: true };
  Object.defineProperty(Deno, "args", { ...fixed, value: Object.freeze([...program.args]) });
  const envApi = Object.freeze({
    get: (key: string) => vars.get(String(key)),
    has: (key: string) => vars.has(String(key)),
    set: (key: string, value: string) => void vars.set(String(key), String(value)),
    delete: (key: string) => void vars.delete(String(key)),
    toObject: () => Object.fromEntries(vars),
  });
  Object.defineProperty(Deno, "env", { ...fixed, writable: false, value: envApi });
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => exit = resolve);
  const onExit = (code = 0) => {
    const n = Number.isInteger(code) ? code & 0xff : 1;
    exit(n);
    throw new ProgramExit(n);
  };
  Object.defineProperty(Deno, "exit", { ...fixed, writable: false, value: onExit });
  Object.defineProperty(Deno, "stdin", { ...fixed, writable: false, value: programStdinFile() });
  // The program's working directory as it names it (Deno resolves relative paths against the
  // child's own, empty directory: programs use $WORKSPACE_DIR or absolute paths).
  const ws = env.WORKSPACE_DIR;
  if (ws) {
    const cwd = program.cwd ? `${ws}/${program.cwd}` : ws;
    Object.defineProperty(Deno, "cwd", { ...fixed, writable: false, value: () => cwd });
  }
  // Deno.exit() inside a timer or a promise: the exit stands, the error it throws is not a crash.
  const swallow = (e: Event & { error?: unknown; reason?: unknown }) => {
    if ((e.error ?? e.reason) instanceof ProgramExit) e.preventDefault();
  };
  globalThis.addEventListener("error", swallow);
  globalThis.addEventListener("unhandledrejection", swallow);
  return exited;
}

/**
 * Starts a program run: its input (given up front, closed unless the program is interactive),
 * its environment, and for TypeScript `Deno.args`/`env`/`exit` (`exited` settles on `Deno.exit`).
 */
export function beginProgram(
  params: RunParams & { program: ProgramRunParams },
): { env: Record<string, string>; exited?: Promise<number> } {
  const p = params.program;
  const env = programEnv(p, params.workspace?.dir);
  if (p.stdin !== undefined || !p.interactive) programStdin.push(p.stdin ?? "", !p.interactive);
  return params.language ? { env } : { env, exited: installTsProgram(p, env) };
}

/**
 * `Deno.stdin` for a TypeScript program: its `readable` stream and `read(buffer)` give the
 * program's input (never the channel to the host, which the guest keeps for itself).
 */
function programStdinFile() {
  const encoder = new TextEncoder();
  let pending: Uint8Array = new Uint8Array(0);
  let readable: ReadableStream<Uint8Array> | undefined;
  const next = async (): Promise<Uint8Array | null> => {
    if (pending.length > 0) return pending;
    const text = await programStdin.readSome(64 * 1024);
    return text === "" ? null : (pending = encoder.encode(text));
  };
  return Object.freeze({
    isTerminal: () => false,
    async read(into: Uint8Array): Promise<number | null> {
      const chunk = await next();
      if (chunk === null) return null;
      const n = Math.min(into.length, chunk.length);
      into.set(chunk.subarray(0, n));
      pending = chunk.subarray(n);
      return n;
    },
    // Made on first use, and pulled only when read: a stream never read takes no input.
    get readable(): ReadableStream<Uint8Array> {
      return readable ??= new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = await next();
          pending = new Uint8Array(0);
          if (chunk === null) controller.close();
          else controller.enqueue(chunk as Uint8Array<ArrayBuffer>);
        },
      }, { highWaterMark: 0 });
    },
  });
}
