/**
 * What `createRuntime()` takes: its options, and the defaults it fills in
 * for the pool and durability.
 *
 * @module
 */
import type { HttpConnectorOptions, StateConnectorOptions } from "../../connectors/builtin/mod.ts";
import type { Connector } from "../../connectors/types.ts";
import type { ArtifactsOptions } from "../artifacts/api.ts";
import type { DurabilitySettings } from "../execution/parts.ts";
import type { Limits } from "../execution/limits.ts";
import type { LogOptions, RedactOptions } from "../logs/settings.ts";
import type { SessionSettings } from "../sessions/manager.ts";
import type { TypecheckMode } from "../typecheck/checker.ts";
import type { RetentionOptions } from "./retention.ts";
import type { ProgramRunner, WorkspaceInitFn } from "../workspaces/types.ts";

/** How workspaces are kept and staged. */
export interface WorkspaceOptions {
  /** How long a kept one may sit unused before it is removed (default 7 days). */
  retainMs?: number;
  /**
   * Absolute host directories `host://` inputs may copy from (default none: `host://` is
   * refused). Library callers only: the HTTP API takes no input list, so no `host://`.
   */
  hostRoots?: string[];
  /** The host directory `skill://<name>/…` inputs come from (`<skillsRoot>/<name>`). */
  skillsRoot?: string;
  /** Runs bootstrap commands and init-hook commands (absent: those are `not_supported`). */
  runner?: ProgramRunner;
  /** Run in order once after each workspace is created, before anything is staged. */
  initHooks?: WorkspaceInitFn[];
}

/** The most children `runtime.prewarm(count)` makes wait at once. */
export const MAX_PREWARM = 256;

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
   * The type check an execution gets when it does not say (default `warn`: beside a run that
   * goes on over 20 ms, after a shorter one; findings in the result when ready, else stored
   * with the execution and sent as a `diagnostics` event). The checker thread starts on the
   * first check.
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
  /** Workspaces: retention, `host://` roots, skills, the program runner and init hooks. */
  workspaces?: WorkspaceOptions;
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
