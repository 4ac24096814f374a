/**
 * The end of an execution, recorded: calls still waiting are abandoned, the
 * final status is stored, a session learns what the run declared, the
 * workspace's outputs are collected (and a throwaway workspace removed), and
 * listeners hear `done`.
 *
 * @module
 */
import { type ErrorInfo, errorInfo, toErrorInfo } from "../../errors.ts";
import type { ExecutionRow, ExecutionStatus } from "../../store/executions.ts";
import { endSessionRun } from "../sessions/runs.ts";
import { collectOutputs, removeWorkspace } from "../workspaces/workspace.ts";
import { workspaceOf } from "./envelope.ts";
import type { ExecutionEvent } from "./events.ts";
import type { EngineParts, LiveRun } from "./parts.ts";

/** Records a final outcome; returns the status stored and the envelope's outcome fields. */
export async function recordEnd(
  parts: EngineParts,
  row: ExecutionRow,
  outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo },
  run?: LiveRun,
): Promise<{ status: ExecutionStatus; partial: Record<string, unknown> }> {
  const status: ExecutionStatus = outcome.ok
    ? "completed"
    : outcome.error.code === "rejected"
    ? "rejected"
    : "error";
  // Calls still waiting when the run ended are abandoned.
  await parts.calls.rejectUndecided(
    row.id,
    errorInfo("rejected", "The run ended before a decision"),
  );
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
  return { status, partial };
}
