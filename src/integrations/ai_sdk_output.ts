/**
 * What the AI SDK code tool answers: one compact JSON object a model reads
 * ({@link CodeToolOutput}), built from a fresh `execute()`/`approve()` result
 * or from the stored execution when a run is picked up by its id. Every part
 * a script controls is bounded (console lines, the result, pending calls'
 * arguments), so one tool result cannot flood the model's context.
 *
 * @module
 */
import type { ErrorInfo, SourceLocation } from "../errors.ts";
import { encodeValue } from "../rpc/codec.ts";
import type { ExecutionStatus } from "../store/executions.ts";
import type {
  Diagnostic,
  ExecuteResult,
  LogEntry,
  PendingAction,
} from "../engine/execution/types.ts";
import type { ExecutionDetails } from "../engine/execution/records_types.ts";

/** Console lines a tool result carries by default; a model rarely needs more to debug. */
export const DEFAULT_CONSOLE_LINES = 50;
/** A console line longer than this is cut: one runaway `console.log` must not fill the context. */
export const CONSOLE_LINE_CHARS = 500;
/** The result's JSON length a tool result carries by default (about 5,000 tokens). */
export const DEFAULT_RESULT_CHARS = 20_000;
/** How much of a result over the limit is shown, so the model sees what it returned. */
export const RESULT_PREVIEW_CHARS = 1_000;
/** A pending call's arguments longer than this (as JSON) are shown cut, as a string. */
export const PENDING_ARGS_CHARS = 2_000;
/** Diagnostics a tool result carries: the first few are the ones worth fixing first. */
export const MAX_DIAGNOSTICS = 10;

/** A call the paused run waits on, as the model sees it. */
export interface CodeToolPendingCall {
  /** The call's number in the execution's call log (what `approve`/`reject`/`resolve` take). */
  seq: number;
  /** `connector.tool`. */
  tool: string;
  /** The arguments the code passed (cut to a string preview when long). */
  args: unknown;
  /** `approval`: a person's yes or no; `value`: a result supplied from outside. */
  waitsFor: "approval" | "value";
}

/** The code tool's answer: what the model reads after each call. */
export interface CodeToolOutput {
  /**
   * `completed`, `error`, `rejected` (the code did not catch a rejected call), `rolled_back`,
   * or, while the run is not over: `paused` (calls wait for a decision) or `running` (a
   * decision was made and the run goes on; ask again by `executionId`).
   */
  status: ExecutionStatus;
  /** The execution's id: pass it back as `{ executionId }` to get a paused run's outcome. */
  executionId?: string;
  /** What the code returned (`completed`), through Cordon's tagged encoding so it is JSON. */
  result?: unknown;
  /** When the result was over the limit: its first characters, instead of `result`. */
  resultPreview?: string;
  /** When the result was over the limit: the length of its JSON. */
  resultChars?: number;
  /** Why the run failed: a code (`script_error`, `sandbox_timeout`, …), a message, and the line. */
  error?: { code: string; message: string; location?: SourceLocation };
  /** The calls a paused run waits on. */
  pending?: CodeToolPendingCall[];
  /** Console output, `[level] message`, bounded. */
  console?: string[];
  /** True when console lines were left out (here or by the runtime's own bounds). */
  consoleTruncated?: true;
  /** Syntax and type problems found in the code, `[severity] code: message (line, column)`. */
  diagnostics?: string[];
  /** Decisions the app's `onPause` made that could not be applied, and why. */
  notices?: string[];
  /** What to do next, in a sentence, when the status asks for something. */
  next?: string;
}

/** Where an outcome came from: a fresh result, or the stored execution read back by id. */
export type Snapshot =
  | { kind: "result"; out: ExecuteResult }
  | { kind: "stored"; details: ExecutionDetails; logs: LogEntry[]; logsTruncated: boolean };

/** The status and waiting calls of a snapshot. */
export function stateOf(snap: Snapshot): { status: ExecutionStatus; pending: PendingAction[] } {
  if (snap.kind === "result") {
    return {
      status: snap.out.status,
      pending: snap.out.status === "paused" ? snap.out.pending : [],
    };
  }
  return { status: snap.details.status, pending: snap.details.pending };
}

/** Bounds for {@link toOutput}. */
export interface OutputBounds {
  /** Console lines carried at most. */
  consoleLines: number;
  /** The result's JSON length carried at most. */
  resultChars: number;
}

function json(value: unknown): string {
  return JSON.stringify(encodeValue(value)) ?? "null";
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function consoleLines(logs: readonly LogEntry[], max: number): string[] {
  return logs.slice(0, max).map((l) => cut(`[${l.level}] ${l.message}`, CONSOLE_LINE_CHARS));
}

function diagnosticLine(d: Diagnostic): string {
  const at = d.line === undefined ? "" : ` (line ${d.line}, column ${d.column ?? 1})`;
  return `[${d.severity}] ${d.code}: ${d.message}${at}`;
}

function pendingCall(p: PendingAction): CodeToolPendingCall {
  const text = json(p.args);
  return {
    seq: p.seq,
    tool: `${p.connector}.${p.tool}`,
    args: text.length <= PENDING_ARGS_CHARS ? encodeValue(p.args) : cut(text, PENDING_ARGS_CHARS),
    waitsFor: p.resolution === "client" ? "value" : "approval",
  };
}

function errorOf(e: ErrorInfo | { code: string; message: string }): CodeToolOutput["error"] {
  const out: NonNullable<CodeToolOutput["error"]> = { code: e.code, message: e.message };
  if ("location" in e && e.location) out.location = e.location;
  return out;
}

/** The hint a paused or running outcome carries. */
function nextStep(status: ExecutionStatus): string | undefined {
  if (status === "paused") {
    return "Calls in the code wait for a person's decision (see pending). Tell the user what " +
      "waits; once it is decided, call this tool again with only { executionId } to get the " +
      "outcome. Do not send the code again: that would start a new run.";
  }
  if (status === "running") {
    return "The run continues after a decision. Call this tool again with only { executionId } " +
      "to get its outcome.";
  }
  return undefined;
}

/** The model-facing output of a snapshot, bounded. */
export function toOutput(
  snap: Snapshot,
  bounds: OutputBounds,
  notices: readonly string[] = [],
): CodeToolOutput {
  const { status, pending } = stateOf(snap);
  const executionId = snap.kind === "result" ? snap.out.executionId : snap.details.id;
  const out: CodeToolOutput = { status, executionId };
  let result: unknown;
  let hasResult = false;
  let logs: readonly LogEntry[];
  let truncated: boolean;
  if (snap.kind === "result") {
    const r = snap.out;
    if (r.status === "completed") [result, hasResult] = [r.result, true];
    if (r.status === "error" || r.status === "rejected") out.error = errorOf(r.error);
    logs = r.logs;
    truncated = r.meta.logsTruncated || r.meta.logsDropped > 0;
    const diagnostics = r.diagnostics.slice(0, MAX_DIAGNOSTICS).map(diagnosticLine);
    if (diagnostics.length > 0) out.diagnostics = diagnostics;
  } else {
    const d = snap.details;
    if (d.status === "completed") [result, hasResult] = [d.result, true];
    if (d.error) out.error = errorOf(d.error);
    logs = snap.logs;
    truncated = snap.logsTruncated;
  }
  if (hasResult) {
    const text = json(result);
    if (text.length <= bounds.resultChars) out.result = encodeValue(result);
    else {
      out.resultPreview = cut(text, RESULT_PREVIEW_CHARS);
      out.resultChars = text.length;
      out.next = `The result is ${text.length} characters of JSON, over this tool's limit of ` +
        `${bounds.resultChars}: return a smaller value (filter, count or summarize in the code).`;
    }
  }
  if (pending.length > 0) out.pending = pending.map(pendingCall);
  if (logs.length > 0) out.console = consoleLines(logs, bounds.consoleLines);
  if (truncated || logs.length > bounds.consoleLines) out.consoleTruncated = true;
  if (notices.length > 0) out.notices = [...notices];
  const next = out.next ?? nextStep(status);
  if (next !== undefined) out.next = next;
  return out;
}

/** The output for a request refused before any execution existed (bad input, a closed runtime). */
export function refusedOutput(error: ErrorInfo): CodeToolOutput {
  return { status: "error", error: errorOf(error) };
}
