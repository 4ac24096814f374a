/**
 * The {@link Runtime} interface, assembled from the parts each capability
 * defines below it (discovery, sessions, executions, decisions, artifacts,
 * retention), with what only the whole runtime answers: `execute`, the
 * connectors, what it can do on this host, its health, warming and closing.
 *
 * @module
 */
import type { ProgramsApi } from "./programs.ts";
import type { ConnectorCheck, ConnectorInfo } from "../../connectors/types.ts";
import type { MemoryGuardKind } from "../../sandbox/cgroup.ts";
import type { OrphanGuardKind } from "../../sandbox/orphan_guard.ts";
import type { ArtifactsApi } from "../artifacts/api.ts";
import type { ExecuteCodeRequest, ExecuteCodeResult } from "../code/executor.ts";
import type { CodeBlockDelimiter } from "../code/delimited.ts";
import type { DiscoveryApi } from "../discovery/api.ts";
import type { ControlApi } from "../execution/control_api.ts";
import type { Limits } from "../execution/limits.ts";
import type { ExecutionsApi } from "../execution/records_types.ts";
import type { ExecuteHooks, ExecuteRequest, ExecuteResult } from "../execution/types.ts";
import type { SessionsApi } from "../sessions/api.ts";
import type { RetentionApi } from "./retention.ts";
import type {
  WorkspaceCapabilities,
  WorkspaceEngine,
  WorkspaceEngineOptions,
} from "./workspace_engine_types.ts";
export type { WorkspaceCapabilities };

/** {@link Runtime.health}: ok, or the reason it cannot keep what it acknowledges. */
export type RuntimeHealth = { ok: true } | { ok: false; reason: string };

/** What this runtime can do on this host. */
export interface RuntimeCapabilities {
  /** The Deno version of this process (children run `sandbox.denoPath`, the same by default). */
  deno: string;
  /** What turns the model's TypeScript into JavaScript for the child. */
  transpiler: "sucrase";
  /** What bounds a child's memory on this host, and why that guard was chosen. */
  memoryGuard: { kind: MemoryGuardKind; reason: string };
  /**
   * Which limits this host enforces with a cgroup: `memoryMiB` (beyond the heap cap), `maxPids`
   * (processes and threads) and `cpuPercent` (a CPU quota). A run asking for one that is not
   * enforced still runs, and its `meta.limitsNotEnforced` names it.
   */
  enforcedLimits: { memoryMiB: boolean; cpuPercent: boolean; maxPids: boolean };
  /**
   * What kills a child when this process dies (`pdeathsig`: the kernel, at
   * once; `none`: a child that spins lives on until a starting host sweeps it).
   */
  orphanGuard: { kind: OrphanGuardKind; reason: string };
  /** Children the warm pool keeps (`size`) and how many wait now (`idle`). */
  pool: { size: number; idle: number };
  /** What an execution gets when it asks for nothing. */
  limits: Limits;
  /** The most an execution may ask for. */
  maxLimits: Limits;
  /** The database URL, with any credentials taken out. */
  db: string;
  /** This runtime's id as the owner of the executions it runs (their leases name it). */
  nodeId: string;
  /** The hash of the current tool declarations; it changes with any tool's schema. */
  declarationHash: string;
  /** The npm packages scripts may import, name to version. */
  packages: Record<string, string>;
  /** What workspaces offer, in the executor document's Capabilities fields. */
  workspace: WorkspaceCapabilities;
}

/** The engine. Dispose it (`await using`) to kill every child it started. */
export interface Runtime
  extends
    AsyncDisposable,
    DiscoveryApi,
    SessionsApi,
    ExecutionsApi,
    ControlApi,
    ArtifactsApi,
    ProgramsApi,
    RetentionApi {
  /** Runs code in a fresh sandbox. Expected failures come back as `status: "error"`. */
  execute(request: ExecuteRequest, hooks?: ExecuteHooks): Promise<ExecuteResult>;
  /**
   * Runs the TypeScript/JavaScript code blocks of a model's answer in order, stopping at the
   * first failure; see `executeCode()` in `code/executor.ts`.
   */
  executeCode(request: ExecuteCodeRequest): Promise<ExecuteCodeResult>;
  /**
   * The document's `CodeBlockDelimiter()`: the markers this executor's blocks are written
   * between (Markdown fences, `{ start: "```", end: "```" }`), for `extractCodeBlock()`.
   */
  codeBlockDelimiter(): CodeBlockDelimiter;
  /**
   * The executor document's `Engine` over this runtime's workspaces, for one namespace
   * (default `default`): `manager` (createWorkspace, cleanup), `fs` (putFiles, stageDirectory,
   * collect, stageInputs, collectOutputs), `runner` (runProgram, startProgram), `describe()`
   * and a `registry`. With `runEnv`, as `withRunEnv(engine, runEnv)`.
   */
  workspaceEngine(options?: WorkspaceEngineOptions): WorkspaceEngine;
  /** The connectors and their tools, as data. */
  connectors(): ConnectorInfo[];
  /** Whether a connector can serve calls now (`connector_not_found` if there is none). */
  checkConnector(name: string): Promise<ConnectorCheck>;
  /** What this runtime runs with on this host: versions, memory guard, pool and limits. */
  capabilities(): RuntimeCapabilities;
  /**
   * Whether this runtime can keep what it acknowledges. Not ok once closed, or once its store
   * lost its database file (deleted, replaced, truncated) or reported a fatal error (disk
   * full, I/O error, corruption); from then on every store operation fails
   * `store_unavailable` until the process restarts. Cheap: one file check.
   */
  health(): RuntimeHealth;
  /**
   * Resolves once the pool has its children waiting and the type checker is warm; with an
   * embedder, once every tool and snippet has its vector too (or embedding them failed).
   */
  warm(): Promise<void>;
  /**
   * Gets ready for a burst: resolves once `count` children wait, ready, with the default
   * policy (booting several at once). The pool keeps them until they are taken, then shrinks
   * back to its size; it refills one child at a time, so a burst is not slowed by its own
   * refill. `count` is an integer from 0 to `MAX_PREWARM` (256); anything else is
   * `invalid_request`.
   */
  prewarm(count: number): Promise<void>;
  /**
   * Ends running executions (`runtime_closed`), kills every child, closes the connectors and the
   * database. Calling it again does nothing.
   */
  close(): Promise<void>;
}
