/**
 * The end of an execution, recorded: a value over the inline limit is stored
 * as the execution's result artifact (the outcome carries its reference),
 * calls still waiting are abandoned, the final status is stored, a session learns what the run declared, the
 * workspace's outputs are collected (and a throwaway workspace removed), and
 * listeners hear `done`.
 *
 * @module
 */
import { errorInfo, toErrorInfo } from "../../errors.ts";
import type { ExecutionRow, ExecutionStatus } from "../../store/executions.ts";
import { endSessionRun } from "../sessions/runs.ts";
import { collectOutputs, removeWorkspace } from "../workspaces/workspace.ts";
import { workspaceOf } from "./envelope.ts";
import type { ExecutionEvent } from "./events.ts";
import type { EngineParts, LiveRun } from "./parts.ts";
import type { Outcome } from "./pass_options.ts";
import { storeResult } from "../artifacts/results.ts";

/**
 * A value over the inline limit stored as the execution's result artifact, and the outcome
 * with its reference in its place (or `result_too_large` past the artifact cap).
 */
async function spill(
  parts: EngineParts,
  row: ExecutionRow,
  outcome: Outcome,
): Promise<{ outcome: Outcome; resultRef?: string }> {
  if (!outcome.ok || outcome.json === undefined || !parts.results) return { outcome };
  const stored = await storeResult(parts.results.store, {
    namespace: row.namespace,
    executionId: row.id,
    value: outcome.value,
    json: outcome.json,
    ...(outcome.data ? { data: outcome.data } : {}),
    maxBytes: parts.results.maxBytes,
  });
  if (!stored.ok) return { outcome: stored };
  const reference = stored.reference;
  return { outcome: { ok: true, value: reference }, resultRef: reference.resultRef };
}

/**
 * Records a final outcome; returns the status stored, the envelope's outcome fields and, when
 * the value was stored instead of returned, its `resultRef`.
 */
export async function recordEnd(
  parts: EngineParts,
  row: ExecutionRow,
  ended: Outcome,
  run?: LiveRun,
): Promise<{ status: ExecutionStatus; partial: Record<string, unknown>; resultRef?: string }> {
  const { outcome, resultRef } = await spill(parts, row, ended);
  const status: ExecutionStatus = outcome.ok
    ? "completed"
    : outcome.error.code === "rejected"
    ? "rejected"
    : "error";
  // Calls still waiting when the run ended are abandoned (a first pass that made none has none).
  if (!run?.fresh || run.journal.touchedDecisions) {
    await parts.calls.rejectUndecided(
      row.id,
      errorInfo("rejected", "The run ended before a decision"),
    );
  }
  await parts.executions.transition(row.id, ["running", "paused"], status, {
    ...(outcome.ok ? { result: outcome.value } : { error: outcome.error }),
    owner: null,
    leaseUntil: null,
  });
  if (run?.session) {
    await endSessionRun(
      parts.sessions!,
      parts.registry,
      run.session,
      row,
      outcome,
      [...run.journal.touched.values()],
      run.pass.keptChild,
      parts.redact ?? ((t) => t),
    );
  }
  const partial: Record<string, unknown> = outcome.ok
    ? { status: "completed" as const, result: outcome.value }
    : { status, error: outcome.error };
  const ws = workspaceOf(row);
  if (ws && parts.workspaces) {
    const host = { ...parts.workspaces, namespace: row.namespace };
    try {
      partial.workspace = await collectOutputs(ws, host);
    } catch (err) {
      partial.workspace = { id: ws.id, persisted: ws.persist, outputs: [], limitsHit: [] };
      if (outcome.ok) {
        partial.status = "error";
        partial.error = toErrorInfo(err, "invalid_request");
        delete partial.result;
      }
    }
    if (!ws.persist) await removeWorkspace(host.root, ws.id, ws);
  }
  if (parts.events.active) {
    parts.events.emit({ type: "done", executionId: row.id, ...partial } as ExecutionEvent);
  }
  return { status, partial, ...(resultRef ? { resultRef } : {}) };
}
