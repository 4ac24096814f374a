/**
 * The stdio transport: an MCP server as a child process, one JSON-RPC
 * message per line on its stdin and stdout.
 *
 * Written here rather than taken from the SDK (`StdioClientTransport`)
 * because Cordon must leave no process behind, and servers are often
 * started through wrappers (`npx`, `uvx`, `sh -c`) whose own children the
 * SDK's transport cannot reach: it signals the wrapper only. This one
 * starts the server in its own process group (`detached`, i.e. `setsid`)
 * and signals the whole group. It also keeps the host's environment out
 * (only a few safe variables plus the configured ones) and keeps the tail
 * of the server's stderr for error messages. Framing is the SDK's.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { detectOrphanGuard } from "../../sandbox/orphan_guard.ts";
import { UndeliveredError } from "./errors.ts";
import {
  getDefaultEnvironment,
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from "./sdk.ts";

/** How long a server may take to exit after its stdin closes before it gets SIGTERM. */
export const GRACEFUL_EXIT_MS = 1_000;

/** How long a server may take to exit after SIGTERM before the group gets SIGKILL. */
export const TERM_GRACE_MS = 1_000;

/**
 * How long stdout and stderr may stay open after the server exited (a
 * grandchild that left the group may hold them) before they are cut.
 */
export const PIPE_DRAIN_MS = 500;

/** Characters of stderr kept for error messages: enough for a stack trace's head. */
export const STDERR_TAIL_CHARS = 4_000;

/** What to start. */
export interface ProcessTransportOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

const encoder = new TextEncoder();

/** A child-process MCP transport that stops its whole process group on close. */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: ProcessTransportOptions;
  readonly #readBuffer = new ReadBuffer();
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #exited?: Promise<void>;
  #status?: Deno.CommandStatus;
  #stopping?: Promise<void>;
  #stderrTail = "";
  #protocolVersion?: string;
  #signalled = false;

  constructor(options: ProcessTransportOptions) {
    this.#options = options;
  }

  /** The server's process id (also its process group id) once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last characters the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** How the server exited, once it has. */
  get exitStatus(): Deno.CommandStatus | undefined {
    return this.#status;
  }

  /** True once the server has exited without being signalled by `close()` (it crashed or quit). */
  get exitedOnItsOwn(): boolean {
    return this.#status !== undefined && !this.#signalled;
  }

  /** The protocol version agreed at `initialize` (the SDK client sets it). */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error("The server process was already started");
    const { command, args, env, cwd } = this.#options;
    const childEnv = { ...getDefaultEnvironment(), ...env };
    // The server dies with the host (the wrapper `setpriv` runs; a missing command must still
    // fail here, as it would without the wrapper).
    const guard = await detectOrphanGuard();
    const program = guard.kind === "none"
      ? undefined
      : await findProgram(command, childEnv.PATH, cwd);
    const line = program === undefined ? { program: command, args } : guard.wrap(program, args);
    if (this.#child) throw new Error("The server process was already started");
    const child = new Deno.Command(line.program, {
      args: line.args,
      cwd,
      clearEnv: true,
      env: childEnv,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    const stdout = this.#pumpStdout(child.stdout.getReader());
    const stderr = this.#pumpStderr(child.stderr.getReader());
    this.#exited = (async () => {
      this.#status = await child.status;
      // The leader is gone; anything left in its group is a remnant of the same server.
      signalGroup(child, "SIGKILL");
      await this.#writer?.abort().catch(() => {});
      await settleWithin(Promise.all([stdout.done, stderr.done]), PIPE_DRAIN_MS);
      await Promise.all([stdout.cancel(), stderr.cancel()]);
      this.onclose?.();
    })();
  }

  /** Writes one message; throws {@link UndeliveredError} when the server cannot receive it. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#stopping || this.#status) {
      throw new UndeliveredError("the server process is not running");
    }
    try {
      await this.#writer.write(encoder.encode(serializeMessage(message)));
    } catch (err) {
      throw new UndeliveredError(`the server's stdin is closed (${(err as Error).message})`);
    }
  }

  /** Closes stdin, then SIGTERM, then SIGKILL to the group; resolves once the server is gone. */
  close(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#exited) return;
    this.#writer?.close().catch(() => {});
    if (!(await settleWithin(this.#exited, GRACEFUL_EXIT_MS))) {
      this.#signalled = true;
      signalGroup(child, "SIGTERM");
      if (!(await settleWithin(this.#exited, TERM_GRACE_MS))) signalGroup(child, "SIGKILL");
    }
    await this.#exited;
  }

  #pumpStdout(reader: ReadableStreamDefaultReader<Uint8Array>): Pump {
    return pump(reader, (chunk) => {
      try {
        this.#readBuffer.append(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } catch (error) {
        // A line longer than the SDK's buffer limit: the stream cannot be trusted any more.
        this.onerror?.(error as Error);
        this.close();
        return;
      }
      while (true) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#readBuffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  #pumpStderr(reader: ReadableStreamDefaultReader<Uint8Array>): Pump {
    const decoder = new TextDecoder();
    return pump(reader, (chunk) => {
      this.#stderrTail = (this.#stderrTail + decoder.decode(chunk, { stream: true }))
        .slice(-STDERR_TAIL_CHARS);
    });
  }
}

interface Pump {
  done: Promise<void>;
  cancel(): Promise<void>;
}

function pump(reader: ReadableStreamDefaultReader<Uint8Array>, onChunk: (c: Uint8Array) => void) {
  const done = (async () => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        onChunk(value);
      }
    } catch {
      // The pipe broke or was cancelled: the process is going away.
    }
  })();
  return { done, cancel: () => reader.cancel().catch(() => {}) };
}

/**
 * The path `command` runs as: looked up in the server's own `PATH` like
 * `execvp` would, or relative to `cwd`. Throws `NotFound` as a spawn would;
 * `undefined` when this host may not look (it then starts the command as given).
 */
async function findProgram(
  command: string,
  path: string | undefined,
  cwd?: string,
): Promise<string | undefined> {
  try {
    const base = cwd ?? Deno.cwd();
    const tries = command.includes("/")
      ? [command.startsWith("/") ? command : `${base}/${command}`]
      : (path ?? "/usr/local/bin:/usr/bin:/bin").split(":").map((dir) =>
        `${dir.startsWith("/") ? dir : `${base}/${dir || "."}`}/${command}`
      );
    for (const candidate of tries) {
      try {
        const info = await Deno.stat(candidate);
        if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    }
  } catch {
    return undefined;
  }
  throw new Deno.errors.NotFound(`Failed to spawn '${command}': not found`);
}

/** Signals the child's whole process group (the child leads it, as it was started detached). */
function signalGroup(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    if (Deno.build.os === "windows") child.kill(signal);
    else Deno.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Waits for `promise` at most `ms`; true when it settled in time. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
