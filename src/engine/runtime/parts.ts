/**
 * The parts of a runtime built over its database: the stores, the
 * catalogue with its type checker and snippets, the live sessions, and the
 * engine core wired to them.
 *
 * @module
 */
import type { LanguageFiles } from "../../sandbox/languages.ts";
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import type { ChildEnvironment } from "../../sandbox/child.ts";
import type { PythonFiles } from "../../sandbox/pyodide.ts";
import type { MemoryGuard } from "../../sandbox/cgroup.ts";
import { ArtifactStore } from "../../store/artifacts.ts";
import { CallStore } from "../../store/calls.ts";
import type { Db } from "../../store/client.ts";
import { ExecutionStore } from "../../store/executions.ts";
import { LogStore } from "../../store/logs.ts";
import { SessionStore } from "../../store/sessions.ts";
import { ShapeStore } from "../../store/shapes.ts";
import { SnippetStore } from "../../store/snippets.ts";
import { readResultPage } from "../artifacts/pages.ts";
import { Catalogue } from "../catalogue/catalogue.ts";
import { platformHost } from "../discovery/api.ts";
import { codemodeRequests } from "../discovery/platform.ts";
import { Engine } from "../execution/engine.ts";
import { EventHub } from "../execution/events.ts";
import { readLogPage } from "../execution/records.ts";
import type { PackageSet } from "../packages/mod.ts";
import { readRecoveryPage } from "../sessions/api.ts";
import { DEFAULT_SESSIONS, SessionManager } from "../sessions/manager.ts";
import { Snippets } from "../snippets/snippets.ts";
import { Checker } from "../typecheck/checker.ts";
import type { WorkspaceHost } from "../workspaces/workspace.ts";
import { removeWorkspace } from "../workspaces/workspace.ts";
import type { RuntimeOptions } from "./options.ts";
import type { RuntimeSettings } from "./settings.ts";

/** The stores of one database, one of each, shared by every part. */
export interface Stores {
  executions: ExecutionStore;
  calls: CallStore;
  logs: LogStore;
  snippets: SnippetStore;
  sessions: SessionStore;
  shapes: ShapeStore;
  artifacts: ArtifactStore;
}

/** The stores over `db`. */
export function openStores(db: Db): Stores {
  return {
    executions: new ExecutionStore(db),
    calls: new CallStore(db),
    logs: new LogStore(db),
    snippets: new SnippetStore(db),
    sessions: new SessionStore(db),
    shapes: new ShapeStore(db),
    artifacts: new ArtifactStore(db),
  };
}

/** The catalogue (ranking by meaning too, with an embedder), its type checker and snippets. */
export async function openDiscovery(
  db: Db,
  stores: Stores,
  registry: ConnectorRegistry,
  packages: PackageSet,
  settings: RuntimeSettings,
): Promise<{ catalogue: Catalogue; checker: Checker; snippets: Snippets }> {
  // Allowed packages and Node built-ins type as `any` modules: the import check, not the type
  // check, decides what may be imported.
  const moduleDeclarations = [
    "node:*",
    ...Object.keys(packages.allowed).flatMap((n) => [n, `${n}/*`]),
  ]
    .map((m) => `declare module ${JSON.stringify(m)};`).join("\n");
  const catalogue = await Catalogue.open(
    registry,
    stores.shapes,
    await stores.snippets.latest(),
    moduleDeclarations,
    settings.search && { db, settings: settings.search },
  );
  const checker = new Checker();
  if (settings.typecheck !== "off") {
    checker.warm(catalogue.declarations, catalogue.declarationHash);
  }
  const snippets = new Snippets(
    stores.snippets,
    stores.executions,
    stores.calls,
    registry,
    catalogue,
    checker,
    (code) => packages.prepare(code),
  );
  return { catalogue, checker, snippets };
}

/** Live sessions for this process (`nodeId`); a session's throwaway workspace goes with it. */
export function openSessions(
  stores: Stores,
  nodeId: string,
  options: RuntimeOptions,
  workspaceRoot: string,
): SessionManager {
  const sessions = new SessionManager(stores.sessions, nodeId, {
    ...DEFAULT_SESSIONS,
    ...options.sessions,
  });
  sessions.onDispose = async (s) => {
    if (s.workspace && !s.workspace.persist) await removeWorkspace(workspaceRoot, s.workspace.id);
  };
  return sessions;
}

/** What the engine core is wired to besides the stores. */
export interface EngineWiring {
  stores: Stores;
  registry: ConnectorRegistry;
  settings: RuntimeSettings;
  env: ChildEnvironment;
  memoryGuard: MemoryGuard;
  /** Pyodide's files for Python children. */
  python: PythonFiles;
  /** The bash bundle's files for bash children. */
  bash: () => Promise<LanguageFiles>;
  discovery: { catalogue: Catalogue; snippets: Snippets };
  sessions: SessionManager;
  packages: PackageSet;
  workspaces: Omit<WorkspaceHost, "namespace">;
}

/** The engine core, with the capabilities that extend a run plugged in. */
export function openEngine(nodeId: string, w: EngineWiring): Engine {
  const { catalogue, snippets } = w.discovery;
  const { executions, logs, sessions: sessionStore } = w.stores;
  return new Engine({
    registry: w.registry,
    defaults: w.settings.defaults,
    maxima: w.settings.maxima,
    env: w.env,
    memoryGuard: w.memoryGuard,
    poolSize: w.settings.poolSize,
    python: { files: w.python, pool: w.settings.pythonPool },
    bash: w.bash,
    executions,
    calls: w.stores.calls,
    logs,
    durability: w.settings.durability,
    // Read through, so a connector's tool-list change reaches new executions.
    get declarationHash() {
      return catalogue.declarationHash;
    },
    requests: codemodeRequests(platformHost(w.registry, catalogue, snippets, {
      readLogs: (o, namespace) => readLogPage(executions, logs, o, namespace),
      readRecovery: (o, namespace) => readRecoveryPage(sessionStore, o, namespace),
      readResult: (o, namespace) => readResultPage(w.stores.artifacts, { ...o, namespace }),
    })),
    observe: (connector, tool, value, namespace) =>
      catalogue.observe(connector, tool, value, namespace),
    nodeId,
    events: new EventHub(),
    redact: w.settings.redact,
    prepare: (code) => w.packages.prepare(code),
    sessions: w.sessions,
    workspaces: w.workspaces,
    results: { store: w.stores.artifacts, maxBytes: w.settings.artifactBytes },
  });
}
