/**
 * Where a pass's child comes from: the warm pool when the run asks for the
 * default policy and streams, else a fresh spawn. A run's memory, task and CPU limits do not
 * matter here: its pass sets them on a pooled child before the run (`applyRunLimits`). Every child handed out is
 * tracked until it exits, so closing the engine can kill them all.
 *
 * @module
 */
import type { ErrorInfo } from "../../errors.ts";
import { type ChildEnvironment, SandboxChild } from "../../sandbox/child.ts";
import { policyKey, type SandboxPolicy } from "../../sandbox/policy.ts";
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { ChildPool } from "../../sandbox/pool.ts";
import { keepTurnShort } from "../../loop.ts";
import { groupLimits } from "./enforcement.ts";
import type { Limits } from "./limits.ts";

/** The engine's children: a warm pool of default ones, and every one handed out. */
export class Children {
  readonly #env: ChildEnvironment;
  readonly #defaults: Limits;
  readonly #defaultPolicy: SandboxPolicy;
  readonly #pool: ChildPool;
  readonly #active = new Set<SandboxChild>();

  readonly #connectors: ConnectorRegistry;

  constructor(
    env: ChildEnvironment,
    defaults: Limits,
    poolSize: number,
    connectors: ConnectorRegistry,
  ) {
    this.#connectors = connectors;
    this.#env = env;
    this.#defaults = defaults;
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

  /** Resolves once the pool has its children waiting. */
  warm(): Promise<void> {
    return this.#pool.warm();
  }

  /** Makes `count` default children wait, ready, until they are taken (see ChildPool.prewarm). */
  prewarm(count: number): Promise<void> {
    return this.#pool.prewarm(count);
  }

  /** Spawns a child and tells it the connectors at once: it builds its globals while it waits. */
  async #spawn(policy: SandboxPolicy, limits: Limits): Promise<SandboxChild> {
    const child = await SandboxChild.spawn({
      env: this.#env,
      policy,
      limits: { maxFrameBytes: limits.maxFrameBytes, maxOutputBytes: limits.maxOutputBytes },
      // A cold child starts under its run's cgroup limits; a pooled one gets them before its run.
      ...groupLimits(limits),
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
    if (streamsMatch && policyKey(policy) === policyKey(this.#defaultPolicy)) {
      child = this.#pool.take();
      // Built for connectors the runtime no longer has (one was added since): not this run's.
      if (child && child.preparedFor !== this.#connectors.guestKey()) {
        child.kill();
        child = undefined;
      }
      pooled = child !== undefined;
    }
    if (!child) {
      // A spawn holds the thread a millisecond or more under load: many at once take turns.
      await keepTurnShort();
      child = await this.#spawn(policy, limits);
    }
    this.#active.add(child);
    child.exited.then(() => this.#active.delete(child));
    return { child, pooled };
  }

  /** Stops the pool (its waiting children are killed). */
  closePool(): Promise<void> {
    return this.#pool.close();
  }

  /** Kills every child handed out and waits until they are gone. */
  async killAll(reason: ErrorInfo): Promise<void> {
    const active = [...this.#active];
    for (const child of active) child.kill(reason);
    await Promise.all(active.map((c) => c.exited));
  }
}
