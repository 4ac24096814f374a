/**
 * `createRuntime()`: the engine a library user, the server and the test kit
 * all share. It owns the connectors, the store, the sandbox environment,
 * the warm pool and every child it has started.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join, resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { httpConnector, stateConnector } from "../../connectors/builtin/mod.ts";
import { ConnectorRegistry } from "../../connectors/registry.ts";
import type { Connector } from "../../connectors/types.ts";
import { CordonError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { hostDeniedAddresses } from "../../sandbox/policy.ts";
import { detectMemoryGuard } from "../../sandbox/cgroup.ts";
import { detectOrphanGuard } from "../../sandbox/orphan_guard.ts";
import { sweepDeadRuns } from "../../sandbox/run_ledger.ts";
import { guestEntry } from "../../sandbox/guest_files.ts";
import type { ChildEnvironment } from "../../sandbox/child.ts";
import { ArtifactStore } from "../../store/artifacts.ts";
import { CallStore } from "../../store/calls.ts";
import { openDb } from "../../store/client.ts";
import { ExecutionStore } from "../../store/executions.ts";
import { LogStore } from "../../store/logs.ts";
import { migrate } from "../../store/migrations.ts";
import { ShapeStore } from "../../store/shapes.ts";
import { SnippetStore } from "../../store/snippets.ts";
import { SessionStore } from "../../store/sessions.ts";
import { DEFAULT_SESSIONS, SessionManager } from "../sessions/manager.ts";
import { readRecoveryPage, sessionsApi } from "../sessions/api.ts";
import { DEFAULT_WORKSPACE_RETAIN_MS, removeWorkspace, sweepWorkspaces } from "../workspaces/workspace.ts";
import { artifactMaxBytes, artifactsApi } from "../artifacts/api.ts";
import { Catalogue } from "../catalogue/catalogue.ts";
import { executeChecked } from "../discovery/checked.ts";
import { Checker, TYPECHECK_MODES } from "../typecheck/checker.ts";
import { discoveryApi, platformHost } from "../discovery/api.ts";
import { Snippets } from "../snippets/snippets.ts";
import * as control from "../execution/control.ts";
import { type DurabilitySettings, Engine } from "../execution/engine.ts";
import { EventHub } from "../execution/events.ts";
import { executionsApi, readLogPage } from "../execution/records.ts";
import { executeCode } from "../code/executor.ts";
import { logRetainMs, pruneLogs, runtimeRedactor } from "../logs/settings.ts";
import { applyRetention, pruneExecutions, retentionSettings } from "./retention.ts";
import { PackageSet } from "../packages/mod.ts";
import { checkNamespace } from "../common/namespace.ts";
import { configureLimits } from "../execution/limits.ts";
import {
  DEFAULT_DURABILITY,
  DEFAULT_POOL_SIZE,
  type Runtime,
  type RuntimeOptions,
} from "./types.ts";
import type { ExecuteHooks, ExecuteRequest } from "../execution/types.ts";

/** Starts every connector that needs it, at once; if one fails, stops the others and says which. */
async function startConnectors(connectors: readonly Connector[]): Promise<void> {
  const started = await Promise.allSettled(connectors.map((c) => c.start?.()));
  const failed = started.findIndex((r) => r.status === "rejected");
  if (failed === -1) return;
  await closeConnectors(connectors);
  const reason = (started[failed] as PromiseRejectedResult).reason;
  throw new CordonError(
    "connector_unavailable",
    `Connector "${connectors[failed].name}" did not start: ${
      reason instanceof Error ? reason.message : String(reason)
    }`,
  );
}

async function closeConnectors(connectors: readonly Connector[]): Promise<void> {
  await Promise.allSettled(connectors.map((c) => c.close?.()));
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
 * await using runtime = await createRuntime({ connectors: [math], db: ":memory:" });
 * const out = await runtime.execute({ code: "return await math.add({ a: 1, b: 2 })" });
 * ```
 */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const workspaceRetainMs = options.workspaces?.retainMs ?? DEFAULT_WORKSPACE_RETAIN_MS;
  if (!(workspaceRetainMs > 0)) {
    throw new CordonError("invalid_request", "workspaces.retainMs must be a positive number of ms");
  }
  const typecheck = options.typecheck ?? "warn";
  if (!TYPECHECK_MODES.includes(typecheck)) {
    throw new CordonError("invalid_request", `Unknown typecheck mode "${typecheck}"`);
  }
  const { defaults, maxima } = configureLimits(options.limits, options.maxLimits);
  const artifactBytes = artifactMaxBytes(options.artifacts);
  const redact = runtimeRedactor(options);
  const logRetain = logRetainMs(options.logs);
  const retention = retentionSettings(options.retention);
  const durability = { ...DEFAULT_DURABILITY, ...options.durability };
  const sandbox = options.sandbox ?? {};
  const base = join(tmpdir(), "cordon");
  const denoDir = sandbox.denoDir ?? join(base, "deno");
  const cwd = join(base, "empty");
  await Deno.mkdir(denoDir, { recursive: true });
  await Deno.mkdir(cwd, { recursive: true });
  // Before anything is opened: a guest that cannot be had leaves nothing to close.
  const guest = await guestEntry(join(base, "guest"));
  const packages = new PackageSet({
    packages: options.packages,
    root: join(base, "packages"),
    denoPath: sandbox.denoPath ?? Deno.execPath(),
    denoDir,
  });
  const dbUrl = options.db ??
    pathToFileURL(join(resolvePath(options.dataDir ?? ".cordon"), "cordon.db")).href;
  const db = await openDb(dbUrl, options.dbAuthToken);
  const connectors = [...(options.connectors ?? [])];
  let registry: ConnectorRegistry;
  try {
    await migrate(db);
    if (options.builtins?.state) connectors.push(stateConnector({ ...options.builtins.state, db }));
    if (options.builtins?.http) connectors.push(httpConnector(options.builtins.http));
    await startConnectors(connectors);
    try {
      registry = new ConnectorRegistry(connectors);
    } catch (err) {
      await closeConnectors(connectors);
      throw err;
    }
  } catch (err) {
    db.close();
    throw err;
  }
  let memoryGuard;
  let orphanGuard;
  try {
    // Finding the memory guard also sweeps the control groups dead hosts left.
    memoryGuard = await detectMemoryGuard(sandbox.cgroups ?? "auto");
    orphanGuard = await detectOrphanGuard();
    // Then what the runs of dead hosts stored under their --location (their children are gone).
    await sweepDeadRuns(denoDir);
  } catch (err) {
    // Nothing started may outlive a runtime that was never returned.
    await closeConnectors(connectors);
    db.close();
    throw err;
  }
  const env: ChildEnvironment = {
    denoPath: sandbox.denoPath ?? Deno.execPath(),
    guestEntry: guest,
    denoDir,
    cwd,
    memoryGuard,
    orphanGuard,
    allowPrivateNetwork: sandbox.allowPrivateNetwork ?? false,
    denyAddresses: hostDeniedAddresses(),
  };
  const executions = new ExecutionStore(db);
  const calls = new CallStore(db);
  const snippetStore = new SnippetStore(db);
  // Allowed packages and Node built-ins type as `any` modules: the import check, not the type
  // check, decides what may be imported.
  const moduleDeclarations = [
    "node:*",
    ...Object.keys(packages.allowed).flatMap((n) => [n, `${n}/*`]),
  ]
    .map((m) => `declare module ${JSON.stringify(m)};`).join("\n");
  const catalogue = await Catalogue.open(
    registry,
    new ShapeStore(db),
    await snippetStore.latest(),
    moduleDeclarations,
  );
  const checker = new Checker();
  if (typecheck !== "off") checker.warm(catalogue.declarations, catalogue.declarationHash);
  const snippets = new Snippets(
    snippetStore,
    executions,
    calls,
    registry,
    catalogue,
    checker,
    (code) => packages.prepare(code),
  );
  const sessionStore = new SessionStore(db);
  // One id for this process: its leases and its sessions say the same.
  const nodeId = newId("node");
  const sessions = new SessionManager(sessionStore, nodeId, {
    ...DEFAULT_SESSIONS,
    ...options.sessions,
  });
  const workspaceRoot = join(base, "workspaces");
  sessions.onDispose = async (s) => {
    if (s.workspace && !s.workspace.persist) await removeWorkspace(workspaceRoot, s.workspace.id);
  };
  const logs = new LogStore(db);
  const engine = new Engine({
    registry,
    defaults,
    maxima,
    env,
    memoryGuard,
    poolSize: options.pool?.size ?? DEFAULT_POOL_SIZE,
    executions,
    calls,
    logs,
    durability: durability satisfies DurabilitySettings,
    // Read through, so a connector's tool-list change reaches new executions.
    get declarationHash() {
      return catalogue.declarationHash;
    },
    platform: platformHost(registry, catalogue, snippets, {
      readLogs: (o, namespace) => readLogPage(executions, logs, o, namespace),
      readRecovery: (o, namespace) => readRecoveryPage(sessionStore, o, namespace),
    }),
    observe: (connector, tool, value, namespace) =>
      catalogue.observe(connector, tool, value, namespace),
    nodeId,
    events: new EventHub(),
    redact,
    prepare: (code) => packages.prepare(code),
    sessions,
    workspaces: {
      root: workspaceRoot,
      artifact: (ref, o) => runtime.artifact(ref, o),
      saveArtifact: (o) => runtime.saveArtifact(o),
    },
  });
  await control.recoverInterrupted(engine);
  const heartbeat = setInterval(async () => {
    // A store that lost its file fails health (and every statement) within a beat, traffic
    // or not.
    db.health();
    sessions.sweep().catch(() => {});
    try {
      await engine.parts.executions.renewLeases(engine.nodeId, Date.now() + durability.leaseMs);
      await control.recoverInterrupted(engine);
    } catch {
      // The store is unreachable for a moment; the next beat tries again.
    }
  }, Math.max(10, Math.floor(durability.leaseMs / 3)));
  const expiry = setInterval(() => {
    control.expirePaused(engine, { maxAgeMs: durability.expireAfterMs }).catch(() => {});
    pruneLogs(engine.parts.logs, { olderThanMs: logRetain }).catch(() => {});
    applyRetention(db, retention).catch(() => {});
    sweepWorkspaces(workspaceRoot, workspaceRetainMs).catch(() => {});
    sessions.pruneStore().catch(() => {});
  }, durability.expireEveryMs);

  const closed = () => {
    if (engine.closed) throw new CordonError("runtime_closed", "The runtime is closed");
  };
  // A connector whose tools change (MCP list_changed): new declarations, index and hash.
  const unsubscribe = connectors.flatMap((c) =>
    c.onToolsChanged
      ? [c.onToolsChanged(() => {
        try {
          registry.refresh(c.name);
          catalogue.toolsChanged();
        } catch {
          // A list with a bad tool name is refused; the old one stays.
        }
      })]
      : []
  );
  const execute = (request: ExecuteRequest, hooks?: ExecuteHooks) =>
    engine.track(() => executeChecked(engine, checker, catalogue, request, typecheck, hooks));
  // One runner per runtime: executeCode keeps callers' sessions keyed by it.
  const codeRunner = { execute, closeSession: (id: string) => runtime.closeSession(id) };
  const runtime: Runtime = {
    execute,
    ...discoveryApi(engine, catalogue, snippets, execute),
    approve: async (id, o) => (closed(), await engine.track(() => control.approve(engine, id, o))),
    reject: async (id, o) => (closed(), await engine.track(() => control.reject(engine, id, o))),
    resolve: async (
      id,
      seq,
      value,
    ) => (closed(), await engine.track(() => control.resolve(engine, id, seq, value))),
    rollback: async (id) => (closed(), await engine.track(() => control.rollback(engine, id))),
    pending: (o) =>
      control.pending(engine, o?.namespace === undefined ? undefined : checkNamespace(o.namespace)),
    ...executionsApi(engine),
    ...sessionsApi(sessions, sessionStore),
    ...artifactsApi(new ArtifactStore(db), artifactBytes, closed),
    pruneExecutions: (o) => pruneExecutions(db, o),
    pruneLogs: (o) => pruneLogs(engine.parts.logs, o),
    executeCode: (request) => executeCode(codeRunner, request),
    expirePaused: (o) => control.expirePaused(engine, o),
    connectors: () => registry.list(),
    async checkConnector(name) {
      const connector = registry.connector(String(name));
      if (!connector) {
        throw new CordonError("connector_not_found", `There is no connector "${name}"`);
      }
      if (!connector.handle) return { ready: true, info: { tools: connector.tools.length } };
      try {
        return await connector.handle.check();
      } catch (err) {
        const info = err instanceof CordonError
          ? err.toInfo()
          : { code: "connector_unavailable", message: String(err) };
        return { ready: false, problems: [{ code: info.code, message: info.message }] };
      }
    },
    capabilities: () => ({
      deno: Deno.version.deno,
      transpiler: "sucrase",
      memoryGuard: { kind: memoryGuard.kind, reason: memoryGuard.reason },
      orphanGuard: { kind: orphanGuard.kind, reason: orphanGuard.reason },
      pool: { size: options.pool?.size ?? DEFAULT_POOL_SIZE, idle: engine.poolIdle },
      limits: { ...defaults },
      maxLimits: { ...maxima },
      db: dbUrl.startsWith("file:") || dbUrl === ":memory:"
        ? dbUrl
        : dbUrl.replace(/\/\/[^@/]*@/, "//"),
      nodeId: engine.nodeId,
      declarationHash: engine.parts.declarationHash,
      packages: { ...packages.allowed },
    }),
    health: () => engine.closed ? { ok: false, reason: "the runtime is closed" } : db.health(),
    warm: async () => {
      await Promise.all([engine.warm(), packages.warm()]);
      if (typecheck !== "off") {
        await checker.warm(catalogue.declarations, catalogue.declarationHash);
      }
    },
    async close() {
      if (engine.closed) return;
      clearInterval(heartbeat);
      clearInterval(expiry);
      await sessions.closeAll("runtime_closed");
      await engine.close();
      for (const off of unsubscribe) off();
      await closeConnectors(connectors);
      checker.close();
      await memoryGuard.dispose();
      db.close();
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
  return runtime;
}
