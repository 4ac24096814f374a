/**
 * The executor document's declarative shapes, in camelCase: inputs, outputs
 * and their manifest, bootstrap files and commands, and the program runner
 * a bootstrap command runs through.
 *
 * @module
 */

/** Output collection. */
export interface WorkspaceOutputs {
  /** Globs relative to the workspace (`**` crosses directories): `out/**`, `*.csv`. */
  globs: string[];
  /** At most this many files (default 100). */
  maxFiles?: number;
  /** Files larger than this are skipped (default 10 MiB). */
  maxFileBytes?: number;
  /** Collection stops past this total (default 50 MiB). */
  maxTotalBytes?: number;
  /** Save each collected file as an artifact named `<prefix><path>` (a new version if it exists). */
  saveAs?: { prefix: string };
}

/**
 * What to collect after a run. Beyond {@link WorkspaceOutputs}: `save` stores each file as an
 * artifact named by `nameTemplate`, `inline` puts a text file's content in the manifest.
 */
export interface OutputSpec extends WorkspaceOutputs {
  /** Save each collected file as an artifact (a new version when the name exists). */
  save?: boolean;
  /**
   * The artifact name: `{name}` stands for the file's workspace-relative path; a template
   * without `{name}` is a prefix to it. Default `{name}`.
   */
  nameTemplate?: string;
  /**
   * Put each text file's content (a text MIME type, {@link isTextMime}) in its
   * {@link FileRef}, at most {@link MAX_INLINE_OUTPUT_BYTES} bytes of it (`truncated` past that).
   */
  inline?: boolean;
}

/** The most of one file inlined in a manifest: outputs are read back by a model. */
export const MAX_INLINE_OUTPUT_BYTES = 256 * 1024;

/** One collected file. */
export interface FileRef {
  /** Its workspace-relative path. */
  name: string;
  /** Guessed from its extension (`application/octet-stream` when unknown). */
  mimeType: string;
  /** Its text, with `inline` and a text MIME type. */
  content?: string;
  /** The artifact name it was saved as, with `save`. */
  savedAs?: string;
  /** That artifact's version. */
  version?: number;
  /** Its size in bytes. */
  sizeBytes: number;
  /** Its inlined content is cut at {@link MAX_INLINE_OUTPUT_BYTES}. */
  truncated: boolean;
}

/** What a collection returns, as the document shapes it. */
export interface OutputManifest {
  /** The files collected. */
  files: FileRef[];
  /** A bound (`maxFiles`, `maxFileBytes`, `maxTotalBytes`) stopped or thinned the collection. */
  limitsHit: boolean;
}

/**
 * One input mapped into the workspace.
 *
 * - `from`: `artifact://name[@version]` (this namespace's), `workspace://<id>/<path>` (a
 *   persisted workspace of this namespace), `host://<absolute path>` (library callers only,
 *   inside a root the runtime's `workspaces.hostRoots` lists; refused otherwise),
 *   `skill://<name>[/<path>]` (from the runtime's `workspaces.skillsRoot`).
 * - `to`: workspace-relative; default `work/inputs/<name>` (`<name>`: the last part of the
 *   source), and `skills/<name>[/<path>]` for a skill.
 * - `mode`: `copy` (default) or `link`. `link` is accepted and staged as a copy: Deno follows
 *   symlinks inside an allowed directory, so none is ever made in a workspace, and a hard link
 *   would let the script write through to a file outside it.
 * - `pin`: record the artifact version staged; later stages of the same `from` and `to` in
 *   this workspace use that version, not the newest.
 */
export interface InputSpec {
  /** The source URI. */
  from: string;
  /** The workspace-relative destination. */
  to?: string;
  /** `copy` (default) or `link` (staged as a copy, see above). */
  mode?: "copy" | "link";
  /** Record the version staged and keep staging it. */
  pin?: boolean;
}

/** The workspace a program runs in, as a runner needs it. */
export interface WorkspaceRef {
  /** Its id (`ws_…`). */
  id: string;
  /** Its real path on the host. */
  dir: string;
  /** The namespace that owns it (a runner reopens it as that namespace). */
  namespace?: string;
}

/** Limits of one program run (the document's `ResourceLimits`). */
export interface ResourceLimits {
  /** An approximate percentage of one CPU; enforced where cgroup `cpu` is writable. */
  cpuPercent?: number;
  /** A memory limit in MiB (the child's whole memory where a cgroup is writable). */
  memoryMB?: number;
  /** Processes/threads the child may have; enforced where cgroup `pids` is writable. */
  maxPIDs?: number;
}

/** A program invocation in a workspace (the document's `RunProgramSpec`). */
export interface RunProgramSpec {
  /**
   * What to run: an interpreter (`python3`, `python`, `bash`, `sh`, `deno`, `node`) followed by
   * a file or `-c <code>` in `args`, or a workspace file itself (`./build.sh`, `tool.py`), its
   * language from its extension or `#!` line. Nothing runs outside Cordon's sandbox.
   */
  cmd: string;
  /** Arguments, passed verbatim (`sys.argv[1:]`, `$1…`, `Deno.args`). */
  args?: string[];
  /** Environment variables the program sees, over the workspace's own; nothing of the host's. */
  env?: Record<string, string>;
  /** Working directory, relative to the workspace root (default: the root). */
  cwd?: string;
  /** Text the program reads on standard input. */
  stdin?: string;
  /** Time limit in ms (the runtime's default when absent); a program stopped by it has `timedOut`. */
  timeoutMs?: number;
  /** Resource limits; `capabilities().enforcedLimits` says which this host enforces. */
  limits?: ResourceLimits;
}

/** One program run's result (the document's `RunResult`). */
export interface RunResult {
  /** Everything written to standard output. */
  stdout: string;
  /** Everything written to standard error (and an uncaught error's traceback). */
  stderr: string;
  /**
   * The exit status: 0, the program's own (`sys.exit(3)`, `exit 3`, `Deno.exit(3)`), 1 for an
   * uncaught error, -1 when it was stopped (its time limit, a kill).
   */
  exitCode: number;
  /** Wall time from start to end. */
  durationMs: number;
  /** The time limit stopped it. */
  timedOut: boolean;
  /** The Cordon execution that ran it (its logs, calls and record), when Cordon's runner ran it. */
  executionId?: string;
}

/** Runs programs in a workspace; bootstrap commands and init hooks run through one. */
export interface ProgramRunner {
  /** Runs `spec` in `ws` to its end. A non-zero exit is a result, not a throw. */
  runProgram(ws: WorkspaceRef, spec: RunProgramSpec): Promise<RunResult>;
}

/** A one-shot command run while a workspace is prepared, fingerprinted and skipped when done. */
export interface WorkspaceCommand {
  /** A stable id (default: derived from cmd and args); errors and records name it. */
  key?: string;
  /** The program to run. */
  cmd: string;
  /** Its arguments, passed as they are. */
  args?: string[];
  /** Environment variables for the run (nothing of the host's besides). */
  env?: Record<string, string>;
  /** Workspace-relative working directory. */
  cwd?: string;
  /** The most it may run, in ms. */
  timeoutMs?: number;
  /** A workspace-relative sentinel: created after a successful run when missing; removing it re-runs. */
  markerPath?: string;
  /** Workspace-relative paths that must all exist for the step to count as done. */
  observedPaths?: string[];
  /** Workspace-relative files whose contents are part of the fingerprint. */
  fingerprintInputs?: string[];
  /** Changes the fingerprint (forces a re-run) without changing the command. */
  fingerprintSalt?: string;
  /** A failure becomes a warning instead of failing the run. */
  optional?: boolean;
}

/** A file that must exist in the workspace before commands run: `content` or `input`. */
export interface WorkspaceFile {
  /** A stable id (default: the target). */
  key?: string;
  /** Workspace-relative destination. */
  target: string;
  /** Inline text content (wins over `input`). */
  content?: string;
  /** POSIX mode of an inline write (default 0o644). */
  mode?: number;
  /** A source as an input (`to` is ignored: `target` is where it goes). */
  input?: InputSpec;
  /** A failure becomes a warning instead of failing the run. */
  optional?: boolean;
}

/** What must exist in a workspace before the run: files first, then commands, in order. */
export interface WorkspaceBootstrapSpec {
  /** The files collected. */
  files?: WorkspaceFile[];
  /** Commands run, in order, after the inputs. */
  commands?: WorkspaceCommand[];
}
