/**
 * The durable engine behind `createRuntime()`: executions recorded in the
 * store, passes run on sandbox children, and the transitions between
 * `running`, `paused` and the final statuses. Decisions (approve, reject,
 * resolve), rollback and recovery live in `control.ts` and use this core.
 *
 * @module
 */
import { CordonError, type ErrorInfo, errorInfo, toErrorInfo } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { SandboxChild } from "../../sandbox/child.ts";
import type { ProgramRunParams } from "../../sandbox/protocol.ts";
import type { CallEntry } from "../../store/calls.ts";
import type { ExecutionRow } from "../../store/executions.ts";
import type { SessionUse } from "../sessions/runs.ts";
import { removeWorkspace } from "../workspaces/workspace.ts";
import { keepTurnShort } from "../../loop.ts";
import { admitRequest, type Admitted, executionRow } from "./admission.ts";
import { Children } from "./children.ts";
import {
  early,
  envelope,
  isUndecided,
  toCallRecord,
  toPendingAction,
  workspaceOf,
} from "./envelope.ts";
import { recordEnd } from "./finish.ts";
import { CallJournal } from "./journal.ts";
import type { Limits } from "./limits.ts";
import type { EngineParts, LiveRun } from "./parts.ts";
import { Pass, type PassEvent } from "./pass.ts";
import { runPolicy, runSource } from "./run_source.ts";
import { announceStart, RunStart } from "./run_start.ts";
import { traceIdFor } from "./trace.ts";
import type { ExecuteHooks, ExecuteRequest, ExecuteResult } from "./types.ts";

/** The engine core. */
export class Engine {
  /** This process's id in the store (leases, sessions). */
  readonly nodeId: string;
  readonly parts: EngineParts;
  readonly #children: Children;
  /** Runs with a live child in this process, by execution id. */
  readonly live = new Map<string, LiveRun>();
  /** Operations under way (execute, approve, …); close waits for them. */
  readonly #ops = new Set<Promise<unknown>>();
  #closed = false;

  constructor(parts: EngineParts) {
    this.parts = parts;
    this.nodeId = parts.nodeId ?? newId("node");
    const { env, defaults, poolSize, registry, python, bash } = parts;
    this.#children = new Children(env, defaults, poolSize, registry, python, bash);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs an operation that close() must wait for. */
  track<T>(op: () => Promise<T>): Promise<T> {
    const p = op();
    this.#ops.add(p);
    p.finally(() => this.#ops.delete(p)).catch(() => {});
    return p;
  }

  get poolIdle(): number {
    return this.#children.idle;
  }

  /** Waits for the pool's children; with `count`, prewarms that many (see ChildPool.prewarm). */
  warm(count?: number): Promise<void> {
    return count === undefined ? this.#children.warm() : this.#children.prewarm(count);
  }

  /** Runs new code: records the execution, runs its first pass, returns its first outcome. */
  async execute(request: ExecuteRequest, hooks?: ExecuteHooks): Promise<ExecuteResult> {
    const startedAt = performance.now();
    const id = newId("exec");
    if (this.#closed) {
      return early(id, startedAt, errorInfo("runtime_closed", "The runtime is closed"), this.parts);
    }
    let admitted: Admitted;
    await keepTurnShort(); // fifty executions arriving at once start over several turns
    try {
      admitted = await admitRequest(this.parts, request, id);
    } catch (err) {
      const trace = traceIdFor((request as { traceparent?: unknown } | null)?.traceparent, id);
      return early(id, startedAt, toErrorInfo(err, "invalid_request"), this.parts, "error", trace);
    }
    const { session, workspace } = admitted;
    // Whatever fails from here on, the session slot admission took is given back: a slot left
    // busy is a session nobody can use, and enough of them lock every caller out.
    const releasesBefore = session?.live.executions;
    try {
      return await this.#start(request, hooks, id, startedAt, admitted);
    } catch (err) {
      if (session?.live.busy && session.live.executions === releasesBefore) {
        await this.parts.sessions!.release(session.live, false, "crashed").catch(() => {});
      }
      if (!session && workspace && !workspace.persist && this.parts.workspaces) {
        await removeWorkspace(this.parts.workspaces.root, workspace.id);
      }
      throw err;
    }
  }

  /** Records an admitted execution and runs its first pass. */
  async #start(
    request: ExecuteRequest,
    hooks: ExecuteHooks | undefined,
    id: string,
    startedAt: number,
    admitted: Admitted,
  ): Promise<ExecuteResult> {
    const { namespace, session } = admitted;
    const row = executionRow(this.parts, id, request, admitted);
    const leaseUntil = row.createdAt + this.parts.durability.leaseMs;
    // Written while the child runs (run_start.ts); `started` comes before anything else it does.
    const start = new RunStart(async () => {
      await this.parts.executions.create({ ...row, owner: this.nodeId, leaseUntil });
      announceStart(this.parts.events, id, namespace, hooks);
    });
    return await this.runPass(row, [], startedAt, session, start);
  }

  /** Runs one pass of a recorded execution (new, or a replay over `recorded`). */
  async runPass(
    row: ExecutionRow,
    recorded: CallEntry[],
    startedAt: number,
    session?: SessionUse,
    start?: RunStart,
  ): Promise<ExecuteResult> {
    const limits = row.limits as unknown as Limits;
    const failEarly = async (error: ErrorInfo) => {
      await start?.now(); // a new execution ends recorded, as one that ran
      if (session) await this.parts.sessions!.release(session.live, true, "crashed");
      return await this.finish(row, { ok: false, error }, startedAt);
    };
    if (row.sessionId && !session) {
      await this.parts.sessions?.end(row.sessionId, "released");
      // Its heap died with its child: running it again elsewhere would not be the same run.
      return await failEarly(
        errorInfo(
          "session_not_found",
          `Execution ${row.id} ran in session ${row.sessionId}, whose sandbox is gone; it cannot continue`,
        ),
      );
    }
    let source;
    await keepTurnShort();
    try {
      source = await runSource(this.parts, row, session);
    } catch (err) {
      return await failEarly(toErrorInfo(err, "invalid_request"));
    }
    let child: SandboxChild;
    let pooled: boolean;
    const workspace = workspaceOf(row);
    try {
      const policy = runPolicy(row, limits);
      if (session?.live.child?.alive) {
        child = session.live.child;
        pooled = false;
      } else {
        ({ child, pooled } = await this.#children.take(policy, limits));
        if (session) session.live.child = child;
      }
    } catch (err) {
      // A typed refusal (Python without Pyodide) keeps its code and its fix.
      if (err instanceof CordonError) return await failEarly(err.toInfo());
      const message = `Cannot start a sandbox: ${err instanceof Error ? err.message : String(err)}`;
      return await failEarly(errorInfo("spawn_failed", message));
    }
    const events = this.parts.events;
    const journal = new CallJournal(
      this.parts.calls,
      row.id,
      recorded,
      this.parts.durability.maxDurableValueBytes,
      (entry) => events.call(entry, toCallRecord),
    );
    const pass = new Pass({
      executionId: row.id,
      namespace: row.namespace,
      onLog: (entry) => {
        if (events.active) events.emit({ type: "log", executionId: row.id, entry });
      },
      child,
      retire: (c) => this.#children.retire(c),
      pooled,
      source,
      input: row.input,
      limits,
      registry: this.parts.registry,
      journal,
      memoryGuard: this.parts.memoryGuard.kind,
      holdMs: this.parts.durability.holdMs,
      keepChild: session !== undefined,
      ...(workspace ? { workspace } : {}),
      ...(row.policy.program ? { program: row.policy.program as ProgramRunParams } : {}),
      redact: this.parts.redact,
      requests: this.parts.requests,
      observe: this.parts.observe,
      ...(start ? { gate: start.gate } : {}),
    });
    const run: LiveRun = { pass, row, journal, startedAt, session, fresh: start !== undefined };
    this.live.set(row.id, run);
    await pass.start();
    await start?.beside(pass, () => this.live.delete(row.id));
    return await this.settle(run, await pass.next());
  }

  /** Turns a pass event into the stored status and the returned envelope. */
  async settle(run: LiveRun, event: PassEvent): Promise<ExecuteResult> {
    const { row, pass, startedAt } = run;
    if (event.kind === "paused") {
      await run.journal.flush();
      await this.parts.logs.replace(row.id, pass.logs.entries);
      await this.parts.executions.transition(row.id, ["running", "paused"], "paused", {
        owner: null,
        leaseUntil: null,
      });
      this.#limitHeld(row.id);
      const pending = event.pending.map((e) => toPendingAction(e, this.parts.events));
      if (this.parts.events.active) {
        this.parts.events.emit({ type: "paused", executionId: row.id, pending });
      }
      return envelope(this.parts, run, { status: "paused", pending });
    }
    this.live.delete(row.id);
    if (event.kind === "released" && run.session) {
      await this.parts.sessions!.release(run.session.live, false, "released");
    }
    if (event.kind === "released") {
      // The execution stays paused; a later approve replays it.
      return envelope(this.parts, run, {
        status: "paused",
        pending: (await this.parts.calls.list(row.id)).filter(isUndecided)
          .map((e) => toPendingAction(e, this.parts.events)),
      });
    }
    // A first pass that printed nothing has no lines to write, nor earlier ones to replace.
    if (!run.fresh || pass.logs.entries.length > 0) {
      await this.parts.logs.replace(row.id, pass.logs.entries);
    }
    return await this.finish(row, event.outcome, startedAt, run);
  }

  /** Records a final outcome and builds its envelope. */
  async finish(
    row: ExecutionRow,
    outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo },
    startedAt: number,
    run?: LiveRun,
  ): Promise<ExecuteResult> {
    const { status, partial, resultRef } = await recordEnd(this.parts, row, outcome, run);
    if (run) return envelope(this.parts, run, partial, resultRef);
    return early(
      row.id,
      startedAt,
      outcome.ok ? errorInfo("invalid_state", "no pass") : outcome.error,
      this.parts,
      status,
      row.traceId,
    );
  }

  /** Keeps at most `maxHeld` paused children: the oldest beyond that is released. */
  #limitHeld(keepId: string): void {
    const held = [...this.live.entries()].filter(([id, r]) =>
      id !== keepId && r.pass.undecided().length > 0
    );
    const excess = held.length + 1 - this.parts.durability.maxHeld;
    for (let i = 0; i < excess; i++) held[i][1].pass.release();
  }

  /** Stops everything: pool, live passes, children. Paused executions stay paused in the store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#children.closePool();
    const closing = errorInfo("runtime_closed", "The runtime was closed");
    for (const [, run] of this.live) {
      if (run.pass.undecided().length > 0) run.pass.release();
      else run.pass.abort(closing);
    }
    await this.#children.killAll(closing);
    // Passes end once their children are gone; operations then settle their writes.
    await Promise.all([...this.live.values()].map((r) => r.pass.next()));
    await Promise.allSettled([...this.#ops]);
    this.live.clear();
  }
}
