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

/** One tool call, as the result reports it. */
export interface CallRecord {
  seq: number;
  connector: string;
  tool: string;
  args: unknown;
  status: "applied" | "error";
  durationMs: number;
  error?: ErrorInfo;
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
  form?: CodeForm;
  /** Console bytes received, kept and returned inline. */
  logBytes: number;
  logsDropped: number;
  logsTruncated: boolean;
  /** Peak memory of the child, where the cgroup reports it. */
  peakMemoryBytes?: number;
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

/** An execution that failed. */
export interface ErrorResult {
  status: "error";
  executionId: string;
  error: ErrorInfo;
  logs: LogEntry[];
  calls: CallRecord[];
  diagnostics: Diagnostic[];
  meta: ExecutionMeta;
}

/** What `execute()` returns. */
export type ExecuteResult = CompletedResult | ErrorResult;
