/**
 * The shapes of the executor document's `Engine` in camelCase: a workspace
 * handle and policy, the manager, file system and runner parts, the engine
 * and its options.
 *
 * @module
 */
import type {
  InteractiveProgramSpec,
  ProgramSession,
  RunEnvProvider,
  RunProgramSpec,
  RunResult,
} from "../programs/types.ts";
import type { WorkspaceRegistry } from "../workspaces/hooks.ts";
import type { InputSpec, OutputManifest, OutputSpec } from "../workspaces/types.ts";
import type { File, PutFile, StageOptions, StageReport } from "../workspaces/files.ts";

export type { File, PutFile, StageOptions, StageReport };

/** A workspace (the document's `Workspace`): its id and its real path on the host. */
export interface WorkspaceHandle {
  /** Its id (`ws_…`). */
  id: string;
  /** Its real path on the host (what the child's permissions name). */
  path: string;
}

/** How a workspace is created (the document's `WorkspacePolicy`). */
export interface WorkspacePolicy {
  /** Accepted for the document's sake: every run is isolated in its own locked-down child. */
  isolated?: boolean;
  /** `cleanup()` leaves it in place (it goes with the runtime's retention sweep). */
  persist?: boolean;
  /** Its quota in bytes (0 or absent: the default, 100 MiB); runs in it are held to it too. */
  maxDiskBytes?: number;
}

/** Workspace lifecycle (the document's `WorkspaceManager`). */
export interface WorkspaceManager {
  /**
   * Creates a workspace: its directory and layout (`skills/ work/ runs/ out/`,
   * `metadata.json`), its owner record in the engine's namespace, the runtime's init hooks run
   * once. `execId` labels its spans (`exec_id`) and is at most 256 characters.
   */
  createWorkspace(execId: string, policy?: WorkspacePolicy): Promise<WorkspaceHandle>;
  /**
   * Removes it, unless its policy said `persist` (then nothing happens). Cleaning up one this
   * runtime already removed does nothing; another namespace's, or an unknown id, is
   * `not_found`.
   */
  cleanup(ws: WorkspaceHandle): Promise<void>;
}

/** File operations on a workspace (the document's `WorkspaceFS`); each checks the namespace. */
export interface WorkspaceFS {
  /** Writes files (see `PutFile`): paths inside, no symlink followed, quota and modes kept. */
  putFiles(ws: WorkspaceHandle, files: readonly PutFile[]): Promise<void>;
  /**
   * Copies a host directory or file (under the runtime's `workspaces.hostRoots`, else
   * `policy_denied`) to `to`; never a mount, even with `allowMount`.
   */
  stageDirectory(
    ws: WorkspaceHandle,
    src: string,
    to: string,
    options?: StageOptions,
  ): Promise<StageReport>;
  /** Files matching `patterns` (`$OUTPUT_DIR/*` accepted), text inline, bounded. */
  collect(ws: WorkspaceHandle, patterns: readonly string[]): Promise<File[]>;
  /** Stages `InputSpec`s (artifact://, workspace://, host://, skill://), recorded in metadata. */
  stageInputs(ws: WorkspaceHandle, specs: readonly InputSpec[]): Promise<void>;
  /** Collects outputs by spec (inline, `save` as artifacts), recorded in metadata.json. */
  collectOutputs(ws: WorkspaceHandle, spec: OutputSpec): Promise<OutputManifest>;
}

/** Programs in a workspace (the document's `ProgramRunner` and `InteractiveProgramRunner`). */
export interface WorkspaceRunner {
  /** Runs a program to its end in the workspace (the runtime's `runProgram` with `{ id }`). */
  runProgram(ws: WorkspaceHandle, spec: RunProgramSpec): Promise<RunResult>;
  /** Starts an interactive program in the workspace and returns its session at once. */
  startProgram(ws: WorkspaceHandle, spec: InteractiveProgramSpec): Promise<ProgramSession>;
}

/** The document's `Engine`: one namespace's view of the runtime's workspaces. */
export interface WorkspaceEngine {
  /** The namespace every operation acts for. */
  readonly namespace: string;
  /** Creates and cleans up workspaces. */
  readonly manager: WorkspaceManager;
  /** Puts, stages and collects files. */
  readonly fs: WorkspaceFS;
  /** Runs programs. */
  readonly runner: WorkspaceRunner;
  /** Logical ids → workspaces made by `manager`, concurrent first acquires coalesced. */
  readonly registry: WorkspaceRegistry<WorkspaceHandle>;
  /** What workspaces offer (the document's `Capabilities`), as `capabilities().workspace`. */
  describe(): WorkspaceCapabilities;
}

/** Options of `runtime.workspaceEngine()`. */
export interface WorkspaceEngineOptions {
  /** The tenant (default `default`). */
  namespace?: string;
  /** Variables merged into every run's environment, under the spec's own (`withRunEnv`). */
  runEnv?: RunEnvProvider;
  /**
   * A W3C `traceparent`: the engine's spans (`workspace.create`, `workspace.stage.*`,
   * `workspace.collect`, `workspace.run`, `workspace.cleanup`) and its programs' executions
   * join that trace. A malformed one is ignored.
   */
  traceparent?: string;
}

/** The executor document's Capabilities, answered for this runtime's workspaces. */
export interface WorkspaceCapabilities {
  /**
   * How a run is isolated: `process`, a `deno run` child per run (or per session) with
   * Deno permissions for its workspace only, host-enforced limits, no environment.
   */
  isolation: "process";
  /**
   * True: a run may reach the network, but only the hosts its execution's `policy.net`
   * lists (none by default; private addresses never).
   */
  networkAllowed: boolean;
  /** False: inputs and skills are copied into the workspace, never mounted. */
  readOnlyMount: boolean;
  /** True: console lines stream as `log` events (server-sent events over HTTP) during a run. */
  streaming: boolean;
  /** The default workspace quota in bytes (a request may set its own `quotaBytes`). */
  maxDiskBytes: number;
}
