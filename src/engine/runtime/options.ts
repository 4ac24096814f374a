/**
 * What `createRuntime()` takes: its options, and the defaults it fills in
 * for the pool and durability.
 *
 * @module
 */
import type { RunEnvProvider } from "../programs/types.ts";
import type { HttpConnectorOptions, StateConnectorOptions } from "../../connectors/builtin/mod.ts";
import type { Connector } from "../../connectors/types.ts";
import type { ArtifactsOptions } from "../artifacts/api.ts";
import type { DurabilitySettings } from "../execution/parts.ts";
import type { Limits } from "../execution/limits.ts";
import type { LogOptions, RedactOptions } from "../logs/settings.ts";
import type { SessionSettings } from "../sessions/manager.ts";
import type { TypecheckMode } from "../typecheck/checker.ts";
import type { RetentionOptions } from "./retention.ts";
import type { SearchSettingsOptions } from "../semantic/mod.ts";
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
  /** Python (`execute({ language: "python" })`): where Pyodide is, and warm Python children. */
  python?: PythonOptions;
  /**
   * Environment variables every program run gets (seed 002's `RunEnvProvider`), from its
   * context; a program's own `env` wins over them. The host's environment is never passed.
   */
  runEnv?: RunEnvProvider;
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
  /**
   * Search: with `embed` (e.g. `openAiEmbedder()`), tools and snippets are also ranked by
   * meaning, their vectors computed in the background and stored in the database, and fused
   * with the lexical ranking. Without it, search is lexical only.
   */
  search?: SearchSettingsOptions;
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

/** How Python runs: Pyodide's files and the warm pool of Python children. */
export interface PythonOptions {
  /**
   * Pyodide's directory (the npm package's files: `pyodide.mjs`, `pyodide.asm.wasm`, …). Default:
   * resolved from Cordon's module, then `node_modules/.deno/pyodide@314.0.7/node_modules/pyodide`
   * under Cordon's checkout and the working directory, then DENO_DIR's npm cache. Missing, a
   * Python run fails with `not_supported` naming the fix.
   */
  pyodideDir?: string;
  /**
   * Python children kept warm, Pyodide restored from its snapshot before they say ready (default
   * 1; 0 turns it off). The pool starts on the first Python run, so a runtime that never runs
   * Python boots none. A Python child holds about 190 MB (Pyodide's Wasm memory counts toward
   * the cgroup), within the default `memoryMiB` of 384.
   */
  pool?: number;
  /**
   * Restore children from a memory snapshot of a loaded interpreter (default true): built once
   * per Pyodide version by a trusted child into the runtime's cache folder (about 31 MB), it
   * cuts a Python child's boot from about 3 s to about 0.6 s. False boots CPython every time.
   */
  snapshot?: boolean;
}
