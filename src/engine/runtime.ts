/**
 * `createRuntime()`: the engine a library user, the server and the test kit
 * all share. It owns the connectors, the sandbox environment, the warm pool
 * and every child it has started.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConnectorRegistry } from "../connectors/registry.ts";
import type { Connector, ConnectorInfo } from "../connectors/types.ts";
import { CordonError, type ErrorInfo, errorInfo, toErrorInfo } from "../errors.ts";
import { newId } from "../ids.ts";
import { detectMemoryGuard, type MemoryGuard, type MemoryGuardKind } from "../sandbox/cgroup.ts";
import { type ChildEnvironment, SandboxChild } from "../sandbox/child.ts";
import { normalizeNetAllow, policyKey, type SandboxPolicy } from "../sandbox/policy.ts";
import { ChildPool } from "../sandbox/pool.ts";
import { runPass } from "./execution.ts";
import { configureLimits, type Limits, resolveLimits } from "./limits.ts";
import { prepareSource } from "./source.ts";
import type { Diagnostic, ExecuteRequest, ExecuteResult, ExecutionMeta } from "./types.ts";

const MiB = 1024 * 1024;

/** Children kept warm when the caller does not say. */
export const DEFAULT_POOL_SIZE = 2;

/** Options for {@link createRuntime}. */
export interface RuntimeOptions {
  connectors?: readonly Connector[];
  /** Defaults for every execution. */
  limits?: Partial<Limits>;
  /** The most an execution may ask for. */
  maxLimits?: Partial<Limits>;
  pool?: {
    /** Children kept warm with the default policy (0 turns the pool off). */
    size?: number;
  };
  sandbox?: SandboxOptions;
}

/** Where and how children run. */
export interface SandboxOptions {
  /** The Deno binary for children (default: the one running this code). */
  denoPath?: string;
  /** Cordon's own DENO_DIR for children (default: a `cordon/deno` folder in the temp dir). */
  denoDir?: string;
  /** `auto` uses a cgroup memory limit where the host allows; `off` relies on the heap cap. */
  cgroups?: "auto" | "off";
  /**
   * Let an execution's allowed hosts reach private and loopback addresses.
   * For local development and tests only.
   */
  allowPrivateNetwork?: boolean;
}

/** What this runtime can do on this host. */
export interface RuntimeCapabilities {
  deno: string;
  transpiler: "sucrase";
  memoryGuard: { kind: MemoryGuardKind; reason: string };
  pool: { size: number; idle: number };
  limits: Limits;
  maxLimits: Limits;
}

/** The engine. Dispose it (`await using`) to kill every child it started. */
export interface Runtime extends AsyncDisposable {
  /** Runs code in a fresh sandbox. Expected failures come back as `status: "error"`. */
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /** The connectors and their tools, as data. */
  connectors(): ConnectorInfo[];
  capabilities(): RuntimeCapabilities;
  /** Resolves once the pool has its children waiting (benchmarks, tests). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

function guestEntryPath(): string {
  const url = new URL("../sandbox/guest/entry.ts", import.meta.url);
  if (url.protocol !== "file:") {
    throw new CordonError(
      "spawn_failed",
      `Cordon's sandbox guest must be a local file, but this copy was loaded from ${url.origin}; install it locally`,
    );
  }
  return fileURLToPath(url);
}

/**
 * Creates a runtime.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { createRuntime, defineConnector } from "@cordon/runtime";
 * const math = defineConnector({
 *   name: "math",
 *   description: "Arithmetic",
 *   tools: { add: { description: "Add", input: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b } },
 * });
 * await using runtime = await createRuntime({ connectors: [math] });
 * const out = await runtime.execute({ code: "return await math.add({ a: 1, b: 2 })" });
 * ```
 */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const registry = new ConnectorRegistry(options.connectors ?? []);
  const { defaults, maxima } = configureLimits(options.limits, options.maxLimits);
  const sandbox = options.sandbox ?? {};
  const base = join(tmpdir(), "cordon");
  const denoDir = sandbox.denoDir ?? join(base, "deno");
  const cwd = join(base, "empty");
  await Deno.mkdir(denoDir, { recursive: true });
  await Deno.mkdir(cwd, { recursive: true });
  const memoryGuard = await detectMemoryGuard(sandbox.cgroups ?? "auto");
  const env: ChildEnvironment = {
    denoPath: sandbox.denoPath ?? Deno.execPath(),
    guestEntry: guestEntryPath(),
    denoDir,
    cwd,
    memoryGuard,
    allowPrivateNetwork: sandbox.allowPrivateNetwork ?? false,
  };
  return new CordonRuntime(
    registry,
    defaults,
    maxima,
    env,
    options.pool?.size ?? DEFAULT_POOL_SIZE,
  );
}

class CordonRuntime implements Runtime {
  readonly #registry: ConnectorRegistry;
  readonly #defaults: Limits;
  readonly #maxima: Limits;
  readonly #env: ChildEnvironment;
  readonly #memoryGuard: MemoryGuard;
  readonly #defaultPolicy: SandboxPolicy;
  readonly #pool: ChildPool;
  readonly #poolSize: number;
  readonly #active = new Set<SandboxChild>();
  #closed = false;

  constructor(
    registry: ConnectorRegistry,
    defaults: Limits,
    maxima: Limits,
    env: ChildEnvironment,
    poolSize: number,
  ) {
    this.#registry = registry;
    this.#defaults = defaults;
    this.#maxima = maxima;
    this.#env = env;
    this.#memoryGuard = env.memoryGuard;
    this.#defaultPolicy = { heapMiB: defaults.heapMiB, netAllow: [] };
    this.#poolSize = poolSize;
    this.#pool = new ChildPool({
      size: poolSize,
      spawn: () => this.#spawn(this.#defaultPolicy, defaults),
    });
  }

  #spawn(policy: SandboxPolicy, limits: Limits): Promise<SandboxChild> {
    return SandboxChild.spawn({
      env: this.#env,
      policy,
      limits: { maxFrameBytes: limits.maxFrameBytes, maxOutputBytes: limits.maxOutputBytes },
      memoryBytes: limits.memoryMiB * MiB,
    });
  }

  /** A child for this policy and these stream limits: pooled when they match the pool's. */
  async #child(
    policy: SandboxPolicy,
    limits: Limits,
  ): Promise<{ child: SandboxChild; pooled: boolean }> {
    const streamsMatch = limits.maxFrameBytes === this.#defaults.maxFrameBytes &&
      limits.maxOutputBytes === this.#defaults.maxOutputBytes;
    if (streamsMatch && policyKey(policy) === policyKey(this.#defaultPolicy)) {
      const child = this.#pool.take();
      if (child) return { child, pooled: true };
    }
    return { child: await this.#spawn(policy, limits), pooled: false };
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const startedAt = performance.now();
    const executionId = newId("exec");
    if (this.#closed) {
      return this.#early(
        executionId,
        startedAt,
        errorInfo("runtime_closed", "The runtime is closed"),
      );
    }
    let limits: Limits;
    let policy: SandboxPolicy;
    let source;
    try {
      if (request === null || typeof request !== "object") {
        throw new CordonError("invalid_request", "execute() takes an object with code");
      }
      const overrides = { ...request.limits };
      if (request.timeoutMs !== undefined) overrides.timeoutMs = request.timeoutMs;
      limits = resolveLimits(this.#defaults, this.#maxima, overrides);
      policy = { heapMiB: limits.heapMiB, netAllow: normalizeNetAllow(request.policy?.net) };
      source = prepareSource(request.code);
    } catch (err) {
      const info = toErrorInfo(err, "invalid_request");
      return this.#early(executionId, startedAt, info);
    }

    let child: SandboxChild;
    let pooled: boolean;
    try {
      ({ child, pooled } = await this.#child(policy, limits));
    } catch (err) {
      return this.#early(
        executionId,
        startedAt,
        errorInfo(
          "spawn_failed",
          `Cannot start a sandbox: ${err instanceof Error ? err.message : String(err)}`,
        ),
        limits,
      );
    }
    this.#track(child);
    return await runPass({
      executionId,
      child,
      pooled,
      source,
      input: request.input,
      limits,
      maxTimeoutMs: this.#maxima.timeoutMs,
      registry: this.#registry,
      memoryGuard: this.#memoryGuard.kind,
      startedAt,
    });
  }

  #track(child: SandboxChild): void {
    this.#active.add(child);
    child.exited.then(() => this.#active.delete(child));
  }

  #early(
    executionId: string,
    startedAt: number,
    error: ErrorInfo,
    limits: Limits = this.#defaults,
  ): ExecuteResult {
    const meta: ExecutionMeta = {
      executionId,
      durationMs: performance.now() - startedAt,
      timeoutMs: limits.timeoutMs,
      maxTimeoutMs: this.#maxima.timeoutMs,
      calls: 0,
      memoryGuard: this.#memoryGuard.kind,
      heapMiB: limits.heapMiB,
      memoryMiB: limits.memoryMiB,
      pooled: false,
      logBytes: 0,
      logsDropped: 0,
      logsTruncated: false,
    };
    const diagnostics: Diagnostic[] = [];
    if (error.code === "syntax_error") {
      diagnostics.push({
        code: "syntax_error",
        message: error.message,
        severity: "error",
        ...(error.location ?? {}),
      });
    }
    return { status: "error", executionId, error, logs: [], calls: [], diagnostics, meta };
  }

  connectors(): ConnectorInfo[] {
    return this.#registry.list();
  }

  capabilities(): RuntimeCapabilities {
    return {
      deno: Deno.version.deno,
      transpiler: "sucrase",
      memoryGuard: { kind: this.#memoryGuard.kind, reason: this.#memoryGuard.reason },
      pool: { size: this.#poolSize, idle: this.#pool.idleCount },
      limits: { ...this.#defaults },
      maxLimits: { ...this.#maxima },
    };
  }

  warm(): Promise<void> {
    return this.#pool.warm();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.close();
    const active = [...this.#active];
    for (const child of active) child.kill(errorInfo("runtime_closed", "The runtime was closed"));
    await Promise.all(active.map((c) => c.exited));
    await this.#memoryGuard.dispose();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
