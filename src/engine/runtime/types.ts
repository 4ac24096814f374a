/**
 * The shapes around `createRuntime()`: its options, the defaults it fills
 * in, what it reports, and the {@link Runtime} interface itself.
 *
 * @module
 */
import type { HttpConnectorOptions, StateConnectorOptions } from "../../connectors/builtin/mod.ts";
import type { Connector, ConnectorCheck, ConnectorInfo } from "../../connectors/types.ts";
import type { MemoryGuardKind } from "../../sandbox/cgroup.ts";
import type { OrphanGuardKind } from "../../sandbox/orphan_guard.ts";
import type { ExecutionStatus } from "../../store/executions.ts";
import type {
  ArtifactContent,
  ArtifactInfo,
  ArtifactPage,
  ArtifactsOptions,
  DeleteArtifactOptions,
  ListArtifactsOptions,
  SaveArtifactOptions,
} from "../artifacts/api.ts";
import type { TypecheckMode } from "../typecheck/checker.ts";
import type { ExecuteCodeRequest, ExecuteCodeResult } from "../code/executor.ts";
import type { SessionSettings } from "../sessions/manager.ts";
import type { SessionsApi } from "../sessions/api.ts";
import type * as control from "../execution/control.ts";
import type { DiscoveryApi, InNamespace } from "../discovery/api.ts";
import type { DurabilitySettings } from "../execution/engine.ts";
import type { Limits } from "../execution/limits.ts";
import type { ExecutionListener } from "../execution/events.ts";
import type {
  CallRecord,
  ExecuteHooks,
  ExecuteRequest,
  ExecuteResult,
  LogEntry,
  PendingAction,
} from "../execution/types.ts";
/** Children kept warm when the caller does not say. */
export const DEFAULT_POOL_SIZE = 2;

/** Durability settings a runtime may be given. */
export interface DurabilityOptions extends DurabilitySettings {
  /** Paused executions older than this are rejected as `expired` (ms). */
  expireAfterMs: number;
  /** How often the expiry runs (ms). */
  expireEveryMs: number;
}

/** Durability defaults, each with its reason. */
export const DEFAULT_DURABILITY: Readonly<DurabilityOptions> = Object.freeze({
  // Long enough for a person at the screen to approve; short enough not to hoard children.
  holdMs: 5 * 60_000,
  // An idle child costs about 10 MiB; 16 held children is a bounded cost.
  maxHeld: 16,
  // A node that stops renewing for this long is taken for dead.
  leaseMs: 15_000,
  // The durable call-log bound from DESIGN.md (UTF-8 bytes).
  maxDurableValueBytes: 1_000_000,
  // A paused run nobody decided in a day is stale.
  expireAfterMs: 24 * 60 * 60_000,
  expireEveryMs: 60 * 60_000,
});

/**
 * How long console lines of an ended execution are kept: a week covers debugging last
 * Friday's run on Monday, and console output (which may hold personal data no pattern
 * recognises) should not pile up for longer than someone is likely to read it.
 */
export const DEFAULT_LOG_RETAIN_MS = 7 * 24 * 60 * 60_000;

/**
 * How long an ended execution (its code, result, call log and console lines) is kept: a
 * month covers looking back over the last billing period or incident, and an execution log
 * that grows without end fills the disk of a busy service (then nothing more is recorded).
 */
export const DEFAULT_EXECUTION_RETAIN_MS = 30 * 24 * 60 * 60_000;

/**
 * Execution retention, applied every `durability.expireEveryMs` (hourly by default). Running
 * and paused executions are never deleted; an ended one goes with its call log and console
 * lines, in one transaction.
 */
export interface RetentionOptions {
  /**
   * Ended executions are deleted this long (ms) after they ended; default
   * {@link DEFAULT_EXECUTION_RETAIN_MS} (30 days), `Infinity` keeps them.
   */
  executionsMaxAgeMs?: number;
  /**
   * Each namespace keeps at most this many ended executions, the newest; default `Infinity`
   * (age alone decides).
   */
  executionsMaxPerNamespace?: number;
}

/** Console log retention. */
export interface LogOptions {
  /**
   * Lines of executions that ended longer ago than this (ms) are deleted by a periodic job
   * that runs every `durability.expireEveryMs`; default {@link DEFAULT_LOG_RETAIN_MS},
   * `Infinity` keeps them.
   */
  retainMs?: number;
}

/** What console lines are redacted of, besides the built-in credential shapes and e-mails. */
export interface RedactOptions {
  /**
   * Secret values the host holds that the runtime is not given otherwise: OpenAPI `auth`
   * values, MCP `headers`/`env` values. The `http` built-in's `secrets` are added by the
   * runtime. Values shorter than 6 characters are ignored (they occur in ordinary text).
   */
  values?: string[];
  /** More shapes; each match becomes `[redacted:secret]`. Keep them linear in time. */
  patterns?: RegExp[];
}

/** Options for {@link createRuntime}. */
export interface RuntimeOptions {
  /** The connectors scripts call, each a global by its name; the runtime starts and closes them. */
  connectors?: readonly Connector[];
  /**
   * The database: `file:…` (default `file:<dataDir>/cordon.db`), `:memory:`, or a libSQL server
   * (`libsql://…`, `http://…`).
   */
  db?: string;
  /** Auth token for a libSQL server. */
  dbAuthToken?: string;
  /** Where a default `file:` database lives (default `./.cordon`). */
  dataDir?: string;
  /** Defaults for every execution. */
  limits?: Partial<Limits>;
  /** The most an execution may ask for. */
  maxLimits?: Partial<Limits>;
  /** The warm pool: children started ahead of executions, so a run does not wait for a spawn. */
  pool?: {
    /** Children kept warm with the default policy (0 turns the pool off). */
    size?: number;
  };
  /** Where and how children run. */
  sandbox?: SandboxOptions;
  /** Overrides of {@link DEFAULT_DURABILITY}: holding paused children, leases, expiry. */
  durability?: Partial<DurabilityOptions>;
  /**
   * The type check an execution gets when it does not say (default `warn`: beside the run,
   * diagnostics returned). The checker thread starts on the first check.
   */
  typecheck?: TypecheckMode;
  /**
   * Built-in connectors: `state` (durable key-value memory in this runtime's database) and
   * `http` (host-side requests to allowed hosts, with secrets the script never sees).
   */
  builtins?: {
    state?: Omit<StateConnectorOptions, "db">;
    http?: HttpConnectorOptions;
  };
  /**
   * npm packages scripts may `import`, name to exact version (`{ "date-fns": "4.1.0" }`). Each is
   * installed and bundled once on the host; any other import fails with `import_not_allowed`.
   */
  packages?: Record<string, string>;
  /** Secrets and shapes redacted from console lines before they are kept or returned. */
  redact?: RedactOptions;
  /** Console log retention. */
  logs?: LogOptions;
  /** Execution retention: how long ended executions are kept, and how many per namespace. */
  retention?: RetentionOptions;
  /** Workspaces: how long a kept one may sit unused before it is removed (default 7 days). */
  workspaces?: { retainMs?: number };
  /** Sessions: idle TTL, how many at once, and how much recovery history to keep. */
  sessions?: Partial<SessionSettings>;
  /** Artifacts: versioned files in the database; `maxBytes` caps one version (default 32 MiB). */
  artifacts?: ArtifactsOptions;
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

/** What {@link Runtime.pruneExecutions} deletes; every rule is optional, at least one is needed. */
export interface PruneExecutionsOptions {
  /** Keep the newest this many ended executions in all. */
  keep?: number;
  /** Keep the newest this many ended executions in each namespace. */
  keepPerNamespace?: number;
  /** Delete ended executions that ended more than this long ago (ms). */
  olderThanMs?: number;
}

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
}

/** An execution as listed. */
export interface ExecutionSummary {
  /** The execution's id. */
  executionId: string;
  /** The tenant it belongs to. */
  namespace: string;
  /** Where it is in its life: `running`, `paused`, or how it ended. */
  status: ExecutionStatus;
  /** When it was created, in ms since the epoch. */
  createdAt: number;
  /** When its status last changed, in ms since the epoch (paused ones expire by it). */
  updatedAt: number;
  /** When it ended, in ms since the epoch; absent while running or paused. */
  endedAt?: number;
  /** Children it has run in: 1, plus one per replay after its child was gone. */
  passes: number;
  /** The failure's code and message, when it ended in `error` or `rejected`. */
  error?: { code: string; message: string };
}

/** An execution with its code, outcome and whole call log. */
export interface ExecutionDetails extends ExecutionSummary {
  /** The code as it was sent. */
  code: string;
  /** The input it was given. */
  input: unknown;
  /** What the code returned, once it completed. */
  result?: unknown;
  /** The connectors the runtime had when it started. */
  connectors: string[];
  /** The declaration hash when it started: which tool types the code was written against. */
  declarationHash: string;
  /** The unguessable reference its stored console lines are read by ({@link Runtime.readLogs}). */
  logRef: string;
  /** The whole call log in `seq` order, each entry with its stored result. */
  calls: (CallRecord & { result?: unknown })[];
  /** Calls still waiting for a decision. */
  pending: PendingAction[];
}

/** A page of stored console lines. */
export interface LogPage {
  /** The execution the lines belong to. */
  executionId: string;
  /** The namespace of that execution. */
  namespace: string;
  /** The lines in the order written, each with its `seq` in the store. */
  items: (LogEntry & { seq: number })[];
  /** Pass back as `cursor` for the next page. */
  nextCursor?: string;
  /** The lines were deleted by log retention ({@link LogOptions.retainMs}); the page is empty. */
  expired?: true;
}

/** The engine. Dispose it (`await using`) to kill every child it started. */
export interface Runtime extends AsyncDisposable, DiscoveryApi, SessionsApi {
  /** Runs code in a fresh sandbox. Expected failures come back as `status: "error"`. */
  execute(request: ExecuteRequest, hooks?: ExecuteHooks): Promise<ExecuteResult>;
  /** Approves waiting calls and returns the next outcome (live, or by replay). */
  approve(executionId: string, options?: { seq?: number }): Promise<ExecuteResult>;
  /** Rejects waiting calls (they throw `rejected` in the script) and returns the next outcome. */
  reject(executionId: string, options?: { seq?: number; reason?: string }): Promise<ExecuteResult>;
  /** Supplies the value of a client-resolved call and returns the next outcome. */
  resolve(executionId: string, seq: number, value: unknown): Promise<ExecuteResult>;
  /** Reverts applied calls newest first and marks the execution `rolled_back`. */
  rollback(executionId: string): Promise<control.RollbackReport>;
  /** Every call waiting for a decision, across executions (of one namespace when given). */
  pending(options?: { namespace?: string }): Promise<PendingAction[]>;
  /** Executions newest first (of one namespace when given). */
  executions(
    options?: { status?: ExecutionStatus; namespace?: string; limit?: number; cursor?: string },
  ): Promise<{
    items: ExecutionSummary[];
    nextCursor?: string;
  }>;
  /** One execution with its call log; `undefined` if unknown. */
  execution(executionId: string): Promise<ExecutionDetails | undefined>;
  /**
   * Deletes an execution with its call log and console lines; false if unknown. Throws
   * `invalid_state` while it runs.
   */
  deleteExecution(executionId: string): Promise<boolean>;
  /**
   * An execution's stored console lines, paged; `not_found` for an unknown reference, or one of
   * another namespace when `namespace` is given.
   */
  readLogs(
    options: { logRef: string; cursor?: string; limit?: number; namespace?: string },
  ): Promise<LogPage>;
  /**
   * Listens to live events of every execution this runtime runs in this process; returns the
   * function that stops listening.
   */
  subscribe(listener: ExecutionListener): () => void;
  /**
   * Deletes ended executions with their call logs and console lines; returns how many. Each
   * rule is optional (at least one is needed): `keep` the newest N in all, `keepPerNamespace`
   * the newest N in each namespace, `olderThanMs` deletes those that ended longer ago. The
   * runtime applies {@link RuntimeOptions.retention} the same way on its own.
   */
  pruneExecutions(options: PruneExecutionsOptions): Promise<number>;
  /**
   * Deletes the console lines of executions that ended more than `olderThanMs` ago (their
   * `readLogs` pages then say `expired: true`); returns how many lines were deleted.
   */
  pruneLogs(options: { olderThanMs: number }): Promise<number>;
  /**
   * Runs the TypeScript/JavaScript code blocks of a model's answer in order, stopping at the
   * first failure; see `executeCode()` in `code_executor.ts`.
   */
  executeCode(request: ExecuteCodeRequest): Promise<ExecuteCodeResult>;
  /** Rejects paused executions older than `maxAgeMs`; returns their ids. */
  expirePaused(options: { maxAgeMs: number }): Promise<string[]>;
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
   * Saves a file as the next version of `options.name` (version 1 for a new name). Throws
   * `invalid_request` for a bad name or media type and `limit_exceeded` past
   * `RuntimeOptions.artifacts.maxBytes`; nothing is stored then.
   */
  saveArtifact(options: SaveArtifactOptions): Promise<ArtifactInfo>;
  /** The newest version of each artifact in a namespace, by name, without bytes; paged. */
  artifacts(options?: ListArtifactsOptions): Promise<ArtifactPage>;
  /**
   * One version with its bytes: `ref` is `name` (the newest), `name@version`, or either behind
   * `artifact://`. `undefined` if there is no such artifact or version.
   */
  artifact(ref: string, options?: InNamespace): Promise<ArtifactContent | undefined>;
  /** Every version of an artifact, newest first, without bytes; empty if there is none. */
  artifactVersions(name: string, options?: InNamespace): Promise<ArtifactInfo[]>;
  /**
   * Deletes one version of an artifact, or every version; false if there was none. A deleted
   * version's number is never given again, so `name@N` always means the same bytes.
   */
  deleteArtifact(name: string, options?: DeleteArtifactOptions): Promise<boolean>;
  /** Resolves once the pool has its children waiting and the type checker is warm. */
  warm(): Promise<void>;
  /**
   * Ends running executions (`runtime_closed`), kills every child, closes the connectors and the
   * database. Calling it again does nothing.
   */
  close(): Promise<void>;
}
