/**
 * The durable engine behind `createRuntime()`: executions recorded in the
 * store, passes run on sandbox children, and the transitions between
 * `running`, `paused` and the final statuses. Decisions (approve, reject,
 * resolve), rollback and recovery live in `control.ts` and use this core.
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { CordonError, type ErrorInfo, errorInfo, toErrorInfo } from "../../errors.ts";
import { newId, newSecret } from "../../ids.ts";
import type { MemoryGuard } from "../../sandbox/cgroup.ts";
import { type ChildEnvironment, SandboxChild } from "../../sandbox/child.ts";
import { normalizeNetAllow, policyKey, type SandboxPolicy } from "../../sandbox/policy.ts";
import { ChildPool } from "../../sandbox/pool.ts";
import type { CallEntry, CallStore } from "../../store/calls.ts";
import type { ExecutionRow, ExecutionStatus, ExecutionStore } from "../../store/executions.ts";
import type { LogStore } from "../../store/logs.ts";
import { CallJournal } from "./journal.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { Pass, type PassEvent } from "./pass.ts";
import type { PlatformHost } from "../discovery/platform.ts";
import { type PreparedSource, prepareSource } from "../source/source.ts";
import type { EventHub, ExecutionEvent } from "./events.ts";
import { admit } from "./admission.ts";
import { endSessionRun, type SessionUse } from "../sessions/runs.ts";
import type { SessionManager } from "../sessions/manager.ts";
import { sessionSource } from "../sessions/source.ts";
import {
  collectOutputs,
  removeWorkspace,
  type Workspace,
  type WorkspaceHost,
} from "../workspaces/workspace.ts";
import { checkNamespace } from "../common/namespace.ts";
import { checkInput } from "./input.ts";
import type {
  CallRecord,
  Diagnostic,
  ExecuteHooks,
  ExecuteRequest,
  ExecuteResult,
  ExecutionMeta,
  PendingAction,
} from "./types.ts";

const MiB = 1024 * 1024;

/** Durability settings. */
export interface DurabilitySettings {
  /** How long a paused child is kept for live continuation, in ms. */
  holdMs: number;
  /** How many paused children one process keeps at once; past it the oldest is released. */
  maxHeld: number;
  /** How long a running execution's lease lasts without renewal, in ms. */
  leaseMs: number;
  /** The largest argument or result the call log stores, in UTF-8 bytes. */
  maxDurableValueBytes: number;
}

/** Everything the engine is built from. */
export interface EngineParts {
  registry: ConnectorRegistry;
  defaults: Limits;
  maxima: Limits;
  env: ChildEnvironment;
  memoryGuard: MemoryGuard;
  poolSize: number;
  executions: ExecutionStore;
  calls: CallStore;
  logs: LogStore;
  durability: DurabilitySettings;
  /** A stable hash of the connector catalogue (declarations). */
  declarationHash: string;
  /** Answers `codemode.search`, `describe` and `run`. */
  platform?: PlatformHost;
  /** Sees each applied tool result and the namespace that got it (observed output shapes). */
  observe?(connector: string, tool: string, value: unknown, namespace: string): void;
  /** Live events for listeners (the service's server-sent events). */
  events: EventHub;
  /** Prepares code that may import allowed packages (`PackageSet.prepare`); else prepareSource. */
  prepare?(code: string): PreparedSource | Promise<PreparedSource>;
  /** This process's id (made here when absent). */
  nodeId?: string;
  /** Live sessions (absent: executions cannot ask for one). */
  sessions?: SessionManager;
  /** Where workspaces live and how their inputs and outputs reach artifacts. */
  workspaces?: Omit<WorkspaceHost, "namespace">;
  /** Applied to console lines, and to code and messages before they are journaled. */
  redact?: (text: string) => string;
}

interface LiveRun {
  pass: Pass;
  row: ExecutionRow;
  journal: CallJournal;
  startedAt: number;
  session?: SessionUse;
}

/** The engine core. */
export class Engine {
  /** This process's id in the store (leases, sessions). */
  readonly nodeId: string;
  readonly parts: EngineParts;
  readonly #defaultPolicy: SandboxPolicy;
  readonly #pool: ChildPool;
  readonly #active = new Set<SandboxChild>();
  /** Runs with a live child in this process, by execution id. */
  readonly live = new Map<string, LiveRun>();
  /** Operations under way (execute, approve, …); close waits for them. */
  readonly #ops = new Set<Promise<unknown>>();
  #closed = false;

  constructor(parts: EngineParts) {
    this.parts = parts;
    this.nodeId = parts.nodeId ?? newId("node");
    this.#defaultPolicy = { heapMiB: parts.defaults.heapMiB, netAllow: [] };
    this.#pool = new ChildPool({
      size: parts.poolSize,
      spawn: () => this.#spawn(this.#defaultPolicy, parts.defaults),
    });
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
    return this.#pool.idleCount;
  }

  warm(): Promise<void> {
    return this.#pool.warm();
  }

  #spawn(policy: SandboxPolicy, limits: Limits): Promise<SandboxChild> {
    return SandboxChild.spawn({
      env: this.parts.env,
      policy,
      limits: { maxFrameBytes: limits.maxFrameBytes, maxOutputBytes: limits.maxOutputBytes },
      memoryBytes: limits.memoryMiB * MiB,
    });
  }

  async #child(
    policy: SandboxPolicy,
    limits: Limits,
  ): Promise<{ child: SandboxChild; pooled: boolean }> {
    const d = this.parts.defaults;
    const streamsMatch = limits.maxFrameBytes === d.maxFrameBytes &&
      limits.maxOutputBytes === d.maxOutputBytes;
    let child: SandboxChild | undefined;
    let pooled = false;
    if (streamsMatch && policyKey(policy) === policyKey(this.#defaultPolicy)) {
      child = this.#pool.take();
      pooled = child !== undefined;
    }
    child ??= await this.#spawn(policy, limits);
    this.#active.add(child);
    child.exited.then(() => this.#active.delete(child));
    return { child, pooled };
  }

  /** Runs new code: records the execution, runs its first pass, returns its first outcome. */
  async execute(request: ExecuteRequest, hooks?: ExecuteHooks): Promise<ExecuteResult> {
    const startedAt = performance.now();
    const id = newId("exec");
    if (this.#closed) {
      return early(id, startedAt, errorInfo("runtime_closed", "The runtime is closed"), this.parts);
    }
    let limits: Limits;
    let policy: SandboxPolicy;
    let namespace: string;
    let session: SessionUse | undefined;
    let workspace: Workspace | undefined;
    try {
      if (request === null || typeof request !== "object") {
        throw new CordonError("invalid_request", "execute() takes an object with code");
      }
      const overrides = { ...request.limits };
      if (request.timeoutMs !== undefined) overrides.timeoutMs = request.timeoutMs;
      limits = resolveLimits(this.parts.defaults, this.parts.maxima, overrides);
      policy = { heapMiB: limits.heapMiB, netAllow: normalizeNetAllow(request.policy?.net) };
      namespace = checkNamespace(request.namespace);
      checkInput(request.input);
      ({ session, workspace, policy } = await admit(this.parts, request, namespace, policy));
    } catch (err) {
      return early(id, startedAt, toErrorInfo(err, "invalid_request"), this.parts);
    }
    // Whatever fails from here on, the session slot admission took is given back: a slot left
    // busy is a session nobody can use, and enough of them lock every caller out.
    const releasesBefore = session?.live.executions;
    try {
      return await this.#start(request, hooks, {
        id,
        startedAt,
        namespace,
        limits,
        policy,
        session,
        workspace,
      });
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
    admitted: {
      id: string;
      startedAt: number;
      namespace: string;
      limits: Limits;
      policy: SandboxPolicy;
      session?: SessionUse;
      workspace?: Workspace;
    },
  ): Promise<ExecuteResult> {
    const { id, startedAt, namespace, limits, policy, session, workspace } = admitted;
    const now = Date.now();
    const row: ExecutionRow = {
      id,
      namespace,
      logRef: newSecret("log"),
      ...(session ? { sessionId: session.live.id } : {}),
      code: String(request.code ?? ""),
      input: request.input,
      status: "running",
      connectors: this.parts.registry.names(),
      declarationHash: this.parts.declarationHash,
      limits: { ...limits },
      policy: { net: policy.netAllow, ...(workspace ? { workspace } : {}) },
      passes: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.parts.executions.create({
      ...row,
      owner: this.nodeId,
      leaseUntil: now + this.parts.durability.leaseMs,
    });
    const events = this.parts.events;
    if (events.active) events.emit({ type: "started", executionId: id, namespace });
    try {
      hooks?.onStart?.(id);
    } catch {
      // The caller's callback cannot stop a recorded execution.
    }
    return await this.runPass(row, [], startedAt, session);
  }

  /** Runs one pass of a recorded execution (new, or a replay over `recorded`). */
  async runPass(
    row: ExecutionRow,
    recorded: CallEntry[],
    startedAt: number,
    session?: SessionUse,
  ): Promise<ExecuteResult> {
    const limits = row.limits as unknown as Limits;
    const failEarly = async (error: ErrorInfo) => {
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
    try {
      source = this.parts.prepare ? await this.parts.prepare(row.code) : prepareSource(row.code);
      if (session) {
        source = sessionSource(source);
        session.declared = source.declared;
      }
    } catch (err) {
      return await failEarly(toErrorInfo(err, "invalid_request"));
    }
    let child: SandboxChild;
    let pooled: boolean;
    const workspace = workspaceOf(row);
    try {
      const policy = {
        heapMiB: limits.heapMiB,
        netAllow: (row.policy.net as string[]) ?? [],
        ...(workspace ? { workspaceDir: workspace.dir } : {}),
      };
      if (session?.live.child?.alive) {
        child = session.live.child;
        pooled = false;
      } else {
        ({ child, pooled } = await this.#child(policy, limits));
        if (session) session.live.child = child;
      }
    } catch (err) {
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
      redact: this.parts.redact,
      platform: this.parts.platform,
      observe: this.parts.observe,
    });
    const run: LiveRun = { pass, row, journal, startedAt, session };
    this.live.set(row.id, run);
    await pass.start();
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
      const pending = event.pending.map(toPendingAction);
      if (this.parts.events.active) {
        this.parts.events.emit({ type: "paused", executionId: row.id, pending });
      }
      return this.envelope(run, { status: "paused", pending });
    }
    this.live.delete(row.id);
    if (event.kind === "released" && run.session) {
      await this.parts.sessions!.release(run.session.live, false, "released");
    }
    if (event.kind === "released") {
      // The execution stays paused; a later approve replays it.
      return this.envelope(run, {
        status: "paused",
        pending: (await this.parts.calls.list(row.id)).filter(isUndecided).map(toPendingAction),
      });
    }
    await this.parts.logs.replace(row.id, pass.logs.entries);
    return await this.finish(row, event.outcome, startedAt, run);
  }

  /** Records a final outcome and builds its envelope. */
  async finish(
    row: ExecutionRow,
    outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo },
    startedAt: number,
    run?: LiveRun,
  ): Promise<ExecuteResult> {
    const status: ExecutionStatus = outcome.ok
      ? "completed"
      : outcome.error.code === "rejected"
      ? "rejected"
      : "error";
    // Calls still waiting when the run ended are abandoned.
    for (const entry of (await this.parts.calls.list(row.id)).filter(isUndecided)) {
      await this.parts.calls.decide(row.id, entry.seq, "rejected", {
        state: "rejected",
        error: errorInfo("rejected", "The run ended before a decision"),
      });
    }
    await this.parts.executions.transition(row.id, ["running", "paused"], status, {
      ...(outcome.ok ? { result: outcome.value } : { error: outcome.error }),
      owner: null,
      leaseUntil: null,
    });
    if (run?.session) {
      await endSessionRun(
        this.parts.sessions!,
        this.parts.registry,
        run.session,
        row,
        outcome,
        [...run.journal.touched.values()],
        run.pass.keptChild,
        this.parts.redact ?? ((t) => t),
      );
    }
    const partial: Record<string, unknown> = outcome.ok
      ? { status: "completed" as const, result: outcome.value }
      : { status, error: outcome.error };
    const ws = workspaceOf(row);
    if (ws && this.parts.workspaces) {
      const host = { ...this.parts.workspaces, namespace: row.namespace };
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
      if (!ws.persist) await removeWorkspace(host.root, ws.id);
    }
    if (this.parts.events.active) {
      this.parts.events.emit({ type: "done", executionId: row.id, ...partial } as ExecutionEvent);
    }
    if (run) return this.envelope(run, partial);
    return early(
      row.id,
      startedAt,
      outcome.ok ? errorInfo("invalid_state", "no pass") : outcome.error,
      this.parts,
      status,
    );
  }

  /** The envelope for a run. */
  envelope(run: LiveRun, partial: Record<string, unknown>): ExecuteResult {
    const { pass, row, journal, startedAt } = run;
    const limits = row.limits as unknown as Limits;
    const calls: CallRecord[] = [...journal.touched.values()].sort((a, b) => a.seq - b.seq).map(
      toCallRecord,
    );
    const meta: ExecutionMeta = {
      executionId: row.id,
      durationMs: performance.now() - startedAt,
      timeoutMs: limits.timeoutMs,
      maxTimeoutMs: this.parts.maxima.timeoutMs,
      calls: pass.calls,
      memoryGuard: this.parts.memoryGuard.kind,
      heapMiB: limits.heapMiB,
      memoryMiB: limits.memoryMiB,
      pooled: pass.pooled,
      form: pass.form,
      replayed: journal.replaying,
      logBytes: pass.logs.receivedBytes,
      logsDropped: pass.logs.dropped,
      logsTruncated: pass.logs.truncated,
    };
    if (run.session) {
      meta.sessionId = run.session.live.id;
      meta.sessionStatus = run.session.status;
      if (run.session.status === "created") meta.recoveryRef = run.session.live.recoveryRef;
    }
    const error = partial.error as ErrorInfo | undefined;
    const diagnostics: Diagnostic[] = error?.code === "syntax_error"
      ? [{
        code: "syntax_error",
        message: error.message,
        severity: "error",
        ...(error.location ?? {}),
      }]
      : [];
    return {
      executionId: row.id,
      ...partial,
      logs: pass.logs.inline(),
      calls,
      diagnostics,
      meta,
    } as ExecuteResult;
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
    await this.#pool.close();
    const closing = errorInfo("runtime_closed", "The runtime was closed");
    for (const [, run] of this.live) {
      if (run.pass.undecided().length > 0) run.pass.release();
      else run.pass.abort(closing);
    }
    const active = [...this.#active];
    for (const child of active) child.kill(closing);
    await Promise.all(active.map((c) => c.exited));
    // Passes end once their children are gone; operations then settle their writes.
    await Promise.all([...this.live.values()].map((r) => r.pass.next()));
    await Promise.allSettled([...this.#ops]);
    this.live.clear();
  }
}

function isUndecided(e: CallEntry): boolean {
  return e.state === "pending" && e.decision === undefined;
}

/** A pending entry as callers see it. */
export function toPendingAction(e: CallEntry): PendingAction {
  return {
    executionId: e.executionId,
    seq: e.seq,
    connector: e.connector,
    tool: e.tool,
    args: e.args,
    needs: e.needs ?? "approval",
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

/** An envelope for an execution that never got a pass. */
export function early(
  executionId: string,
  startedAt: number,
  error: ErrorInfo,
  parts: Pick<EngineParts, "defaults" | "maxima" | "memoryGuard">,
  status: ExecutionStatus = "error",
): ExecuteResult {
  const limits = parts.defaults;
  const meta: ExecutionMeta = {
    executionId,
    durationMs: performance.now() - startedAt,
    timeoutMs: limits.timeoutMs,
    maxTimeoutMs: parts.maxima.timeoutMs,
    calls: 0,
    memoryGuard: parts.memoryGuard.kind,
    heapMiB: limits.heapMiB,
    memoryMiB: limits.memoryMiB,
    pooled: false,
    replayed: false,
    logBytes: 0,
    logsDropped: 0,
    logsTruncated: false,
  };
  const diagnostics: Diagnostic[] = error.code === "syntax_error"
    ? [{
      code: "syntax_error",
      message: error.message,
      severity: "error",
      ...(error.location ?? {}),
    }]
    : [];
  return { status, executionId, error, logs: [], calls: [], diagnostics, meta } as ExecuteResult;
}

/** The workspace an execution row was given, if any. */
function workspaceOf(row: ExecutionRow): Workspace | undefined {
  return row.policy.workspace as Workspace | undefined;
}
