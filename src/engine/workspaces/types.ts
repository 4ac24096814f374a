/**
 * The shapes of workspaces: what an execution asks for, what the result
 * reports, the defaults, and what the host gives the staging code.
 *
 * @module
 */
import type { ArtifactContent, ArtifactInfo, SaveArtifactOptions } from "../artifacts/api.ts";
import type {
  InputSpec,
  OutputManifest,
  OutputSpec,
  ProgramRunner,
  WorkspaceBootstrapSpec,
  WorkspaceRef,
} from "./spec_types.ts";
export type * from "./spec_types.ts";
export { MAX_INLINE_OUTPUT_BYTES } from "./spec_types.ts";

/** What an execution asks of its workspace. */
export interface WorkspaceRequest {
  /** Files written before the run: path → text, or `{ base64 }` for bytes. */
  files?: Record<string, string | { base64: string }>;
  /**
   * Files copied in before the run: path → `artifact://name[@version]` or
   * `workspace://<id>/<path>`; or a list of {@link InputSpec}s (all four schemes).
   */
  inputs?: Record<string, string> | InputSpec[];
  /**
   * Host directories copied in (library callers only; the HTTP API does not offer it):
   * `{ from: "/host/dir", to: "data" }`. Symlinks in them are refused.
   */
  stage?: { from: string; to: string }[];
  /**
   * Files written only when they changed since the last bootstrap of this workspace
   * (fingerprinted): setup that is cheap to repeat on a persisted workspace.
   */
  bootstrap?: Record<string, string> | WorkspaceBootstrapSpec;
  /** What to collect after the run (camelCase or snake_case keys; `$OUTPUT_DIR/…` globs). */
  outputs?: OutputSpec;
  /** Keep the directory after the run; its id comes back to reuse it. */
  persist?: boolean;
  /** Reuse a persisted workspace of the same namespace. */
  id?: string;
  /** The most the directory may hold while the run goes on (default 100 MiB). */
  quotaBytes?: number;
  /**
   * The most entries (files, directories, symlinks) it may hold while the run goes on
   * (default 10,000; at most {@link WORKSPACE_MAX_QUOTA_ENTRIES}).
   */
  quotaEntries?: number;
}

/** One collected output. */
export interface WorkspaceOutput {
  /** Its path in the workspace. */
  path: string;
  /** Its size in bytes. */
  size: number;
  /** The artifact it was saved as (`name@version`), with `saveAs`. */
  ref?: string;
}

/** What the result says about the workspace. */
export interface WorkspaceReport {
  /** The workspace's id (`ws_…`). */
  id: string;
  /** Kept after the run (reuse it with `workspace: { id }`). */
  persisted: boolean;
  /** The files collected, by path. */
  outputs: WorkspaceOutput[];
  /** Which bound stopped collection: `maxFiles`, `maxFileBytes`, `maxTotalBytes`. */
  limitsHit: string[];
  /** The bootstrap was written (false: unchanged since the last one, skipped). */
  bootstrapped?: boolean;
  /** The collection as the document shapes it: {@link FileRef}s, `limitsHit`. */
  manifest?: OutputManifest;
  /** Optional bootstrap steps that failed, and a metadata.json that had to be re-created. */
  warnings?: string[];
}

/** Workspace defaults, each with its reason. */
export const WORKSPACE_DEFAULTS: Readonly<{
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  quotaBytes: number;
  quotaEntries: number;
  maxInlineBytes: number;
}> = Object.freeze({
  // Outputs are what a model reads back: a hundred files is already a lot of context.
  maxFiles: 100,
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  // Enough for real data work; a run that writes more is stopped.
  quotaBytes: 100 * 1024 * 1024,
  // Bytes are not the only cost: every entry is an inode and a stat in each quota check, and a
  // run of empty files costs no bytes. Ten thousand is plenty for data work.
  quotaEntries: 10_000,
  // Inline files travel in the request: a few MiB in all.
  maxInlineBytes: 8 * 1024 * 1024,
});

/**
 * The most entries a workspace may be allowed: the quota check walks every entry every 250 ms
 * on the host, and fifty thousand stats is about as much as that may cost.
 */
export const WORKSPACE_MAX_QUOTA_ENTRIES = 50_000;

/** Kept workspaces unused this long are removed (a week to come back to one; then it goes). */
export const DEFAULT_WORKSPACE_RETAIN_MS = 7 * 24 * 60 * 60_000;

/** What staging needs from the runtime. */
export interface WorkspaceHost {
  /** Where workspaces live (a Cordon-owned directory). */
  root: string;
  /** The namespace staging acts for (artifacts, other workspaces). */
  namespace: string;
  /** Reads an artifact (`artifact://name[@version]`) of `namespace`. */
  artifact(ref: string, options: { namespace: string }): Promise<ArtifactContent | undefined>;
  /** Saves an artifact (collected outputs). */
  saveArtifact(options: SaveArtifactOptions): Promise<ArtifactInfo>;
  /** Host directories `host://` inputs may come from (none: `host://` is refused). */
  hostRoots?: readonly string[];
  /** Where `skill://<name>/…` inputs come from. */
  skillsRoot?: string;
  /** Runs bootstrap commands (absent: a bootstrap with commands is `not_supported`). */
  runner?: ProgramRunner;
  /** Run in order after a workspace is created (not when one is reopened). */
  initHooks?: readonly WorkspaceInitFn[];
  /** The caller's W3C traceparent: workspace spans join its trace. */
  traceparent?: string;
  /** The execution the workspace is prepared for. */
  execId?: string;
}

/** What an init hook gets: the new workspace, the host, and the runner. */
export interface WorkspaceInitEnv {
  /** The new workspace. */
  workspace: WorkspaceRef;
  /** The workspace host (staging, artifacts). */
  host: WorkspaceHost;
  /** The host's runner (absent: hooks that run commands fail `not_supported`). */
  runner?: ProgramRunner;
  /** The execution it is created for, when there is one. */
  execId?: string;
}

/** An init hook: runs once after a workspace is created, before it is used. */
export type WorkspaceInitFn = (env: WorkspaceInitEnv) => Promise<void> | void;

/** A prepared workspace. */
export interface Workspace {
  id: string;
  /** Its real path (what the child's flags name). */
  dir: string;
  persist: boolean;
  quotaBytes: number;
  /** Absent in rows written before the entry quota: the default then applies. */
  quotaEntries?: number;
  /** Output collections, oldest first. */
  outputs?: OutputSpec;
  bootstrapped?: boolean;
  /** Optional steps that failed while it was prepared. */
  warnings?: string[];
  /** The traceparent its spans join (collect, cleanup). */
  traceparent?: string;
  /** The execution it was prepared for. */
  execId?: string;
}
