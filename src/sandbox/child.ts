/**
 * One sandbox child: a `deno run` process with every permission denied,
 * the host end of its JSON-RPC channel, and the means to kill it. Everything
 * the child writes is untrusted: frames are capped, a malformed one ends
 * the child, and stderr is kept only up to a bound.
 *
 * @module
 */
import { type ErrorInfo, errorInfo } from "../errors.ts";
import { type FrameFault, FrameWriter, READ_SLICE_MS, readFrames } from "../rpc/framing.ts";
import { bigFrameParser } from "../rpc/big_frames.ts";
import { type NotificationHandler, Peer, type RequestHandler } from "../rpc/peer.ts";
import type { ChildGroup, MemoryGuard } from "./cgroup.ts";
import { childArgs } from "./flags.ts";
import type { OrphanGuard } from "./orphan_guard.ts";
import { locationDataDirs, noteRun, retireRun } from "./run_ledger.ts";
import type { SandboxPolicy } from "./policy.ts";
import { METHOD_READY } from "./protocol.ts";
import { dirname } from "node:path";

/**
 * How long {@link SandboxChild.suspend} waits for every thread to show as stopped. SIGSTOP
 * takes effect at the next return from the kernel; a thread inside a long write finishes it
 * first. A second is far past that; a child that takes longer is killed instead.
 */
export const SUSPEND_WAIT_MS = 1_000;

/** How much of a child's stderr is kept for diagnostics. */
export const MAX_STDERR_BYTES = 16 * 1024;

/** Where children run and what they may write. */
export interface ChildEnvironment {
  /** The Deno binary (the host's own by default). */
  denoPath: string;
  /** The trusted guest entry file. */
  guestEntry: string;
  /** Cordon's own DENO_DIR. */
  denoDir: string;
  /** An empty directory to run in. */
  cwd: string;
  memoryGuard: MemoryGuard;
  allowPrivateNetwork: boolean;
  /** The host's own addresses, denied to children that may reach allowed hosts. */
  denyAddresses?: readonly string[];
  /** Ties each child's life to the host's (absent: children are started unguarded). */
  orphanGuard?: OrphanGuard;
}

/** Per-child stream limits, fixed at spawn. */
export interface ChildStreamLimits {
  maxFrameBytes: number;
  maxOutputBytes: number;
}

/** Options for {@link SandboxChild.spawn}. */
export interface SpawnChildOptions {
  env: ChildEnvironment;
  policy: SandboxPolicy;
  limits: ChildStreamLimits;
  /** Memory limit for the child's cgroup, if one is made. */
  memoryBytes: number;
}

/** Why and how a child ended. */
export interface ChildExit {
  code: number;
  signal: Deno.Signal | null;
  /** The host killed it, and why. */
  killedFor?: ErrorInfo;
  /** The stream broke a rule. */
  fault?: ErrorInfo;
  /** The kernel's OOM killer took it (cgroup). */
  oomKilled: boolean;
  /** The first {@link MAX_STDERR_BYTES} of stderr. */
  stderr: string;
}

/** The handlers an execution binds to a child it takes. */
export interface ChildHandlers {
  onRequest?: RequestHandler;
  onNotification?: NotificationHandler;
  /** Called once if the child breaks the protocol (the child is then killed). */
  onFault?(info: ErrorInfo): void;
}

function faultInfo(fault: FrameFault): ErrorInfo {
  switch (fault.kind) {
    case "frame_too_large":
      return errorInfo("protocol_error", `The sandbox sent a frame over ${fault.limit} bytes`);
    case "frame_too_deep":
      return errorInfo(
        "protocol_error",
        `The sandbox sent a frame nested over ${fault.limit} deep`,
      );
    case "output_too_large":
      return errorInfo(
        "output_limit",
        `The sandbox wrote more than ${fault.limit} bytes of output`,
      );
    case "malformed":
      return errorInfo(
        "protocol_error",
        "The sandbox wrote something that is not a JSON-RPC frame",
        {
          excerpt: fault.excerpt,
        },
      );
    case "unreadable":
      return errorInfo("protocol_error", `The sandbox sent a frame ${fault.reason}`);
  }
}

/**
 * A spawned sandbox child.
 *
 * @example
 * ```ts ignore
 * await using child = await SandboxChild.spawn(options);
 * const result = await child.peer.request("run", params);
 * ```
 */
export class SandboxChild {
  readonly peer: Peer;
  readonly pid: number;
  readonly policy: SandboxPolicy;
  /** Resolves when the guest has loaded and said `ready`. */
  readonly ready: Promise<void>;
  /** Resolves when the process has exited and its streams are drained. */
  readonly exited: Promise<ChildExit>;
  readonly spawnedAt = performance.now();

  #process: Deno.ChildProcess;
  #group: ChildGroup | undefined;
  #handlers: ChildHandlers = {};
  #killedFor: ErrorInfo | undefined;
  #fault: ErrorInfo | undefined;
  #alive = true;
  #memoryBytes: number;
  #suspended = false;

  private constructor(
    process: Deno.ChildProcess,
    group: ChildGroup | undefined,
    options: SpawnChildOptions,
    run: { id: string; location: readonly string[] },
  ) {
    this.#process = process;
    this.#group = group;
    this.pid = process.pid;
    this.policy = options.policy;
    this.#memoryBytes = options.memoryBytes;
    const stdin = process.stdin.getWriter();
    const writer = new FrameWriter((bytes) => stdin.write(bytes));
    let markReady!: () => void;
    this.ready = new Promise((resolve) => (markReady = resolve));
    const peer = new Peer({
      send: (json) => writer.send(json),
      onRequest: (method, params) => {
        const handler = this.#handlers.onRequest;
        if (!handler) throw new Error(`No execution is bound to this child (${method})`);
        return handler(method, params);
      },
      onNotification: (method, params) => {
        if (method === METHOD_READY) return markReady();
        this.#handlers.onNotification?.(method, params);
      },
      onProtocolError: (info) => this.#breach(info),
    });
    this.peer = peer;
    const reading = readFrames(process.stdout, {
      maxFrameBytes: options.limits.maxFrameBytes,
      maxTotalBytes: options.limits.maxOutputBytes,
      onFrame: (frame) => peer.receive(frame),
      onFault: (fault) => this.#breach(faultInfo(fault)),
      // Frames over BIG_FRAME_BYTES are parsed in a Worker: the host's event loop is shared.
      bigLines: bigFrameParser,
      sliceMs: READ_SLICE_MS,
    });
    // stderr counts toward the same output bound as stdout: a flood of either ends the run.
    const stderr = readCapped(
      process.stderr,
      MAX_STDERR_BYTES,
      options.limits.maxOutputBytes,
      () =>
        this.#breach(faultInfo({ kind: "output_too_large", limit: options.limits.maxOutputBytes })),
    );
    this.exited = (async () => {
      const status = await process.status;
      this.#alive = false;
      const [, errText] = await Promise.all([reading, stderr]);
      await stdin.close().catch(() => {});
      const oomKilled = group ? await group.oomKilled().catch(() => false) : false;
      if (group) await group.remove().catch(() => {});
      await retireRun(options.env.denoDir, run.id, run.location);
      const exit: ChildExit = {
        code: status.code,
        signal: status.signal,
        oomKilled,
        stderr: errText,
      };
      if (this.#killedFor) exit.killedFor = this.#killedFor;
      if (this.#fault) exit.fault = this.#fault;
      peer.close(
        this.#killedFor ?? this.#fault ?? errorInfo("sandbox_crashed", "The sandbox exited"),
      );
      // If it died before saying ready, nobody may wait forever.
      markReady();
      return exit;
    })();
  }

  /** Spawns a child, puts it in its own cgroup (if any), and returns at once. */
  static async spawn(options: SpawnChildOptions): Promise<SandboxChild> {
    const { env, policy } = options;
    const runId = crypto.randomUUID();
    const args = childArgs({
      policy,
      guestEntry: env.guestEntry,
      runId,
      allowPrivateNetwork: env.allowPrivateNetwork,
      denyAddresses: env.denyAddresses,
    });
    const location = await locationDataDirs(env.denoDir, runId);
    // Noted before it starts: should this host die, the next one wipes the run's storage.
    await Promise.all([blockCacheStorage(location[1]), noteRun(env.denoDir, runId)]);
    const group = await env.memoryGuard.create(options.memoryBytes);
    const command = env.orphanGuard?.wrap(env.denoPath, args) ?? { program: env.denoPath, args };
    let process: Deno.ChildProcess;
    try {
      // Under the guard the spawned program is setpriv: a missing Deno must still fail the spawn.
      if (command.program !== env.denoPath && env.denoPath.startsWith("/")) {
        await assertProgram(env.denoPath);
      }
      process = new Deno.Command(command.program, {
        args: command.args,
        cwd: env.cwd,
        clearEnv: true,
        env: { DENO_DIR: env.denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (err) {
      await group?.remove();
      await retireRun(env.denoDir, runId, location);
      throw err;
    }
    if (group) {
      // The guest runs no user code until its first frame, so moving it now
      // is in time. If the move fails, the child must not run unguarded.
      try {
        await group.add(process.pid);
      } catch (err) {
        try {
          process.kill("SIGKILL");
        } catch { /* already gone */ }
        await process.status;
        await group.remove();
        await retireRun(env.denoDir, runId, location);
        throw err;
      }
    }
    return new SandboxChild(process, group, options, { id: runId, location });
  }

  /** True until the process has exited. */
  get alive(): boolean {
    return this.#alive;
  }

  /** Binds an execution's handlers (a child serves one execution). */
  bind(handlers: ChildHandlers): void {
    this.#handlers = handlers;
    if (this.#fault) handlers.onFault?.(this.#fault);
  }

  /** Sets the cgroup memory limit (before the run starts); a no-op when unchanged. */
  async setMemory(bytes: number): Promise<void> {
    if (!this.#group || bytes === this.#memoryBytes) return;
    await this.#group.setMemory(bytes);
    this.#memoryBytes = bytes;
  }

  /** Peak memory of the child's cgroup, if measured. */
  peakBytes(): Promise<number | undefined> {
    return this.#group?.peakBytes() ?? Promise.resolve(undefined);
  }

  /** Kills the child with SIGKILL, recording why (first reason wins). */
  kill(reason?: ErrorInfo): void {
    if (reason && !this.#killedFor) this.#killedFor = reason;
    if (!this.#alive) return;
    try {
      this.#process.kill("SIGKILL");
    } catch {
      // It exited between the check and the kill.
    }
  }

  /**
   * Stops the whole child (every thread) with SIGSTOP and resolves once the kernel shows each
   * thread stopped, so nothing it left behind runs, writes or sends until {@link resume}.
   * False when it is gone or did not stop in time (it is then killed).
   */
  async suspend(): Promise<boolean> {
    if (!this.#alive) return false;
    try {
      this.#process.kill("SIGSTOP");
    } catch {
      return false;
    }
    this.#suspended = true;
    const until = performance.now() + SUSPEND_WAIT_MS;
    while (this.#alive && performance.now() < until) {
      // Resumed while it was stopping (an approval that came at once): nothing left to wait for.
      if (!this.#suspended) return this.#alive;
      const stopped = await allThreadsStopped(this.pid);
      if (stopped) return this.#alive;
      if (stopped === undefined) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    this.kill();
    return false;
  }

  /** Lets a suspended child run again (SIGCONT); a no-op for one that is not suspended. */
  resume(): void {
    if (!this.#suspended) return;
    this.#suspended = false;
    if (!this.#alive) return;
    try {
      this.#process.kill("SIGCONT");
    } catch {
      // It exited meanwhile; the run will see it gone.
    }
  }

  #breach(info: ErrorInfo): void {
    if (this.#fault) return;
    this.#fault = info;
    this.#handlers.onFault?.(info);
    this.kill(info);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.kill();
    await this.exited;
  }
}

/**
 * True when every thread of `pid` is stopped (`T`/`t` in /proc), false while one still runs,
 * undefined when /proc cannot say (the process is gone, or this is not Linux).
 */
/** Programs already seen to exist, so a spawn costs one stat per binary, not one per child. */
const knownPrograms = new Set<string>();

/** Throws `NotFound` (as a direct spawn would) unless `path` is a file. */
async function assertProgram(path: string): Promise<void> {
  if (knownPrograms.has(path)) return;
  if (!(await Deno.stat(path)).isFile) {
    throw new Deno.errors.NotFound(`Cannot run ${path}: not a file`);
  }
  knownPrograms.add(path);
}

async function allThreadsStopped(pid: number): Promise<boolean | undefined> {
  let tasks: Deno.DirEntry[];
  try {
    tasks = await Array.fromAsync(Deno.readDir(`/proc/${pid}/task`));
  } catch {
    return undefined;
  }
  for (const task of tasks) {
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/stat`);
    } catch {
      continue; // That thread ended meanwhile.
    }
    // The state follows the command name, which is in parentheses and may hold anything.
    const at = stat.lastIndexOf(")") + 2;
    const state = stat.slice(at, at + 1);
    if (state !== "T" && state !== "t") return false;
  }
  return tasks.length > 0;
}

/**
 * Puts an empty file where the run's Cache API storage would go, so `caches.open()` fails in
 * the child and in every Worker it starts. The Cache API writes to the host's disk whatever
 * `--deny-write` says, with no quota (measured: 190 MiB from one run); `localStorage` has
 * Deno's own cap (10 MiB per origin, measured) and is left alone.
 */
async function blockCacheStorage(cacheDir: string): Promise<void> {
  await Deno.mkdir(dirname(cacheDir), { recursive: true });
  await Deno.writeFile(cacheDir, new Uint8Array());
}

async function readCapped(
  stream: ReadableStream<Uint8Array>,
  max: number,
  maxTotal: number,
  onFlood: () => void,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let kept = 0;
  let total = 0;
  try {
    for await (const chunk of stream) {
      total += chunk.length;
      if (total > maxTotal) {
        onFlood();
        maxTotal = Infinity;
      }
      if (kept < max) {
        const part = chunk.subarray(0, max - kept);
        kept += part.length;
        text += decoder.decode(part, { stream: true });
      }
    }
  } catch {
    // The pipe broke when the process died.
  }
  return text;
}
