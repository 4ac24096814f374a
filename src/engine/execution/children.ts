/**
 * Where a pass's child comes from: the warm pool when the run asks for the
 * default policy and streams, else a fresh spawn. A run's memory, task and CPU limits do not
 * matter here: its pass sets them on a pooled child before the run (`applyRunLimits`). Every child handed out is
 * tracked until it exits, so closing the engine can kill them all.
 *
 * @module
 */
import { CordonError, type ErrorInfo } from "../../errors.ts";
import { type ChildEnvironment, SandboxChild } from "../../sandbox/child.ts";
import { policyKey, type SandboxPolicy } from "../../sandbox/policy.ts";
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { ChildPool } from "../../sandbox/pool.ts";
import { Retirer } from "../../sandbox/retire.ts";
import type { PythonFiles } from "../../sandbox/pyodide.ts";
import type { LanguageFiles } from "../../sandbox/languages.ts";
import { keepTurnShort } from "../../loop.ts";
import { groupLimits } from "./enforcement.ts";
import type { Limits } from "./limits.ts";

/** Python children: Pyodide's files and how many wait warm once Python is first used. */
export interface PythonChildren {
  files: PythonFiles;
  /** Python children kept warm (Pyodide restored before `ready`); 0 turns the pool off. */
  pool: number;
}

/**
 * The engine's children: a warm pool of default TypeScript ones, a pool of Python ones started
 * on the first Python run (a runtime that never runs Python boots none), and every one handed
 * out.
 */
export class Children {
  readonly #env: ChildEnvironment;
  readonly #defaults: Limits;
  readonly #defaultPolicy: SandboxPolicy;
  readonly #pool: ChildPool;
  readonly #python: PythonChildren | undefined;
  /** The bash bundle's files (built on the first bash run); absent: bash is refused. */
  readonly #bash: (() => Promise<LanguageFiles>) | undefined;
  #pythonPool: ChildPool | undefined;
  #bashPool: ChildPool | undefined;
  readonly #active = new Set<SandboxChild>();
  /** Ends children whose run is over once that slows no other run (retire.ts). */
  readonly #retirer = new Retirer(() => {
    let running = 0;
    for (const child of this.#active) if (child.running) running++;
    return running;
  });

  readonly #connectors: ConnectorRegistry;

  constructor(
    env: ChildEnvironment,
    defaults: Limits,
    poolSize: number,
    connectors: ConnectorRegistry,
    python?: PythonChildren,
    bash?: () => Promise<LanguageFiles>,
  ) {
    this.#bash = bash;
    this.#connectors = connectors;
    this.#env = env;
    this.#defaults = defaults;
    this.#python = python;
    this.#defaultPolicy = { heapMiB: defaults.heapMiB, netAllow: [] };
    this.#pool = new ChildPool({
      size: poolSize,
      spawn: () => this.#spawn(this.#defaultPolicy, defaults),
    });
  }

  /** Children waiting in the pool. */
  get idle(): number {
    return this.#pool.idleCount;
  }

  /** Python children waiting in their pool (0 before the first Python run). */
  get pythonIdle(): number {
    return this.#pythonPool?.idleCount ?? 0;
  }

  /** Resolves once the pools have their children waiting (Python's and bash's once started). */
  async warm(): Promise<void> {
    await Promise.all([this.#pool.warm(), this.#pythonPool?.warm(), this.#bashPool?.warm()]);
  }

  /** The pool of default bash children (their bundle compiled), made on the first bash run. */
  #bashPoolFor(policy: SandboxPolicy): ChildPool {
    this.#bashPool ??= new ChildPool({
      size: BASH_POOL_SIZE,
      spawn: () => this.#spawn(policy, this.#defaults),
    });
    return this.#bashPool;
  }

  /** The pool of default Python children, made on first use; the snapshot comes first. */
  #pythonPoolFor(policy: SandboxPolicy, python: PythonChildren): ChildPool {
    python.files.snapshot();
    this.#pythonPool ??= new ChildPool({
      size: python.pool,
      spawn: async () => {
        // Pooled children wait for the snapshot (built once): they then boot in a fraction.
        await python.files.snapshot();
        return await this.#spawn(policy, this.#defaults);
      },
    });
    return this.#pythonPool;
  }

  /** Makes `count` default children wait, ready, until they are taken (see ChildPool.prewarm). */
  prewarm(count: number): Promise<void> {
    return this.#pool.prewarm(count);
  }

  /** Spawns a child and tells it the connectors at once: it builds its globals while it waits. */
  async #spawn(policy: SandboxPolicy, limits: Limits, forRun = false): Promise<SandboxChild> {
    let files;
    if (policy.language === "python") {
      if (!this.#python) throw new CordonError("not_supported", "This runtime runs no Python");
      files = this.#python.files.files();
      this.#python.files.snapshot(); // Built once, in the background: later children restore it.
    } else if (policy.language === "bash") {
      if (!this.#bash) throw new CordonError("not_supported", "This runtime runs no bash");
      files = await this.#bash();
    }
    const child = await SandboxChild.spawn({
      env: this.#env,
      policy,
      limits: { maxFrameBytes: limits.maxFrameBytes, maxOutputBytes: limits.maxOutputBytes },
      // A cold child starts under its run's cgroup limits; a pooled one gets them before its run.
      ...groupLimits(limits),
      ...(files ? { files } : {}),
      // A run waits for it: a rehearsal would cost its boot more than it saves that run.
      ...(forRun ? { noRehearsal: true } : {}),
    });
    child.prepare(this.#connectors.guestConnectors(), this.#connectors.guestKey());
    return child;
  }

  /** A child for a run under `policy` and `limits`: pooled when they are the defaults. */
  async take(
    policy: SandboxPolicy,
    limits: Limits,
  ): Promise<{ child: SandboxChild; pooled: boolean }> {
    const d = this.#defaults;
    const streamsMatch = limits.maxFrameBytes === d.maxFrameBytes &&
      limits.maxOutputBytes === d.maxOutputBytes;
    let child: SandboxChild | undefined;
    let pooled = false;
    const python = this.#python;
    const pythonDefault = { ...this.#defaultPolicy, language: "python" as const };
    if (streamsMatch && python && policyKey(policy) === policyKey(pythonDefault)) {
      python.files.dir(); // No Pyodide: refused here, naming the fix.
      child = python.pool > 0 ? this.#pythonPoolFor(pythonDefault, python).take() : undefined;
    } else if (streamsMatch && policyKey(policy) === policyKey(this.#defaultPolicy)) {
      child = await this.#pool.takeOrWait();
    } else if (
      streamsMatch && this.#bash &&
      policyKey(policy) === policyKey({ ...this.#defaultPolicy, language: "bash" })
    ) {
      child = this.#bashPoolFor(policy).take();
    }
    if (child) {
      // Built for connectors the runtime no longer has (one was added since): not this run's.
      if (child.preparedFor !== this.#connectors.guestKey()) {
        child.kill();
        child = undefined;
      }
      pooled = child !== undefined;
    }
    if (!child) {
      // Many launches at once take turns with their set-up (ledger, groups); the spawns
      // themselves go one after another in the spawn lane (spawn_lane.ts).
      await keepTurnShort();
      child = await this.#spawn(policy, limits, true);
    }
    this.#active.add(child);
    child.exited.then(() => {
      this.#active.delete(child);
      this.#retirer.settle();
    });
    // An interpreter's boot (Pyodide: seconds, cold) is not the script's time: the run's deadline starts after it.
    if (policy.language) await interpreterLoaded(child);
    return { child, pooled };
  }

  /**
   * Ends a child whose run is over (see {@link Retirer}). Stopped, a child notices nothing: only
   * where the kernel kills it with the host (the orphan guard) may it wait stopped.
   */
  retire(child: SandboxChild): void {
    if (this.#env.orphanGuard?.kind === "pdeathsig") this.#retirer.retire(child);
    else child.kill();
  }

  /** Stops the pools (their waiting children are killed). */
  async closePool(): Promise<void> {
    await Promise.all([this.#pool.close(), this.#pythonPool?.close(), this.#bashPool?.close()]);
  }

  /** Kills every child handed out and waits until they are gone. */
  async killAll(reason: ErrorInfo): Promise<void> {
    this.#retirer.flush();
    const active = [...this.#active];
    for (const child of active) child.kill(reason);
    await Promise.all(active.map((c) => c.exited));
  }
}

/** bash children kept warm once bash is first used (a block then starts in milliseconds). */
export const BASH_POOL_SIZE = 1;

/** The longest a child may take to load its interpreter (Pyodide, the bash bundle). */
export const INTERPRETER_BOOT_MS = 120_000;

/** Resolves once `child` is ready; throws `spawn_failed` if it died or took too long. */
async function interpreterLoaded(child: SandboxChild): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((
    r,
  ) => (timer = setTimeout(() => r("late"), INTERPRETER_BOOT_MS)));
  const how = await Promise.race([child.ready.then(() => "ready" as const), late]);
  clearTimeout(timer);
  if (how === "ready" && child.alive) return;
  child.kill();
  const exit = await child.exited;
  throw new CordonError(
    "spawn_failed",
    how === "late"
      ? `The sandbox did not load within ${INTERPRETER_BOOT_MS} ms`
      : `The sandbox ended while loading its interpreter: ${exit.stderr.slice(0, 500)}`,
  );
}
