/**
 * One sandbox child: a `deno run` process with every permission denied,
 * the host end of its JSON-RPC channel, and the means to kill it. Everything
 * the child writes is untrusted: frames are capped, a malformed one ends
 * the child, and stderr is kept only up to a bound.
 *
 * @module
 */
import { afterTurn } from "../loop.ts";
import { type ErrorInfo, errorInfo } from "../errors.ts";
import { FrameWriter, READ_SLICE_MS, readFrames } from "../rpc/framing.ts";
import { bigFrameParser } from "../rpc/big_frames.ts";
import { type NotificationHandler, Peer, type RequestHandler } from "../rpc/peer.ts";
import { type ChildGroup, type GroupLimits, type LimitController, unenforced } from "./cgroup.ts";
import { launchChild } from "./child_launch.ts";
import type { SpawnChildOptions } from "./child_options.ts";
import { faultInfo, MAX_STDERR_BYTES, readCapped } from "./child_output.ts";
import { retireRun } from "./run_ledger.ts";
import type { SandboxPolicy } from "./policy.ts";
import { allThreadsStopped } from "./proc_threads.ts";
import { type GuestConnector, METHOD_PREPARE, METHOD_READY, METHOD_STDIN } from "./protocol.ts";

export type { ChildEnvironment, ChildStreamLimits, SpawnChildOptions } from "./child_options.ts";
export { MAX_STDERR_BYTES };

/**
 * How long {@link SandboxChild.suspend} waits for every thread to show as stopped. SIGSTOP
 * takes effect at the next return from the kernel; a thread inside a long write finishes it
 * first. A second is far past that; a child that takes longer is killed instead.
 */
export const SUSPEND_WAIT_MS = 1_000;

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
  /** A new thread or process was refused at its cgroup pids limit (asked only when it died). */
  pidsLimitHit?: boolean;
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
  /** The host sent the SIGKILL: the kernel's OOM killer did not end it, so nobody asks. */
  #hostKilled = false;
  #enforces: Readonly<Record<LimitController, boolean>>;
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
    this.#enforces = options.env.memoryGuard.enforces;
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
      afterTurn,
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
      // Reading the cgroup's OOM count costs two files per child; it only says something about
      // a child the host did not kill itself.
      const asked = group && !this.#hostKilled;
      const oomKilled = asked ? await group.oomKilled().catch(() => false) : false;
      const pidsLimitHit = asked ? await group.pidsLimitHit().catch(() => false) : false;
      if (group) await group.remove().catch(() => {});
      await retireRun(options.env.denoDir, run.id, run.location);
      const exit: ChildExit = {
        code: status.code,
        signal: status.signal,
        oomKilled,
        stderr: errText,
      };
      if (pidsLimitHit) exit.pidsLimitHit = true;
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
    const { process, group, run } = await launchChild(options);
    return new SandboxChild(process, group, options, run);
  }

  /** True until the process has exited. */
  get alive(): boolean {
    return this.#alive;
  }

  /** Whether it may run now: alive, not killed or frozen, not held by {@link suspend}. */
  get running(): boolean {
    return this.#alive && !this.#hostKilled && !this.#suspended;
  }

  /** The connectors key this child's globals were built for ({@link prepare}), if any. */
  preparedFor: string | undefined;

  /**
   * Tells the guest the connectors its run will have, so it builds its globals while it
   * waits; `key` names them (the host hands this child only to a run with the same key).
   */
  prepare(connectors: GuestConnector[], key: string): void {
    this.preparedFor = key;
    this.peer.notify(METHOD_PREPARE, { connectors });
  }

  /** More standard input for the program this child runs. */
  stdin(data: string, eof: boolean): void {
    this.peer.notify(METHOD_STDIN, { data, eof });
  }

  /** Binds an execution's handlers (a child serves one execution). */
  bind(handlers: ChildHandlers): void {
    this.#handlers = handlers;
    if (this.#fault) handlers.onFault?.(this.#fault);
  }

  /**
   * Sets a run's cgroup limits before it starts (no cgroup operation for one unchanged since
   * spawn); returns the controllers whose limit is not enforced (none on this host, or refused).
   */
  async applyLimits(limits: GroupLimits): Promise<LimitController[]> {
    const missing = unenforced(this.#enforces, limits);
    if (!this.#group) return unenforced({ memory: false, cpu: false, pids: false }, limits);
    const failed = await this.#group.apply(limits);
    return [...new Set([...missing, ...failed])];
  }

  /** True when the child's cgroup refused it a thread or process at its pids limit. */
  pidsLimitHit(): Promise<boolean> {
    return this.#group?.pidsLimitHit().catch(() => false) ?? Promise.resolve(false);
  }

  /** Peak memory of the child's cgroup, if measured. */
  peakBytes(): Promise<number | undefined> {
    return this.#group?.peakBytes() ?? Promise.resolve(undefined);
  }

  /** Kills the child with SIGKILL, recording why (first reason wins). */
  kill(reason?: ErrorInfo): void {
    if (reason && !this.#killedFor) this.#killedFor = reason;
    if (!this.#alive) return;
    this.#hostKilled = true;
    try {
      this.#process.kill("SIGKILL");
    } catch {
      // It exited between the check and the kill.
    }
  }

  /** Stops every thread at once (SIGSTOP), unwaited, for a child killed soon (retire.ts). */
  freeze(): boolean {
    if (!this.#alive) return false;
    this.#hostKilled = true;
    try {
      this.#process.kill("SIGSTOP");
      return true;
    } catch {
      return false;
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
