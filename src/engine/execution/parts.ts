/**
 * What the engine core is built from ({@link EngineParts}): the registry,
 * the stores, the sandbox environment, durability settings, and the hooks
 * through which the capabilities above the core reach into a run (script
 * requests, observed shapes, sessions, workspaces, redaction).
 *
 * @module
 */
import type { LanguageFiles } from "../../sandbox/languages.ts";
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import type { MemoryGuard } from "../../sandbox/cgroup.ts";
import type { ChildEnvironment } from "../../sandbox/child.ts";
import type { ArtifactStore } from "../../store/artifacts.ts";
import type { CallStore } from "../../store/calls.ts";
import type { ExecutionRow, ExecutionStore } from "../../store/executions.ts";
import type { LogStore } from "../../store/logs.ts";
import type { SessionManager } from "../sessions/manager.ts";
import type { SessionUse } from "../sessions/runs.ts";
import type { PreparedSource } from "../source/source.ts";
import type { WorkspaceHost } from "../workspaces/workspace.ts";
import type { EventHub } from "./events.ts";
import type { PythonChildren } from "./children.ts";
import type { CallJournal } from "./journal.ts";
import type { Limits } from "./limits.ts";
import type { Pass, ScriptRequests } from "./pass.ts";

/** Durability settings. */
export interface DurabilitySettings {
  /** How long a paused child is kept for live continuation, in ms. */
  holdMs: number;
  /** How many paused children one process keeps at once; past it the oldest is released. */
  maxHeld: number;
  /** How long a running execution's lease lasts without renewal, in ms. */
  leaseMs: number;
  /** The largest argument or result the call log stores, in UTF-8 bytes. */
  maxDurableValueBytes: number;
}

/** Everything the engine is built from. */
export interface EngineParts {
  registry: ConnectorRegistry;
  defaults: Limits;
  maxima: Limits;
  env: ChildEnvironment;
  memoryGuard: MemoryGuard;
  poolSize: number;
  /** Python's files and warm pool (absent: Python runs are refused with `not_supported`). */
  python?: PythonChildren;
  /** The bash bundle's files, built on first use (absent: bash runs are refused). */
  bash?: () => Promise<LanguageFiles>;
  executions: ExecutionStore;
  calls: CallStore;
  logs: LogStore;
  durability: DurabilitySettings;
  /** A stable hash of the connector catalogue (declarations). */
  declarationHash: string;
  /** Answers a script's requests besides tool calls and steps (the `codemode` platform). */
  requests?: ScriptRequests;
  /** Sees each applied tool result and the namespace that got it (observed output shapes). */
  observe?(connector: string, tool: string, value: unknown, namespace: string): void;
  /** Live events for listeners (the service's server-sent events). */
  events: EventHub;
  /** Prepares code that may import allowed packages (`PackageSet.prepare`); else prepareSource. */
  prepare?(code: string): PreparedSource | Promise<PreparedSource>;
  /** This process's id (made here when absent). */
  nodeId?: string;
  /** Live sessions (absent: executions cannot ask for one). */
  sessions?: SessionManager;
  /** Where workspaces live and how their inputs and outputs reach artifacts. */
  workspaces?: Omit<WorkspaceHost, "namespace">;
  /** Applied to console lines, and to code and messages before they are journaled. */
  redact?: (text: string) => string;
  /**
   * Where results over `inlineResultBytes` are stored (as artifacts of at most `maxBytes`);
   * absent: they are returned inline up to `maxResultBytes`.
   */
  results?: { store: ArtifactStore; maxBytes: number };
}

/** A run with a live child in this process: its pass, row, journal and session. */
export interface LiveRun {
  pass: Pass;
  row: ExecutionRow;
  journal: CallJournal;
  startedAt: number;
  session?: SessionUse;
  /** The execution's first pass, started by `execute()`: nothing of it is stored but its row. */
  fresh?: boolean;
}
