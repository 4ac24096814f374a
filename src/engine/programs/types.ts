/**
 * Programs in a workspace, in the names of trpc-agent-go's `codeexecutor`
 * (seed 002): `RunProgramSpec`, `RunResult`, `ResourceLimits`, and the
 * interactive `ProgramSession` with its `ProgramPoll`, `ProgramLog` and
 * `ProgramState`. Durations are milliseconds (`timeoutMs`, `durationMs`)
 * where the document has Go `time.Duration`s.
 *
 * @module
 */
import type {
  ResourceLimits,
  RunProgramSpec,
  RunResult as BaseRunResult,
} from "../workspaces/spec_types.ts";

export type { ResourceLimits, RunProgramSpec };

/** An interactive program still runs and may take more input (`ProgramStatusRunning`). */
export const PROGRAM_STATUS_RUNNING = "running";
/** An interactive program has exited (`ProgramStatusExited`). */
export const PROGRAM_STATUS_EXITED = "exited";

/** One program run's result (the document's `RunResult`), with the execution that ran it. */
export interface RunResult extends BaseRunResult {
  /** The Cordon execution that ran it (its logs, calls and record). */
  executionId: string;
  /** The workspace it ran in, when that one is kept (`persist`, or an `{ id }` reopened). */
  workspaceId?: string;
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
