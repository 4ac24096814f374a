/**
 * `createRuntime()`: the engine a library user, the server and the test kit
 * all share, wired from its parts. It owns the connectors, the store, the
 * sandbox environment, the warm pool and every child it has started.
 *
 * @module
 */
import { bashFiles } from "../languages/bash_bundle.ts";
import { programsApi } from "./programs.ts";
import { join, resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import type { Connector } from "../../connectors/types.ts";
import { CordonError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { type Db, openDb } from "../../store/client.ts";
import { migrate } from "../../store/migrations.ts";
import { PythonFiles } from "../../sandbox/pyodide.ts";
import { artifactsApi } from "../artifacts/api.ts";
import { executeCode } from "../code/executor.ts";
import { DEFAULT_CODE_BLOCK_DELIMITER } from "../code/delimited.ts";
import { executeChecked } from "../discovery/checked.ts";
import { discoveryApi } from "../discovery/api.ts";
import { controlApi } from "../execution/control_api.ts";
import { recoverInterrupted } from "../execution/control.ts";
import { executionsApi } from "../execution/records.ts";
import type { ExecuteHooks, ExecuteRequest } from "../execution/types.ts";
import type { SaveArtifactOptions } from "../artifacts/api.ts";
import type { RunProgramSpec, WorkspaceRef } from "../workspaces/types.ts";
import { pruneLogs } from "../logs/settings.ts";
import { PackageSet } from "../packages/mod.ts";
import { sessionsApi } from "../sessions/api.ts";
import { runtimeCapabilities, workspaceStaging } from "./capabilities.ts";
import { checkConnector, closeConnectors, openConnectors, watchToolChanges } from "./connectors.ts";
import { childEnvironment, hostGuards, runtimeFolders } from "./environment.ts";
import { MAX_PREWARM, type RuntimeOptions } from "./options.ts";
import { openDiscovery, openEngine, openSessions, openStores } from "./parts.ts";
import { pruneExecutions } from "./retention.ts";
import { runtimeSettings } from "./settings.ts";
import type { Runtime } from "./types.ts";
import { startUpkeep } from "./upkeep.ts";
import { workspaceEngineFactory } from "./workspace_engine.ts";

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
  const settings = runtimeSettings(options);
  const sandbox = options.sandbox ?? {};
  // Before anything is opened: a guest that cannot be had leaves nothing to close.
  const folders = await runtimeFolders(sandbox);
  const packages = new PackageSet({
    packages: options.packages,
    root: folders.packages,
    denoPath: sandbox.denoPath ?? Deno.execPath(),
    denoDir: folders.denoDir,
  });
  const dbUrl = options.db ??
    pathToFileURL(join(resolvePath(options.dataDir ?? ".cordon"), "cordon.db")).href;
  const db = await openDb(dbUrl, options.dbAuthToken);
  const { connectors, registry } = await closingOnFailure(db, [], async () => {
    await migrate(db);
    return await openConnectors(options, db);
  });
  // Nothing started may outlive a runtime that was never returned.
  const guards = await closingOnFailure(
    db,
    connectors,
    () => hostGuards(sandbox, folders.denoDir),
  );
  const stores = openStores(db);
  const discovery = await openDiscovery(db, stores, registry, packages, settings);
  const { catalogue, checker, snippets } = discovery;
  // One id for this process: its leases and its sessions say the same.
  const nodeId = newId("node");
  const sessions = openSessions(stores, nodeId, options, folders.workspaces);
  const workspaceHost = {
    root: folders.workspaces,
    // Bootstrap commands and init hooks run as programs of this runtime unless one is given.
    runner: {
      runProgram: (ws: WorkspaceRef, spec: RunProgramSpec) =>
        runtime.runProgram({ id: ws.id }, spec, { namespace: ws.namespace }),
    },
    ...workspaceStaging(options.workspaces),
    artifact: (ref: string, o: { namespace: string }) => runtime.artifact(ref, o),
    saveArtifact: (o: SaveArtifactOptions) => runtime.saveArtifact(o),
  };
  const engine = openEngine(nodeId, {
    stores,
    registry,
    settings,
    env: childEnvironment(sandbox, folders, guards),
    memoryGuard: guards.memoryGuard,
    python: new PythonFiles({
      pyodideDir: options.python?.pyodideDir,
      cacheDir: folders.base,
      denoPath: sandbox.denoPath ?? Deno.execPath(),
      denoDir: folders.denoDir,
      snapshot: options.python?.snapshot,
    }),
    bash: () => bashFiles(folders.base),
    discovery,
    sessions,
    packages,
    workspaces: workspaceHost,
  });
  await recoverInterrupted(engine);
  const stopUpkeep = startUpkeep(engine, db, sessions, settings, folders.workspaces);
  const unsubscribe = watchToolChanges(connectors, registry, catalogue);
  const assertOpen = () => {
    if (engine.closed) throw new CordonError("runtime_closed", "The runtime is closed");
  };
  const execute = (request: ExecuteRequest, hooks?: ExecuteHooks) =>
    engine.track(() =>
      executeChecked(engine, checker, catalogue, request, settings.typecheck, hooks)
    );
  const programs = programsApi(engine, execute, folders.workspaces, options.runEnv, assertOpen);
  // One runner per runtime: executeCode keeps callers' sessions keyed by it.
  const codeRunner = { execute, closeSession: (id: string) => runtime.closeSession(id) };
  const runtime: Runtime = {
    execute,
    ...discoveryApi(engine, catalogue, snippets, execute),
    ...controlApi(engine, assertOpen),
    ...executionsApi(engine),
    ...sessionsApi(sessions, stores.sessions),
    ...artifactsApi(stores.artifacts, settings.artifactBytes, assertOpen),
    ...programs,
    pruneExecutions: (o) => pruneExecutions(db, o),
    pruneLogs: (o) => pruneLogs(stores.logs, o),
    executeCode: (request) => executeCode(codeRunner, request),
    codeBlockDelimiter: () => ({ ...DEFAULT_CODE_BLOCK_DELIMITER }),
    workspaceEngine: workspaceEngineFactory({ host: workspaceHost, programs, assertOpen }),
    connectors: () => registry.list(),
    checkConnector: (name) => checkConnector(registry, name),
    capabilities: () =>
      runtimeCapabilities(engine, settings, { ...guards, dbUrl, packages: packages.allowed }),
    health: () => engine.closed ? { ok: false, reason: "the runtime is closed" } : db.health(),
    warm: async () => {
      await Promise.all([engine.warm(), packages.warm(), catalogue.semantic?.settled()]);
      if (settings.typecheck !== "off") {
        await checker.warm(catalogue.declarations, catalogue.declarationHash);
      }
    },
    prewarm: async (count) => {
      assertOpen();
      if (!Number.isInteger(count) || count < 0 || count > MAX_PREWARM) {
        throw new CordonError(
          "invalid_request",
          `prewarm(count) takes an integer from 0 to ${MAX_PREWARM}, not ${String(count)}`,
        );
      }
      await engine.warm(count);
    },
    async close() {
      if (engine.closed) return;
      stopUpkeep();
      await programs.closeAllPrograms();
      await sessions.closeAll("runtime_closed");
      await engine.close();
      // Checks still finishing after their runs returned store their findings first.
      await checker.drain();
      for (const off of unsubscribe) off();
      await closeConnectors(connectors);
      checker.close();
      await catalogue.semantic?.close();
      await guards.memoryGuard.dispose();
      db.close();
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
  return runtime;
}

/** Runs `step`; if it throws, closes the connectors and the database opened before it. */
async function closingOnFailure<T>(
  db: Db,
  connectors: readonly Connector[],
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    await closeConnectors(connectors);
    db.close();
    throw err;
  }
}
