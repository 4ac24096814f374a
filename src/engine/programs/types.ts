/**
 * Programs in a workspace, in the names of trpc-agent-go's `codeexecutor`
 * (seed 002): `RunProgramSpec`, `RunResult`, `ResourceLimits`, and the
 * interactive `ProgramSession` with its `ProgramPoll`, `ProgramLog` and
 * `ProgramState`. Durations are milliseconds (`timeoutMs`, `durationMs`)
 * where the document has Go `time.Duration`s.
 *
 * @module
 */

/** An interactive program still runs and may take more input (`ProgramStatusRunning`). */
export const PROGRAM_STATUS_RUNNING = "running";
/** An interactive program has exited (`ProgramStatusExited`). */
export const PROGRAM_STATUS_EXITED = "exited";

/** The document's environment keys a program sees. */
export const ENV_WORKSPACE_DIR = "WORKSPACE_DIR";
/** Session-scoped skill working copies (`skills/`). */
export const ENV_SKILLS_DIR = "SKILLS_DIR";
/** Writable shared intermediates (`work/`). */
export const ENV_WORK_DIR = "WORK_DIR";
/** Collected outputs (`out/`). */
export const ENV_OUTPUT_DIR = "OUTPUT_DIR";
/** This run's own directory (`runs/run_<time>`). */
export const ENV_RUN_DIR = "RUN_DIR";
/** The skill a program runs in, when its working directory is under `skills/<name>`. */
export const ENV_SKILL_NAME = "SKILL_NAME";

/** Limits of one program run (the document's `ResourceLimits`). */
export interface ResourceLimits {
  /** An approximate percentage of one CPU (1–100 per core); enforced where cgroup `cpu` is writable. */
  cpuPercent?: number;
  /** A memory limit in MiB (the child's heap and, where a cgroup is writable, its whole memory). */
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
  /** Resource limits; `capabilities().programs` says which this host enforces. */
  limits?: ResourceLimits;
}

/** One program run's result (the document's `RunResult`). */
export interface RunResult {
  /** Everything written to standard output. */
  stdout: string;
  /** Everything written to standard error (and an uncaught error's message). */
  stderr: string;
  /** The exit status: 0, the program's own (`sys.exit(3)`, `exit 3`), 1 for an uncaught error, -1 when stopped. */
  exitCode: number;
  /** Wall time from start to end. */
  durationMs: number;
  /** The time limit stopped it. */
  timedOut: boolean;
  /** The Cordon execution that ran it (its logs, calls and record). */
  executionId: string;
}

/** A session-oriented program invocation (the document's `InteractiveProgramSpec`). */
export interface InteractiveProgramSpec extends RunProgramSpec {
  /** A terminal is not offered: `true` is refused (`not_supported`). */
  tty?: boolean;
}

/** Incremental output of an interactive program (the document's `ProgramPoll`). */
export interface ProgramPoll {
  /** `running` or `exited`. */
  status: typeof PROGRAM_STATUS_RUNNING | typeof PROGRAM_STATUS_EXITED;
  /** The lines since the last poll, joined by `\n` (with a trailing partial line). */
  output: string;
  /** The first line's number. */
  offset: number;
  /** Where the next poll starts. */
  nextOffset: number;
  /** The exit status once exited. */
  exitCode?: number;
}

/** Output from an offset, without moving the poll cursor (the document's `ProgramLog`). */
export interface ProgramLog {
  /** The lines, joined by `\n`. */
  output: string;
  /** The first line's number. */
  offset: number;
  /** The line after the last returned. */
  nextOffset: number;
}

/** Status without reading output (the document's `ProgramState`). */
export interface ProgramState {
  /** `running` or `exited`. */
  status: typeof PROGRAM_STATUS_RUNNING | typeof PROGRAM_STATUS_EXITED;
  /** The exit status once exited. */
  exitCode?: number;
}

/** A running interactive program (the document's `ProgramSession`); safe for concurrent use. */
export interface ProgramSession {
  /** The session's id. */
  readonly id: string;
  /** The Cordon execution running the program. */
  readonly executionId: string;
  /** Output since the last poll, at most `limit` lines. */
  poll(limit?: number): ProgramPoll;
  /** Output from `offset` (default: the oldest kept line), at most `limit` lines. */
  log(offset?: number, limit?: number): ProgramLog;
  /** Sends text to the program's standard input (a newline after it when `newline`). */
  write(data: string, newline?: boolean): Promise<void>;
  /** Asks the program to stop; after `graceMs` it is killed. */
  kill(graceMs?: number): Promise<void>;
  /** Releases the session (kills the program if it still runs). */
  close(): Promise<void>;
  /** Status without reading output. */
  state(): ProgramState;
  /** The final result once exited (the document's `RunResult()`), else undefined. */
  result(): RunResult | undefined;
  /** Settles with the final result when the program exits. */
  readonly done: Promise<RunResult>;
}

/** Extra environment per run (the document's `RunEnvProvider`); never overrides `spec.env`. */
export type RunEnvProvider = (
  context: { workspaceId?: string; cmd: string; namespace?: string },
) => Record<string, string> | Promise<Record<string, string>>;
