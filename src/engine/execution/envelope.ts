/**
 * What callers get back: an execution's outcome as an {@link ExecuteResult}
 * envelope (with its logs, calls, diagnostics and meta), and call-log
 * entries as {@link CallRecord}s and {@link PendingAction}s.
 *
 * @module
 */
import type { ErrorInfo } from "../../errors.ts";
import { CHILD_PIDS_MAX } from "../../sandbox/cgroup.ts";
import type { CallEntry } from "../../store/calls.ts";
import type { ExecutionRow, ExecutionStatus } from "../../store/executions.ts";
import type { Workspace } from "../workspaces/workspace.ts";
import { formWarnings } from "../source/warnings.ts";
import type { Limits } from "./limits.ts";
import { ownTraceId } from "./trace.ts";
import type { EngineParts, LiveRun } from "./parts.ts";
import type {
  CallRecord,
  Diagnostic,
  ExecuteResult,
  ExecutionMeta,
  PendingAction,
} from "./types.ts";

/**
 * The envelope for a run: its outcome (`partial`) with logs, calls, diagnostics and meta;
 * `resultRef` when its result was stored instead of returned.
 */
export function envelope(
  parts: Pick<EngineParts, "maxima" | "memoryGuard">,
  run: LiveRun,
  partial: Record<string, unknown>,
  resultRef?: string,
): ExecuteResult {
  const { pass, row, journal, startedAt } = run;
  const error = partial.error as ErrorInfo | undefined;
  const limits = row.limits as unknown as Limits;
  const calls: CallRecord[] = [...journal.touched.values()].sort((a, b) => a.seq - b.seq).map(
    toCallRecord,
  );
  const meta: ExecutionMeta = {
    executionId: row.id,
    runId: row.id,
    traceId: row.traceId ?? ownTraceId(row.id),
    declarationHash: row.declarationHash,
    durationMs: performance.now() - startedAt,
    timeoutMs: limits.timeoutMs,
    maxTimeoutMs: parts.maxima.timeoutMs,
    calls: pass.calls,
    memoryGuard: parts.memoryGuard.kind,
    heapMiB: limits.heapMiB,
    memoryMiB: limits.memoryMiB,
    // A row stored before `maxPids` existed ran under the built-in bound.
    maxPids: limits.maxPids ?? CHILD_PIDS_MAX,
    ...(limits.cpuPercent !== undefined ? { cpuPercent: limits.cpuPercent } : {}),
    ...(pass.notEnforced.length > 0 ? { limitsNotEnforced: [...pass.notEnforced] } : {}),
    pooled: pass.pooled,
    form: pass.form,
    replayed: journal.replaying,
    logBytes: pass.logs.receivedBytes,
    logsDropped: pass.logs.dropped,
    logsTruncated: pass.logs.truncated,
  };
  // The rest of the console is read by reference; the reference goes to whoever ran the code.
  if (meta.logsTruncated && row.logRef) meta.logRef = row.logRef;
  if (resultRef) meta.resultRef = resultRef;
  const language = row.policy.language;
  if (language === "python" || language === "bash") meta.language = language;
  if (run.session) {
    meta.sessionId = run.session.live.id;
    meta.sessionStatus = run.session.status;
    if (run.session.status === "created") meta.recoveryRef = run.session.live.recoveryRef;
  }
  return {
    executionId: row.id,
    ...partial,
    logs: pass.logs.inline(),
    calls,
    // Only a run that answered `undefined` can lack a `return` of its own: the form check (a
    // parse of the code) is left out for every run that returned a value.
    diagnostics: partial.status === "completed"
      ? partial.result === undefined && meta.language === undefined
        ? formWarnings(row.code, pass.form, run.session !== undefined)
        : []
      : syntaxDiagnostics(error),
    meta,
  } as ExecuteResult;
}
/** A syntax error as the one diagnostic it is; nothing for any other error. */
function syntaxDiagnostics(error: ErrorInfo | undefined): Diagnostic[] {
  if (error?.code !== "syntax_error") return [];
  return [{
    code: "syntax_error",
    message: error.message,
    severity: "error",
    ...(error.location ?? {}),
  }];
}

/** A pending entry as callers see it. */
export function toPendingAction(
  e: CallEntry,
  clients?: { watching(executionId: string): boolean },
): PendingAction {
  const needs = e.needs ?? "approval";
  return {
    executionId: e.executionId,
    seq: e.seq,
    connector: e.connector,
    tool: e.tool,
    args: e.args,
    resolution: needs === "value" ? "client" : "approval",
    needs,
    clientConnected: clients?.watching(e.executionId) ?? false,
    requestedAt: e.startedAt,
  };
}

/** A log entry as the result reports it. */
export function toCallRecord(e: CallEntry): CallRecord {
  const r: CallRecord = {
    seq: e.seq,
    kind: e.kind,
    connector: e.connector,
    tool: e.tool,
    args: e.args,
    state: e.state,
    durationMs: e.endedAt !== undefined ? Math.max(0, e.endedAt - e.startedAt) : 0,
  };
  if (e.error) r.error = e.error;
  if (e.needs) r.needs = e.needs;
  return r;
}

/**
 * An envelope for an execution that never got a pass; `traceId` is the request's when it gave
 * a valid `traceparent`, else the execution's own.
 */
export function early(
  executionId: string,
  startedAt: number,
  error: ErrorInfo,
  parts: Pick<EngineParts, "defaults" | "maxima" | "memoryGuard" | "declarationHash">,
  status: ExecutionStatus = "error",
  traceId: string = ownTraceId(executionId),
): ExecuteResult {
  const limits = parts.defaults;
  const meta: ExecutionMeta = {
    executionId,
    runId: executionId,
    traceId,
    declarationHash: parts.declarationHash,
    durationMs: performance.now() - startedAt,
    timeoutMs: limits.timeoutMs,
    maxTimeoutMs: parts.maxima.timeoutMs,
    calls: 0,
    memoryGuard: parts.memoryGuard.kind,
    heapMiB: limits.heapMiB,
    memoryMiB: limits.memoryMiB,
    maxPids: limits.maxPids,
    pooled: false,
    replayed: false,
    logBytes: 0,
    logsDropped: 0,
    logsTruncated: false,
  };
  const diagnostics = syntaxDiagnostics(error);
  return { status, executionId, error, logs: [], calls: [], diagnostics, meta } as ExecuteResult;
}

/** The entry waits for a decision nobody gave yet. */
export function isUndecided(e: CallEntry): boolean {
  return e.state === "pending" && e.decision === undefined;
}

/** The workspace an execution row was given, if any. */
export function workspaceOf(row: ExecutionRow): Workspace | undefined {
  return row.policy.workspace as Workspace | undefined;
}
