/**
 * The shapes `execute()` takes and returns.
 *
 * @module
 */
import type { ErrorInfo } from "../../errors.ts";
import type { ProgramRunParams } from "../../sandbox/protocol.ts";
import type { MemoryGuardKind } from "../../sandbox/cgroup.ts";
import type { CodeForm } from "../source/source.ts";
import type { LogEntry } from "../logs/buffer.ts";
import type { Limits } from "./limits.ts";
import type { CallState, PendingNeed } from "../../store/calls.ts";
import type { WorkspaceReport, WorkspaceRequest } from "../workspaces/workspace.ts";

export type { LogEntry };

/** What a caller may set per execution. */
export interface ExecuteRequest {
  /**
   * The code. TypeScript: a script body, an async function, or a module with a default export.
   * Python: a block whose last expression statement is the result (notebook style).
   */
  code: string;
  /**
   * The language of `code`: `typescript` (the default; also `ts`, `javascript`, `js`) or
   * `python` (`py`), which runs on Pyodide inside the same sandbox: connectors are globals of
   * the same names (`await github.list_pull_requests(owner="x")`, or one dict), `INPUT` and
   * `cordon.input` hold the input, a failed call raises `cordon.ToolError` (`.code`,
   * `.details`), `print` is console output, only Pyodide's bundled modules import, and no type
   * check applies. `bash` (`sh`) is refused with `unsupported_language` for now; an unknown name
   * with `invalid_request`. A Python session keeps its interpreter: later blocks see the globals
   * earlier ones defined (a session keeps the language it was created with).
   */
  language?: string;
  /**
   * Set by `runProgram`/`startProgram` (use those): the run is a program with these arguments,
   * environment variables, working directory and standard input. Needs a `workspace`.
   */
  program?: ProgramRunParams;
  /** Passed to the code as `input`. */
  input?: unknown;
  /** Shorthand for `limits.timeoutMs`. */
  timeoutMs?: number;
  /** Overrides of the runtime's default limits, each bounded by its maximum. */
  limits?: Partial<Limits>;
  /** What the child may reach. */
  policy?: ExecutionPolicy;
  /**
   * Type-check against the tools' declarations: `warn` (the runtime's default) checks beside
   * the run and returns diagnostics; `strict` checks first and does not run code with type
   * errors; `off` skips it.
   */
  typecheck?: "off" | "warn" | "strict";
  /** The tenant the execution belongs to (default `default`); its snippets are the ones it sees. */
  namespace?: string;
  /**
   * `true` starts a session: the child and its heap outlive this execution, and top-level
   * declarations of script-form code stay visible to the next execution in it. The id comes
   * back in `meta.sessionId`. Sessions are node-local.
   */
  session?: boolean;
  /** Runs in an existing session (`session_not_found` / `session_busy` before any code runs). */
  sessionId?: string;
  /**
   * A directory the code may read and write (and nothing else), staged before and collected
   * after the run; the script sees it as the `workspace` global.
   */
  workspace?: WorkspaceRequest;
  /**
   * A W3C `traceparent` (`00-<trace id>-<parent id>-<flags>`): the execution joins that trace,
   * and `meta.traceId` is its trace id. Absent or malformed, the execution gets a trace id of its
   * own (a malformed one is ignored, never refused).
   */
  traceparent?: string;
}

/** Callbacks around one `execute()`. */
export interface ExecuteHooks {
  /**
   * Called once the execution is recorded, with its id (not called when the request is refused
   * before anything is stored). Its code may already be running (the row is written while a
   * pooled child starts), but nothing it asks of the host (calls, console lines) is handled
   * before the record, the `started` event and this call.
   */
  onStart?(executionId: string): void;
}

/** Per-execution sandbox policy. */
export interface ExecutionPolicy {
  /** Hosts the code may `fetch` (`host` or `host:port`). Private ranges stay denied. */
  net?: string[];
}

/** One entry of the call log, as the result reports it. */
export interface CallRecord {
  /** The call's number in the execution's call log, from 1. */
  seq: number;
  /** `tool` for tool calls, `step` for `codemode.step` values. */
  kind: "tool" | "step";
  /** The connector called (`codemode` for a step). */
  connector: string;
  /** The tool called (`step` for a step). */
  tool: string;
  /** The arguments as the script passed them (a step's are its name and occurrence). */
  args: unknown;
  /** Where the call is: `executing`, `applied`, `pending`, `error`, `rejected` or `reverted`. */
  state: CallState;
  /** From when the call was logged until it ended, in ms (approval waits count); 0 until then. */
  durationMs: number;
  /** Why the call failed or was rejected, or why reverting it failed. */
  error?: ErrorInfo;
  /** What the call waited for, if anything: `approval`, or a `value` from `resolve()`. */
  needs?: PendingNeed;
}

/** A call waiting for a person or a client. */
export interface PendingAction {
  /** The paused execution the call belongs to. */
  executionId: string;
  /** The call's number in the call log: pass it as `seq` to `approve`, `reject` or `resolve`. */
  seq: number;
  /** The connector called. */
  connector: string;
  /** The tool called. */
  tool: string;
  /** The arguments as the script passed them; the tool validates them only when it runs. */
  args: unknown;
  /**
   * What the call waits for: `client`, a value the client computes (answer with
   * `resolveExecution(executionId, seq, result)`), or `approval`, a person's yes or no (answer
   * with `approve` or `reject`).
   */
  resolution: "client" | "approval";
  /** Cordon's older name for `resolution`: `value` for `client`, `approval` for `approval`. */
  needs: PendingNeed;
  /**
   * Whether a client listens for this execution now (an open event stream on this process):
   * `false` tells a UI to prompt the user to reconnect, or the run waits until it expires.
   */
  clientConnected: boolean;
  /** When the call was made (ms since the epoch). */
  requestedAt: number;
}

/** A problem found in the code before or while it ran. */
export interface Diagnostic {
  /** `syntax_error`, or a TypeScript error code such as `TS2322`. */
  code: string;
  /** What is wrong, as the transpiler or TypeScript put it. */
  message: string;
  /** `error` stops a `strict` run (and a syntax error any run); `warning` never does. */
  severity: "error" | "warning";
  /** Line in the user's code, from 1, when known. */
  line?: number;
  /** Column in that line, from 1, when known. */
  column?: number;
}

/** How the execution ran. */
export interface ExecutionMeta {
  /** The execution's id. */
  executionId: string;
  /** The execution's id, under the name the Code Mode API gives it (`CodeModeRunMeta.runId`). */
  runId: string;
  /** The W3C trace id (32 hex digits): the incoming `traceparent`'s, else the execution's own. */
  traceId: string;
  /** The hash of the tool declarations the code ran against (see `types()`). */
  declarationHash: string;
  /** Wall time until this outcome of the call that produced it (`execute`, `approve`, …), in ms. */
  durationMs: number;
  /** The time limit the execution ran under, in ms. */
  timeoutMs: number;
  /** The most `timeoutMs` this runtime allows, in ms. */
  maxTimeoutMs: number;
  /** Tool calls made. */
  calls: number;
  /** What bounded the child's memory: a cgroup, or only the V8 heap cap (`heap-only`). */
  memoryGuard: MemoryGuardKind;
  /** The V8 heap cap the child ran under, in MiB. */
  heapMiB: number;
  /** The cgroup memory limit the child ran under, in MiB; not enforced under `heap-only`. */
  memoryMiB: number;
  /** The processes and threads the child could have at once (`limits.maxPids`). */
  maxPids: number;
  /** The percent of one CPU the child's quota allowed, when the run asked for one. */
  cpuPercent?: number;
  /**
   * The run's limits this host did not enforce, when any: `memoryMiB` (no cgroup memory guard:
   * only the heap cap held), `maxPids` (no writable cgroup `pids` controller), `cpuPercent` (asked
   * for, with no writable cgroup `cpu` quota). The run ran all the same; absent when every limit
   * held. `capabilities().enforcedLimits` says the same of the host.
   */
  limitsNotEnforced?: ("memoryMiB" | "cpuPercent" | "maxPids")[];
  /** The child came from the warm pool. */
  pooled: boolean;
  /** This pass replayed a recorded history (the child of an earlier pass was gone). */
  replayed: boolean;
  /** How the code was read (script body, function or module); absent when it never got that far. */
  form?: CodeForm;
  /** The code's language, when it is not TypeScript (`python`: it ran unchecked). */
  language?: "python" | "bash";
  /** Console bytes received, kept and returned inline. */
  logBytes: number;
  /** Console lines dropped because the kept output passed `maxConsoleBytes`. */
  logsDropped: number;
  /**
   * True when the result's `logs` lacks lines or cuts one short (its message ends with a
   * `[cut: …]` marker); `readLogs` returns every line that was kept, whole.
   */
  logsTruncated: boolean;
  /** With `logsTruncated`: the reference to read every kept line by (`readLogs({ logRef })`). */
  logRef?: string;
  /** Over `inlineResultBytes`: the artifact storing the value; `result` is its reference. */
  resultRef?: string;
  /** Peak memory of the child, where the cgroup reports it. */
  peakMemoryBytes?: number;
  /** How long the type check took (ms), when one ran. */
  typecheckMs?: number;
  /**
   * Where the type check is: `done`, its findings are in `diagnostics` (with `typecheckMs`);
   * `pending`, the run completed before a `warn` check finished, so the result did not wait for
   * it: its findings are stored with the execution (`execution(id)` shows `diagnostics` and
   * `meta.typecheck: "done"`) and sent as a `diagnostics` event when it finishes. Absent when no
   * check ran (`off`, code in a language other than TypeScript, or the checker failed).
   */
  typecheck?: "pending" | "done";
  /** The session it ran in. */
  sessionId?: string;
  /** `created` by this execution, or `reused`. */
  sessionStatus?: "created" | "reused";
  /** The capability to read the session's recovery history (when the session was created). */
  recoveryRef?: string;
  /** The snippet this execution ran, when it came from `runSnippet()`. */
  snippet?: { name: string; version: number; stale: boolean };
}

/** An execution that finished. */
export interface CompletedResult {
  /** The code ran to its end. */
  status: "completed";
  /** The execution's id: read it back with `execution()`, undo its calls with `rollback()`. */
  executionId: string;
  /**
   * What the code returned; `Date`, `Map`, `Uint8Array`, `bigint` and the like survive. Over
   * `inlineResultBytes`, a `ResultReference` to the stored value instead (`meta.resultRef`).
   */
  result: unknown;
  /** Its workspace's outputs, when it had one. */
  workspace?: WorkspaceReport;
  /** Console lines returned inline, up to `maxInlineConsoleBytes` (see `meta.logsTruncated`). */
  logs: LogEntry[];
  /** The tool calls and steps this pass logged or replayed, in `seq` order. */
  calls: CallRecord[];
  /** Syntax and type problems found in the code (type problems only when a check ran). */
  diagnostics: Diagnostic[];
  /** How it ran: time, limits, memory guard, pool and console counts. */
  meta: ExecutionMeta;
}

/** An execution waiting for decisions (`approve`, `reject`, `resolve`). */
export interface PausedResult {
  /** Calls wait for a decision; the execution continues once they have one. */
  status: "paused";
  /** The execution's id: what `approve`, `reject` and `resolve` take. */
  executionId: string;
  /** The waiting calls: `approval` ones take `approve` or `reject`, `value` ones `resolve`. */
  pending: PendingAction[];
  /** Console lines returned inline, up to `maxInlineConsoleBytes` (see `meta.logsTruncated`). */
  logs: LogEntry[];
  /** The tool calls and steps this pass logged or replayed, in `seq` order. */
  calls: CallRecord[];
  /** Syntax and type problems found in the code (type problems only when a check ran). */
  diagnostics: Diagnostic[];
  /** How it ran: time, limits, memory guard, pool and console counts. */
  meta: ExecutionMeta;
}

/** An execution that failed (`error`), or whose rejected call it did not catch (`rejected`). */
export interface ErrorResult {
  /** `error`: it failed; `rejected`: it did not catch a rejected call's error. */
  status: "error" | "rejected";
  /** The execution's id: read it back with `execution()`. */
  executionId: string;
  /** Why it ended; `code` says what kind of failure (`sandbox_timeout`, `script_error`, …). */
  error: ErrorInfo;
  /** Its workspace's outputs, when it had one. */
  workspace?: WorkspaceReport;
  /** Console lines returned inline, up to `maxInlineConsoleBytes` (see `meta.logsTruncated`). */
  logs: LogEntry[];
  /** The tool calls and steps this pass logged or replayed, in `seq` order. */
  calls: CallRecord[];
  /** Syntax and type problems found in the code (type problems only when a check ran). */
  diagnostics: Diagnostic[];
  /** How it ran: time, limits, memory guard, pool and console counts. */
  meta: ExecutionMeta;
}

/** What `execute()` returns. */
export type ExecuteResult = CompletedResult | PausedResult | ErrorResult;
