/**
 * One pass: the execution's code running once in one child. The pass binds
 * the channel, enforces the limits the host owns, sends every call through
 * the journal, and reports events: `paused` when a call waits for a
 * decision, `ended` with the outcome, or `released` when its hold time ran
 * out (the execution stays paused and a later pass replays it).
 *
 * While paused, the deadline is suspended, the child is stopped (SIGSTOP, so
 * it cannot spend the time its deadline no longer counts), and new calls
 * from other branches of the script are held back, so nothing executes that
 * another process's replay might execute too.
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import {
  CHILD_CODES,
  CordonError,
  type ErrorCode,
  type ErrorInfo,
  errorInfo,
  toErrorInfo,
} from "../../errors.ts";
import type { MemoryGuardKind } from "../../sandbox/cgroup.ts";
import type { SandboxChild } from "../../sandbox/child.ts";
import {
  METHOD_LOG,
  METHOD_RUN,
  METHOD_STEP_GET,
  METHOD_STEP_PUT,
  METHOD_TOOL_CALL,
  type RunParams,
  type RunResult,
  type StepParams,
  type ToolCallParams,
} from "../../sandbox/protocol.ts";
import type { CallEntry } from "../../store/calls.ts";
import { classifyExit, concealPaths, encodedBytes } from "./exit.ts";
import type { CallJournal } from "./journal.ts";
import type { Limits } from "./limits.ts";
import { LogBuffer } from "../logs/buffer.ts";
import { quotaError, type WorkspaceQuota } from "../workspaces/workspace.ts";
import type { PreparedSource } from "../source/source.ts";
import type { LogEntry } from "./types.ts";

const MiB = 1024 * 1024;

/** How a pass's run ended. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };

/** What a pass reports. */
export type PassEvent =
  | { kind: "paused"; pending: CallEntry[] }
  | { kind: "ended"; outcome: Outcome }
  | { kind: "released" };

/** A decision for a waiting call. */
export type Decision =
  | { kind: "approved" }
  | { kind: "rejected"; error: ErrorInfo }
  | { kind: "resolved"; value: unknown };

/**
 * A script's requests besides tool calls and steps, answered by a capability above the core
 * (the `codemode` platform: search, describe, snippets, handles, log and recovery readers).
 * They count against `maxToolCalls` and wait while the run is paused.
 */
export interface ScriptRequests {
  /** Whether `method` is one this handler answers. */
  handles(method: string): boolean;
  /** Answers it for a run; what a replay must see again is pinned in `journal`. */
  answer(
    method: string,
    params: unknown,
    run: { namespace: string; journal: CallJournal; signal: AbortSignal },
  ): Promise<unknown>;
}

/** What one pass needs. */
export interface PassOptions {
  executionId: string;
  /** The execution's namespace: `codemode` sees this namespace's snippets. */
  namespace: string;
  /** A session's pass: the child stays alive after a clean answer. */
  keepChild?: boolean;
  /** The execution's workspace: its directory and quota. */
  workspace?: WorkspaceQuota;
  /** Redacts each console line as it arrives; LogBuffer's built-in shapes when absent. */
  redact?: (text: string) => string;
  /** Sees each console line kept. */
  onLog?: (entry: LogEntry) => void;
  child: SandboxChild;
  pooled: boolean;
  source: PreparedSource;
  input: unknown;
  limits: Limits;
  registry: ConnectorRegistry;
  journal: CallJournal;
  memoryGuard: MemoryGuardKind;
  /** How long a paused child is kept for live continuation. */
  holdMs: number;
  /** Answers the script's requests besides tool calls and steps (`codemode.search`, …). */
  requests?: ScriptRequests;
  /** Sees each applied tool result and the namespace that got it (observed output shapes). */
  observe?(connector: string, tool: string, value: unknown, namespace: string): void;
}

function readToolCall(params: unknown): ToolCallParams {
  const p = params as Partial<ToolCallParams> | null;
  if (!p || typeof p.connector !== "string" || typeof p.tool !== "string") {
    throw new CordonError("invalid_request", "A tool call needs a connector name and a tool name");
  }
  return { connector: p.connector, tool: p.tool, args: p.args };
}

function readStep(params: unknown): StepParams {
  const p = params as Partial<StepParams> | null;
  if (!p || typeof p.name !== "string" || !Number.isSafeInteger(p.occurrence)) {
    throw new CordonError("invalid_request", "A step needs a name");
  }
  return { name: p.name, occurrence: p.occurrence!, value: p.value };
}

/** One run of the code in one child. */
export class Pass {
  readonly logs: LogBuffer;
  /** The child outlived the run (a session's clean answer). */
  keptChild = false;
  readonly startedAt = performance.now();
  readonly #o: PassOptions;
  #calls = 0;
  /** Steps and `codemode` platform requests: they share the tool-call budget. */
  #requests = 0;
  /** Step seqs handed out by a step lookup and not stored yet: a store needs one. */
  #openSteps = new Set<number>();
  #inFlight = 0;
  #failure: ErrorInfo | undefined;
  #released = false;
  #final: PassEvent | undefined;
  #listeners: ((e: PassEvent) => void)[] = [];
  /** Calls waiting for a decision, by seq. */
  #undecided = new Map<number, { entry: CallEntry; decide: (d: Decision) => void }>();
  #thaw: { promise: Promise<void>; resolve: () => void } | undefined;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #hold: ReturnType<typeof setTimeout> | undefined;
  #remainingMs: number;
  #deadlineStartedAt = 0;
  #ended = new AbortController();
  /** The child's answer to `run` has arrived (set before its promise settles). */
  #answered = false;
  /** Codes this pass raised to the script; only these may come back in its reply. */
  #told = new Set<ErrorCode>();

  constructor(options: PassOptions) {
    this.#o = options;
    this.#remainingMs = options.limits.timeoutMs;
    this.logs = new LogBuffer(
      options.limits.maxConsoleBytes,
      options.limits.maxInlineConsoleBytes,
      this.startedAt,
      options.onLog,
      options.redact,
    );
  }

  /** Starts the run; events follow through {@link next}. */
  async start(): Promise<void> {
    const { child, limits } = this.#o;
    child.bind({
      onRequest: (method, params) => {
        // Whatever the child sends after its answer is dropped: the execution is over.
        if (this.#answered) throw late(method);
        return this.#answer(method, params);
      },
      onNotification: (method, params) => {
        if (method === METHOD_LOG && !this.#answered) this.logs.add(params);
      },
      onFault: (info) => this.#stop(info),
    });
    await child.setMemory(limits.memoryMiB * MiB);
    // A session's child was stopped when its last execution answered; it runs again now.
    child.resume();
    this.#resumeDeadline();
    const params: RunParams = {
      module: this.#o.source.module,
      lineOffset: this.#o.source.lineOffset,
      input: this.#o.input,
      connectors: this.#o.registry.guestConnectors(),
      maxResultBytes: limits.maxResultBytes,
    };
    const ws = this.#o.workspace;
    if (ws) {
      params.workspace = { dir: ws.dir };
      this.#watchQuota();
    }
    this.#run(params);
  }

  /** Stops the run once its workspace holds more than its quota (checked every 250 ms). */
  #watchQuota(): void {
    let checking = false;
    const timer = setInterval(async () => {
      if (checking) return;
      checking = true;
      try {
        const over = await this.#overQuota();
        if (over) this.#stop(over);
      } catch {
        // The directory changed while it was walked; the next check sees it.
      } finally {
        checking = false;
      }
    }, 250);
    this.#ended.signal.addEventListener("abort", () => clearInterval(timer));
  }

  /** The quota error when the workspace holds too many bytes or entries, else undefined. */
  async #overQuota(): Promise<ErrorInfo | undefined> {
    return this.#o.workspace ? await quotaError(this.#o.workspace) : undefined;
  }

  /** The next event: `paused` at once while calls wait, otherwise the next pause or the end. */
  next(): Promise<PassEvent> {
    if (this.#final) return Promise.resolve(this.#final);
    if (this.#undecided.size > 0) return Promise.resolve(this.#pausedEvent());
    return new Promise((resolve) => this.#listeners.push(resolve));
  }

  /** Entries waiting for a decision now. */
  undecided(): CallEntry[] {
    return [...this.#undecided.values()].map((w) => w.entry).sort((a, b) => a.seq - b.seq);
  }

  /** Answers a waiting call; false if nothing waits under that seq. */
  decide(seq: number, decision: Decision): boolean {
    const waiter = this.#released ? undefined : this.#undecided.get(seq);
    if (!waiter) return false;
    this.#undecided.delete(seq);
    const entry = waiter.entry;
    if (decision.kind === "approved") entry.decision = "approved";
    if (decision.kind === "rejected") {
      Object.assign(entry, { decision: "rejected", state: "rejected", error: decision.error });
    }
    if (decision.kind === "resolved") {
      Object.assign(entry, { decision: "resolved", state: "applied", result: decision.value });
    }
    waiter.decide(decision);
    if (this.#undecided.size === 0) this.#resume();
    return true;
  }

  /** The child is still here, paused, and can take decisions. */
  get holding(): boolean {
    return !this.#released && !this.#final && this.#undecided.size > 0;
  }

  /** Gives up the child without ending the execution (it stays paused). */
  release(): void {
    if (this.#final) return;
    this.#released = true;
    this.#o.child.kill(errorInfo("runtime_closed", "The paused sandbox was released"));
  }

  /** Kills the run with a reason (it ends with that error). */
  abort(info: ErrorInfo): void {
    this.#stop(info);
  }

  get pooled(): boolean {
    return this.#o.pooled;
  }

  get form(): PreparedSource["form"] {
    return this.#o.source.form;
  }

  get calls(): number {
    return this.#calls;
  }

  /** Answers a request of the child's, noting the code of every failure it is told. */
  async #answer(method: string, params: unknown): Promise<unknown> {
    try {
      return await this.#onRequest(method, params);
    } catch (err) {
      // The peer sends a non-CordonError as `tool_error`; the same code is noted here.
      this.#told.add(toErrorInfo(err).code);
      throw err;
    }
  }

  async #onRequest(method: string, params: unknown): Promise<unknown> {
    if (method === METHOD_TOOL_CALL) return await this.#toolCall(readToolCall(params));
    if (method === METHOD_STEP_GET || method === METHOD_STEP_PUT) {
      await this.#thaw?.promise;
      if (this.#answered) throw late(method);
      const step = readStep(params);
      if (method === METHOD_STEP_GET) {
        // A step is counted once, at its lookup; its store spends the seq the lookup gave.
        this.#spend(method);
        const found = this.#o.journal.step(step.name, step.occurrence);
        if (found.found) return { found: true, value: found.value };
        this.#openSteps.add(found.seq);
        return { found: false, seq: found.seq };
      }
      const seq = (params as { seq?: unknown }).seq;
      if (!Number.isSafeInteger(seq) || !this.#openSteps.delete(seq as number)) {
        throw new CordonError("invalid_request", "A step value needs the seq its lookup gave");
      }
      await this.#o.journal.recordStep(seq as number, step.name, step.occurrence, step.value);
      return null;
    }
    const requests = this.#o.requests;
    if (requests?.handles(method)) {
      await this.#thaw?.promise;
      if (this.#answered) throw late(method);
      this.#spend(method);
      return await requests.answer(method, params, {
        namespace: this.#o.namespace,
        journal: this.#o.journal,
        signal: this.#ended.signal,
      });
    }
    throw new CordonError("invalid_request", `The host does not handle ${method}`);
  }

  async #toolCall({ connector, tool, args }: ToolCallParams): Promise<unknown> {
    const { limits, registry, journal } = this.#o;
    // Held back while paused: only the process that resumes may run more.
    while (this.#thaw) await this.#thaw.promise;
    if (this.#final || this.#answered) {
      throw new CordonError("interrupted", "The run ended before this call");
    }
    if (this.#calls + this.#requests >= limits.maxToolCalls) this.#overBudget();
    if (this.#inFlight >= limits.maxCallsInFlight) {
      throw this.#limit(
        "too_many_calls_in_flight",
        `The script had more than ${limits.maxCallsInFlight} tool calls waiting at once`,
        limits.maxCallsInFlight,
      );
    }
    this.#calls++;
    this.#inFlight++;
    try {
      const def = registry.tool(connector, tool);
      if (!def) {
        const missing = await registry.call(connector, tool, args, {
          executionId: this.#o.executionId,
          namespace: this.#o.namespace,
        });
        throw new CordonError(
          (missing as { error: ErrorInfo }).error.code,
          (missing as { error: ErrorInfo }).error.message,
        );
      }
      const needs = def.annotations.requiresApproval
        ? "approval"
        : def.annotations.resolution === "client"
        ? "value"
        : undefined;
      const decision = await journal.begin(connector, tool, args, {
        needs,
        reexecute: def.annotations.replay === "reexecute",
      });
      switch (decision.kind) {
        case "answer":
          return decision.value;
        case "fail":
          throw new CordonError(decision.error.code, decision.error.message, decision.error);
        case "diverged":
          this.#stop(decision.error);
          throw new CordonError(decision.error.code, decision.error.message);
        case "execute":
          return await this.#execute(decision.seq, connector, tool, args);
        case "pending": {
          const answer = await this.#park(decision.entry);
          if (answer.kind === "rejected") {
            throw new CordonError(answer.error.code, answer.error.message);
          }
          if (answer.kind === "resolved") return answer.value;
          await journal.markExecuting(decision.seq);
          return await this.#execute(decision.seq, connector, tool, args);
        }
      }
    } finally {
      this.#inFlight--;
    }
  }

  async #execute(seq: number, connector: string, tool: string, args: unknown): Promise<unknown> {
    const out = await this.#o.registry.call(connector, tool, args, {
      executionId: this.#o.executionId,
      namespace: this.#o.namespace,
      signal: this.#ended.signal,
    });
    const final = this.#o.journal.finish(seq, out);
    if (!final.ok) throw new CordonError(final.error.code, final.error.message, final.error);
    this.#o.observe?.(connector, tool, final.value, this.#o.namespace);
    return final.value;
  }

  #park(entry: CallEntry): Promise<Decision> {
    return new Promise((resolve) => {
      const wasRunning = this.#undecided.size === 0;
      this.#undecided.set(entry.seq, { entry, decide: resolve });
      if (wasRunning) this.#pause();
      const event = this.#pausedEvent();
      for (const l of this.#listeners.splice(0)) l(event);
    });
  }

  #pausedEvent(): PassEvent {
    return { kind: "paused", pending: this.undecided() };
  }

  #pause(): void {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.#thaw = { promise, resolve };
    if (this.#deadline !== undefined) {
      clearTimeout(this.#deadline);
      this.#deadline = undefined;
      this.#remainingMs = Math.max(
        1,
        this.#remainingMs - (performance.now() - this.#deadlineStartedAt),
      );
    }
    this.#hold = setTimeout(() => this.release(), this.#o.holdMs);
    // Its deadline is suspended, so the child must not run either: a paused script could
    // otherwise burn a core for the whole hold time. It runs again when a decision comes.
    void this.#o.child.suspend();
  }

  #resume(): void {
    clearTimeout(this.#hold);
    this.#hold = undefined;
    this.#o.child.resume();
    const thaw = this.#thaw;
    this.#thaw = undefined;
    thaw?.resolve();
    this.#resumeDeadline();
  }

  #resumeDeadline(): void {
    if (this.#final) return;
    this.#deadlineStartedAt = performance.now();
    const timeoutMs = this.#o.limits.timeoutMs;
    this.#deadline = setTimeout(
      () =>
        this.#stop(
          errorInfo("sandbox_timeout", `The script did not finish within ${timeoutMs} ms`, {
            timeoutMs,
          }),
        ),
      this.#remainingMs,
    );
  }

  /** Counts one step or platform request against `maxToolCalls`; over it, the run ends. */
  #spend(method: string): void {
    if (this.#calls + this.#requests >= this.#o.limits.maxToolCalls) this.#overBudget(method);
    this.#requests++;
  }

  #overBudget(method?: string): never {
    const max = this.#o.limits.maxToolCalls;
    throw this.#limit(
      "too_many_calls",
      `The script made more than ${max} tool calls and codemode requests (steps, search, describe, run, connector handles, readLogs/readRecovery count as calls)${
        method ? `; ${method} was one too many` : ""
      }`,
      max,
    );
  }

  #limit(
    code: "too_many_calls" | "too_many_calls_in_flight",
    message: string,
    limit: number,
  ): CordonError {
    const info = errorInfo(code, message, { limit });
    this.#stop(info);
    return new CordonError(code, message);
  }

  #stop(info: ErrorInfo): void {
    // Once the child has answered, what it does next cannot change the outcome.
    if (!this.#answered) this.#failure ??= info;
    this.#o.child.kill(info);
  }

  async #run(params: RunParams): Promise<void> {
    const { child, limits } = this.#o;
    let outcome: Outcome;
    try {
      const reply = (await child.peer.request(METHOD_RUN, params, {
        onAnswer: () => this.#answered = true,
      })) as RunResult;
      outcome = { ok: true, value: reply?.value };
    } catch (err) {
      // A failure the host recorded first wins; after an answer, the answer stands.
      if (this.#failure || (!this.#answered && (!child.alive || this.#released))) {
        const exit = await child.exited;
        outcome = {
          ok: false,
          error: this.#failure ?? classifyExit(exit, limits.heapMiB, limits.memoryMiB),
        };
      } else {
        outcome = {
          ok: false,
          error: err instanceof CordonError
            ? fromChild(err.toInfo(), this.#told)
            : errorInfo("protocol_error", String(err)),
        };
      }
    }
    clearTimeout(this.#deadline);
    clearTimeout(this.#hold);
    this.#ended.abort();
    // A session keeps a child that answered cleanly; anything else ends it.
    this.keptChild = this.#o.keepChild === true && this.#answered && !this.#failure &&
      !this.#released && child.alive;
    // Between executions a session's child does not run at all; any other child is killed, and
    // one that could write somewhere (a workspace) is gone before the run's outputs are read, so
    // nothing can change them after their checks. A child without a workspace can write nothing
    // and its late frames are dropped, so its exit is not waited for (it costs a pooled run ~10 ms).
    if (this.keptChild) this.keptChild = await child.suspend();
    if (!this.keptChild) {
      child.kill();
      if (this.#o.workspace) await child.exited;
    }
    // Frames the child sent before it stopped may still wait for a slice; they are this pass's
    // (counted, or dropped as late) and must not reach the next execution a session binds.
    // Waited for only now: a child still running could keep the queue from ever emptying.
    await child.peer.idle();
    // The quota holds at the end too: what was written after the last check counts.
    const over = await this.#overQuota().catch(() => undefined);
    if (over) {
      this.#failure ??= over;
      if (this.keptChild) {
        this.keptChild = false;
        child.kill();
        await child.exited;
      }
    }
    // A limit the host enforced wins over an answer that raced it.
    if (outcome.ok && this.#failure) outcome = { ok: false, error: this.#failure };
    if (outcome.ok) outcome = this.#checkResult(outcome.value);
    await this.#o.journal.flush();
    if (outcome.ok) {
      const skipped = this.#o.journal.unconsumedApplied();
      if (skipped.length > 0) {
        outcome = {
          ok: false,
          error: errorInfo(
            "replay_divergence",
            `On replay the script no longer made ${skipped.length} call(s) it made before (first: ${
              skipped[0].connector
            }.${skipped[0].tool}, entry ${skipped[0].seq})`,
            { seqs: skipped.map((e) => e.seq) },
          ),
        };
      }
    }
    this.#final = this.#released ? { kind: "released" } : { kind: "ended", outcome };
    // Calls still waiting are abandoned with the run.
    for (const [, w] of this.#undecided) {
      w.decide({ kind: "rejected", error: errorInfo("rejected", "The run ended") });
    }
    this.#undecided.clear();
    const thaw = this.#thaw;
    this.#thaw = undefined;
    thaw?.resolve();
    for (const l of this.#listeners.splice(0)) l(this.#final);
  }

  #checkResult(value: unknown): Outcome {
    const max = this.#o.limits.maxResultBytes;
    const bytes = encodedBytes(value);
    if (bytes <= max) return { ok: true, value };
    return {
      ok: false,
      error: errorInfo(
        "result_too_large",
        `The result is ${bytes} bytes, over the ${max}-byte limit; return a smaller value`,
        {
          bytes,
          limit: max,
        },
      ),
    };
  }
}

/**
 * The child is untrusted: a script can write any frame to stdout, so a run
 * reply may carry a code the host owns (a limit, a kill, a person's
 * rejection) only when the host raised that code to the script in this run;
 * anything else is the script's own claim and is reported as such.
 */
/** The error for a request the child sent after it answered (nobody reads it). */
function late(method: string): CordonError {
  return new CordonError("interrupted", `The execution has answered; ${method} was dropped`);
}

function fromChild(reply: ErrorInfo, told: ReadonlySet<ErrorCode>): ErrorInfo {
  const info = { ...reply, message: concealPaths(reply.message) };
  if (CHILD_CODES.has(info.code) || told.has(info.code)) return info;
  return errorInfo(
    "script_error",
    `The script reported "${info.code}" itself (${info.message}); the host raised no such failure`,
    { claimed: info.code },
  );
}
