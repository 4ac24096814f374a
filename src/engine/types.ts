/**
 * The shapes `execute()` takes and returns.
 *
 * @module
 */
import type { ErrorInfo } from "../errors.ts";
import type { MemoryGuardKind } from "../sandbox/cgroup.ts";
import type { LogLevel } from "../sandbox/protocol.ts";
import type { CodeForm } from "./source.ts";
import type { Limits } from "./limits.ts";
import type { CallState, PendingNeed } from "../store/calls.ts";

/** What a caller may set per execution. */
export interface ExecuteRequest {
  /** TypeScript: a script body, an async function, or a module with a default export. */
  code: string;
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
}

/** Callbacks around one `execute()`. */
export interface ExecuteHooks {
  /**
   * Called once the execution is recorded, before its code runs, with its id (not called when
   * the request is refused before anything is stored).
   */
  onStart?(executionId: string): void;
}

/** Per-execution sandbox policy. */
export interface ExecutionPolicy {
  /** Hosts the code may `fetch` (`host` or `host:port`). Private ranges stay denied. */
  net?: string[];
}

/** One console line. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  /** Milliseconds since the execution started. */
  atMs: number;
}

/** One entry of the call log, as the result reports it. */
export interface CallRecord {
  seq: number;
  /** `tool` for tool calls, `step` for `codemode.step` values. */
  kind: "tool" | "step";
  connector: string;
  tool: string;
  args: unknown;
  state: CallState;
  durationMs: number;
  error?: ErrorInfo;
  needs?: PendingNeed;
}

/** A call waiting for a person or a client. */
export interface PendingAction {
  executionId: string;
  seq: number;
  connector: string;
  tool: string;
  args: unknown;
  /** `approval`: answer with approve/reject. `value`: answer with resolve(value). */
  needs: PendingNeed;
  /** When the call was made (ms since the epoch). */
  requestedAt: number;
}

/** A problem found in the code before or while it ran. */
export interface Diagnostic {
  code: string;
  message: string;
  severity: "error" | "warning";
  line?: number;
  column?: number;
}

/** How the execution ran. */
export interface ExecutionMeta {
  executionId: string;
  durationMs: number;
  timeoutMs: number;
  maxTimeoutMs: number;
  /** Tool calls made. */
  calls: number;
  memoryGuard: MemoryGuardKind;
  heapMiB: number;
  memoryMiB: number;
  /** The child came from the warm pool. */
  pooled: boolean;
  /** This pass replayed a recorded history (the child of an earlier pass was gone). */
  replayed: boolean;
  form?: CodeForm;
  /** Console bytes received, kept and returned inline. */
  logBytes: number;
  logsDropped: number;
  logsTruncated: boolean;
  /** Peak memory of the child, where the cgroup reports it. */
  peakMemoryBytes?: number;
  /** How long the type check took (ms), when one ran. */
  typecheckMs?: number;
  /** The snippet this execution ran, when it came from `runSnippet()`. */
  snippet?: { name: string; version: number; stale: boolean };
}

/** An execution that finished. */
export interface CompletedResult {
  status: "completed";
  executionId: string;
  result: unknown;
  logs: LogEntry[];
  calls: CallRecord[];
  diagnostics: Diagnostic[];
  meta: ExecutionMeta;
}

/** An execution waiting for decisions (`approve`, `reject`, `resolve`). */
export interface PausedResult {
  status: "paused";
  executionId: string;
  pending: PendingAction[];
  logs: LogEntry[];
  calls: CallRecord[];
  diagnostics: Diagnostic[];
  meta: ExecutionMeta;
}

/** An execution that failed (`error`), or whose rejected call it did not catch (`rejected`). */
export interface ErrorResult {
  status: "error" | "rejected";
  executionId: string;
  error: ErrorInfo;
  logs: LogEntry[];
  calls: CallRecord[];
  diagnostics: Diagnostic[];
  meta: ExecutionMeta;
}

/** What `execute()` returns. */
export type ExecuteResult = CompletedResult | PausedResult | ErrorResult;
