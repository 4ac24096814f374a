/**
 * An execution as the MCP front reports it after the fact: {@link readOutcome}
 * reads its current state from the store in the shape `execute` answers, and
 * {@link awaitOutcome} waits (bounded) until it ends. The `result` and `wait`
 * tools answer with these, and so does `execute` when a decision made
 * elsewhere carried the run on.
 *
 * @module
 */
import type { Runtime } from "../../engine/runtime/types.ts";
import type {
  CallRecord,
  Diagnostic,
  LogEntry,
  PendingAction,
} from "../../engine/execution/types.ts";
import { watchMoves } from "../../engine/execution/events.ts";
import { CordonError, type ErrorInfo } from "../../errors.ts";
import type { ExecutionStatus } from "../../store/executions.ts";

/** Console lines an outcome carries inline; the rest are read with `readLogs`. */
const OUTCOME_LOG_LINES = 200;
/**
 * How often a waiting `wait` also reads the store: the live events cover runs of this process;
 * a run another node carries on is only seen there.
 */
const STORE_POLL_MS = 1_000;

/** Where an execution is, in the shape the `execute` tool answers. */
export interface Outcome {
  /** Its status now: `running` and `paused` are still under way. */
  status: ExecutionStatus;
  /** The execution's id. */
  executionId: string;
  /** The value returned (completed). */
  result?: unknown;
  /** Calls waiting for a decision (paused). */
  pending?: PendingAction[];
  /** Why it ended (error, rejected). */
  error?: ErrorInfo;
  /** Its first console lines. */
  logs: LogEntry[];
  /** Its whole call log. */
  calls: CallRecord[];
  /** Findings of its type check, when they are stored. */
  diagnostics: Diagnostic[];
}

/** True while an execution can still change by itself or by a decision. */
export function underWay(status: ExecutionStatus): boolean {
  return status === "running" || status === "paused";
}

/**
 * The execution `executionId` of `namespace` now. Another namespace's execution is
 * `execution_not_found`, the same as an unknown id, so ids of other tenants leak nothing.
 */
export async function readOutcome(
  runtime: Runtime,
  executionId: string,
  namespace: string,
): Promise<Outcome> {
  const d = await runtime.execution(executionId);
  if (!d || d.namespace !== namespace) {
    throw new CordonError("execution_not_found", `There is no execution ${executionId}`);
  }
  const page = await runtime.readLogs({ logRef: d.logRef, limit: OUTCOME_LOG_LINES, namespace })
    .catch(() => undefined);
  const out: Outcome = {
    status: d.status,
    executionId: d.id,
    logs: (page?.items ?? []).map(({ level, message, atMs }) => ({ level, message, atMs })),
    // The stored results stay out, as in `execute`'s answer (they can be large).
    calls: d.calls.map(({ result: _result, ...call }) => call),
    diagnostics: d.diagnostics ?? [],
  };
  if (d.status === "completed") out.result = d.result;
  if (d.status === "paused") out.pending = d.pending;
  if (d.error) out.error = { code: d.error.code as ErrorInfo["code"], message: d.error.message };
  return out;
}

/**
 * Waits until `executionId` ends (leaves `running` and `paused`), `timeoutMs` passes or
 * `signal` aborts, then answers its {@link readOutcome}. With `untilPaused`, a pause ends
 * the wait too (a decision made elsewhere carried the run on, and it may stop again).
 */
export async function awaitOutcome(
  runtime: Runtime,
  executionId: string,
  namespace: string,
  options: { timeoutMs: number; signal?: AbortSignal; untilPaused?: boolean },
): Promise<Outcome> {
  const settled = (s: ExecutionStatus) =>
    !underWay(s) || (options.untilPaused === true && s === "paused");
  let now = await readOutcome(runtime, executionId, namespace);
  if (settled(now.status)) return now;
  using moves = watchMoves(
    (l) => runtime.subscribe(l),
    now.executionId,
    options.untilPaused === true,
  );
  const deadline = Date.now() + options.timeoutMs;
  while (!options.signal?.aborted && Date.now() < deadline) {
    await moves.next(Math.min(STORE_POLL_MS, deadline - Date.now()), options.signal);
    now = await readOutcome(runtime, executionId, namespace);
    if (settled(now.status)) return now;
  }
  return now;
}
