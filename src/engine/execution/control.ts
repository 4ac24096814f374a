/**
 * Decisions on paused executions (approve, reject, resolve), rollback,
 * expiry and crash recovery. Each decision first claims the execution in
 * the store (`paused` → `running`, a conditional update), so two deciders
 * racing, in one process or two, resolve to exactly one.
 *
 * The claimed execution continues live when this process still holds its
 * child; otherwise it is replayed in a new child from the call log.
 *
 * @module
 */
import { CordonError, type ErrorInfo, errorInfo } from "../../errors.ts";
import type { CallEntry } from "../../store/calls.ts";
import type { ExecutionRow } from "../../store/executions.ts";
import type { Engine } from "./engine.ts";
import { toPendingAction } from "./envelope.ts";
import { durableJson } from "./journal.ts";
import type { Decision } from "./pass.ts";
import type { ExecuteResult, PendingAction } from "./types.ts";

/** What rollback did. */
export interface RollbackReport {
  /** The execution rolled back (now `rolled_back`). */
  executionId: string;
  /** Entries reverted, in the order they were reverted (newest first). */
  reverted: number[];
  /** Applied entries whose tool has no `revert`. */
  skipped: number[];
  /** Applied entries whose `revert` threw, with the error; they stay `applied`. */
  failed: { seq: number; error: ErrorInfo }[];
}

function undecided(e: CallEntry): boolean {
  return e.state === "pending" && e.decision === undefined;
}

async function pausedRow(engine: Engine, executionId: string): Promise<ExecutionRow> {
  const row = await engine.parts.executions.get(String(executionId));
  if (!row) throw new CordonError("execution_not_found", `There is no execution "${executionId}"`);
  if (row.status !== "paused") {
    throw new CordonError(
      "invalid_state",
      `Execution ${executionId} is ${row.status}, not paused`,
      {
        details: { status: row.status },
      },
    );
  }
  return row;
}

function pick(
  entries: CallEntry[],
  executionId: string,
  seq: number | undefined,
  needs: CallEntry["needs"],
): CallEntry[] {
  const open = entries.filter(undecided);
  const chosen = seq === undefined
    ? open.filter((e) => e.needs === needs)
    : open.filter((e) => e.seq === seq);
  if (chosen.length === 0) {
    const what = seq === undefined
      ? `no call waiting for ${needs === "value" ? "a value" : "approval"}`
      : `no undecided call ${seq}`;
    throw new CordonError("invalid_state", `Execution ${executionId} has ${what}`);
  }
  for (const e of chosen) {
    if (e.needs !== needs) {
      throw new CordonError(
        "invalid_state",
        e.needs === "value"
          ? `Call ${e.seq} (${e.connector}.${e.tool}) needs a value: use resolve()`
          : `Call ${e.seq} (${e.connector}.${e.tool}) needs approval: use approve() or reject()`,
      );
    }
  }
  return chosen;
}

/** Claims a paused execution for this process, or says who was first. */
async function claim(engine: Engine, row: ExecutionRow): Promise<void> {
  const ok = await engine.parts.executions.transition(row.id, ["paused"], "running", {
    owner: engine.nodeId,
    leaseUntil: Date.now() + engine.parts.durability.leaseMs,
    addPass: !engine.live.has(row.id),
  });
  if (!ok) {
    throw new CordonError("invalid_state", `Execution ${row.id} was decided by someone else first`);
  }
  const events = engine.parts.events;
  if (events.active) {
    events.emit({ type: "resumed", executionId: row.id, namespace: row.namespace });
  }
}

/** Applies decisions to a claimed execution and waits for its next outcome. */
async function continueWith(
  engine: Engine,
  row: ExecutionRow,
  decisions: Map<number, Decision>,
): Promise<ExecuteResult> {
  const startedAt = performance.now();
  const live = engine.live.get(row.id);
  if (
    live?.pass.holding &&
    [...decisions.keys()].every((seq) => live.pass.undecided().some((e) => e.seq === seq))
  ) {
    live.startedAt = startedAt;
    for (const [seq, d] of decisions) live.pass.decide(seq, d);
    return await engine.settle(live, await live.pass.next());
  }
  // The child is gone (hold over, restart, another process): replay.
  live?.pass.release();
  const recorded = await engine.parts.calls.list(row.id);
  return await engine.runPass({ ...row, status: "running" }, recorded, startedAt);
}

/** Approves waiting calls (one `seq`, or every call waiting for approval). */
export async function approve(
  engine: Engine,
  executionId: string,
  options: { seq?: number } = {},
): Promise<ExecuteResult> {
  const row = await pausedRow(engine, executionId);
  const chosen = pick(await engine.parts.calls.list(row.id), row.id, options.seq, "approval");
  await claim(engine, row);
  const decisions = new Map<number, Decision>();
  for (const e of chosen) {
    await engine.parts.calls.decide(row.id, e.seq, "approved");
    decisions.set(e.seq, { kind: "approved" });
  }
  return await continueWith(engine, row, decisions);
}

/** Rejects waiting calls: each throws `rejected` in the script, which may catch it. */
export async function reject(
  engine: Engine,
  executionId: string,
  options: { seq?: number; reason?: string } = {},
): Promise<ExecuteResult> {
  const row = await pausedRow(engine, executionId);
  const chosen = pick(await engine.parts.calls.list(row.id), row.id, options.seq, "approval");
  await claim(engine, row);
  const decisions = new Map<number, Decision>();
  for (const e of chosen) {
    const error = errorInfo(
      "rejected",
      options.reason ? `Rejected: ${options.reason}` : `${e.connector}.${e.tool} was rejected`,
    );
    await engine.parts.calls.decide(row.id, e.seq, "rejected", { state: "rejected", error });
    decisions.set(e.seq, { kind: "rejected", error });
  }
  return await continueWith(engine, row, decisions);
}

/** Supplies the result of a client-resolved call, checked against its output schema and the size cap. */
export async function resolve(
  engine: Engine,
  executionId: string,
  seq: number,
  value: unknown,
): Promise<ExecuteResult> {
  const row = await pausedRow(engine, executionId);
  const [entry] = pick(await engine.parts.calls.list(row.id), row.id, seq, "value");
  const tool = engine.parts.registry.tool(entry.connector, entry.tool);
  let checked = value;
  if (tool?.validateOutput) {
    const v = tool.validateOutput(value);
    if (!v.ok) throw new CordonError(v.error.code, v.error.message, { details: v.error.details });
    checked = v.value;
  }
  const resultJson = durableJson(
    checked,
    engine.parts.durability.maxDurableValueBytes,
    `The value for call ${seq}`,
  );
  await claim(engine, row);
  await engine.parts.calls.decide(row.id, seq, "resolved", { state: "applied", resultJson });
  return await continueWith(engine, row, new Map([[seq, { kind: "resolved", value: checked }]]));
}

/** Every call waiting for a decision, across executions. */
export async function pending(engine: Engine, namespace?: string): Promise<PendingAction[]> {
  return (await engine.parts.calls.pending(namespace)).map((e) =>
    toPendingAction(e, engine.parts.events)
  );
}

/** Reverts applied calls in reverse order (tools that declare `revert`), then marks the execution `rolled_back`. */
export async function rollback(engine: Engine, executionId: string): Promise<RollbackReport> {
  const row = await engine.parts.executions.get(String(executionId));
  if (!row) throw new CordonError("execution_not_found", `There is no execution "${executionId}"`);
  const from = ["completed", "error", "rejected", "paused"] as const;
  if (!(from as readonly string[]).includes(row.status)) {
    throw new CordonError(
      "invalid_state",
      `Execution ${row.id} is ${row.status}; only an ended or paused one can be rolled back`,
    );
  }
  if (
    !(await engine.parts.executions.transition(row.id, from, "rolled_back", {
      owner: null,
      leaseUntil: null,
    }))
  ) {
    throw new CordonError(
      "invalid_state",
      `Execution ${row.id} changed while rolling back; try again`,
    );
  }
  engine.parts.events.emit({ type: "done", executionId: row.id, status: "rolled_back" });
  const live = engine.live.get(row.id);
  if (live) {
    engine.live.delete(row.id);
    live.pass.release();
  }
  const report: RollbackReport = { executionId: row.id, reverted: [], skipped: [], failed: [] };
  const entries = await engine.parts.calls.list(row.id);
  for (const e of entries.filter(undecided)) {
    await engine.parts.calls.decide(row.id, e.seq, "rejected", {
      state: "rejected",
      error: errorInfo("rejected", "Rolled back"),
    });
  }
  for (const e of entries.filter((x) => x.kind === "tool" && x.state === "applied").reverse()) {
    const tool = engine.parts.registry.tool(e.connector, e.tool);
    if (!tool?.revert) {
      report.skipped.push(e.seq);
      continue;
    }
    try {
      await tool.revert(e.args, e.result);
      await engine.parts.calls.setState(row.id, e.seq, "reverted");
      report.reverted.push(e.seq);
    } catch (err) {
      const error = errorInfo(
        "tool_error",
        `Reverting ${e.connector}.${e.tool} failed: ${err instanceof Error ? err.message : err}`,
      );
      await engine.parts.calls.setState(row.id, e.seq, "applied", error);
      report.failed.push({ seq: e.seq, error });
    }
  }
  return report;
}

/** Rejects paused executions older than `maxAgeMs`; returns their ids. */
export async function expirePaused(
  engine: Engine,
  options: { maxAgeMs: number },
): Promise<string[]> {
  if (!Number.isFinite(options?.maxAgeMs) || options.maxAgeMs < 0) {
    throw new CordonError("invalid_request", "expirePaused() needs maxAgeMs ≥ 0");
  }
  const expired: string[] = [];
  for (const id of await engine.parts.executions.pausedBefore(Date.now() - options.maxAgeMs)) {
    const error = errorInfo(
      "expired",
      `Paused for more than ${options.maxAgeMs} ms without a decision`,
    );
    if (
      !(await engine.parts.executions.transition(id, ["paused"], "rejected", {
        error,
        owner: null,
        leaseUntil: null,
      }))
    ) continue;
    for (const e of (await engine.parts.calls.list(id)).filter(undecided)) {
      await engine.parts.calls.decide(id, e.seq, "rejected", { state: "rejected", error });
    }
    const live = engine.live.get(id);
    if (live) {
      engine.live.delete(id);
      live.pass.release();
    }
    expired.push(id);
  }
  return expired;
}

/**
 * Marks running executions whose owner stopped renewing its lease as `interrupted`. First the
 * call entries a process that died had only in its intent log go into the store, so a run
 * resumed or replayed later finds every call that ran.
 */
export async function recoverInterrupted(engine: Engine): Promise<string[]> {
  await engine.parts.calls.recoverIntents();
  return await engine.parts.executions.interruptExpired(
    Date.now(),
    errorInfo("interrupted", "The process running this execution stopped before it finished"),
  );
}
