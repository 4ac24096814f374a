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
import { CordonError, type ErrorInfo, errorInfo } from "../../errors.ts";
import { METHOD_LOG, METHOD_RUN, type RunParams, type RunResult } from "../../sandbox/protocol.ts";
import type { CallEntry } from "../../store/calls.ts";
import { LogBuffer } from "../logs/buffer.ts";
import type { PreparedSource } from "../source/source.ts";
import { quotaError, watchQuota } from "../workspaces/quota.ts";
import { applyRunLimits, type GuardedLimit, taskLimitOutcome } from "./enforcement.ts";
import { classifyExit } from "./exit.ts";
import type { Decision, Outcome, PassEvent, PassOptions } from "./pass_options.ts";
import { ChildRequests, late } from "./pass_requests.ts";
import { DEFAULT_LIMITS } from "./limits.ts";
import { RunClock } from "./run_clock.ts";
import { heldUntil } from "./run_start.ts";
import { runParams } from "./run_params.ts";
import { checkResult, divergence, fromChild } from "./verdict.ts";

export type { Decision, Outcome, PassEvent, PassOptions, ScriptRequests } from "./pass_options.ts";

const INLINE_DEFAULT = DEFAULT_LIMITS.inlineResultBytes;

/** Why a pass's signal aborts, made once (`abort()` builds a `DOMException` and a stack). */
const RUN_ENDED = new DOMException("The run ended", "AbortError");

/** One run of the code in one child. */
export class Pass {
  readonly logs: LogBuffer;
  /** The child outlived the run (a session's clean answer). */
  keptChild = false;
  /** The run's limits this host did not enforce (see `applyRunLimits`). */
  notEnforced: GuardedLimit[] = [];
  readonly startedAt = performance.now();
  readonly #o: PassOptions;
  readonly #requests: ChildRequests;
  #failure: ErrorInfo | undefined;
  #released = false;
  #final: PassEvent | undefined;
  #listeners: ((e: PassEvent) => void)[] = [];
  /** Calls waiting for a decision, by seq. */
  #undecided = new Map<number, { entry: CallEntry; decide: (d: Decision) => void }>();
  #thaw: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #clock: RunClock;
  #ended = new AbortController();
  /** The child's answer to `run` has arrived (set before its promise settles). */
  #answered = false;

  constructor(options: PassOptions) {
    this.#o = options;
    const timeoutMs = options.limits.timeoutMs;
    this.#clock = new RunClock(timeoutMs, () =>
      this.#stop(
        errorInfo("sandbox_timeout", `The script did not finish within ${timeoutMs} ms`, {
          timeoutMs,
        }),
      ));
    this.#requests = new ChildRequests(options, {
      thaw: () => this.#thaw?.promise,
      answered: () => this.#answered,
      ended: () => this.#final !== undefined,
      signal: this.#ended.signal,
      stop: (info) => this.#stop(info),
      park: (entry) => this.#park(entry),
    });
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
    child.bind(heldUntil(this.#o.gate, {
      onRequest: (method, params) => {
        // Whatever the child sends after its answer is dropped: the execution is over.
        if (this.#answered) throw late(method);
        return this.#requests.answer(method, params);
      },
      onNotification: (method, params) => {
        if (method === METHOD_LOG && !this.#answered) this.logs.add(params);
      },
      onFault: (info) => this.#stop(info),
    }));
    this.notEnforced = await applyRunLimits(child, limits);
    // A session's child was stopped when its last execution answered; it runs again now.
    child.resume();
    this.#resumeDeadline();
    const params = runParams(this.#o);
    const ws = this.#o.workspace;
    if (ws) watchQuota(ws, this.#ended.signal, (over) => this.#stop(over));
    this.#run(params);
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

  /** More standard input for a program run; false once the run has answered or ended. */
  stdin(data: string, eof: boolean): boolean {
    if (this.#answered || this.#final || !this.#o.program) return false;
    this.#o.child.stdin(data, eof);
    return true;
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
    return this.#requests.calls;
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
    this.#clock.hold(this.#o.holdMs, () => this.release());
    // Its deadline is suspended, so the child must not run either: a paused script could
    // otherwise burn a core for the whole hold time. It runs again when a decision comes.
    void this.#o.child.suspend();
  }

  #resume(): void {
    this.#clock.unhold();
    this.#o.child.resume();
    const thaw = this.#thaw;
    this.#thaw = undefined;
    thaw?.resolve();
    this.#resumeDeadline();
  }

  #resumeDeadline(): void {
    if (!this.#final) this.#clock.run();
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
            ? fromChild(err.toInfo(), this.#requests.told)
            : errorInfo("protocol_error", String(err)),
        };
      }
    }
    if (!this.#failure) outcome = await taskLimitOutcome(child, outcome, limits.maxPids);
    this.#clock.stop();
    this.#ended.abort(RUN_ENDED);
    // A session keeps a child that answered cleanly; anything else ends it.
    this.keptChild = this.#o.keepChild === true && this.#answered && !this.#failure &&
      !this.#released && child.alive;
    // A session's child does not run between executions. One that could write (a workspace) is
    // gone before the outputs are read; any other is retired (its late frames are dropped).
    if (this.keptChild) this.keptChild = await child.suspend();
    if (!this.keptChild && this.#o.workspace) {
      child.kill();
      await child.exited;
    } else if (!this.keptChild) this.#o.retire(child);
    // Frames the child sent before it stopped may wait for a slice: they are this pass's, not the
    // next execution's a session binds (waited for now: a running child could keep them coming).
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
    if (outcome.ok) {
      const { maxResultBytes: max, inlineResultBytes } = this.#o.limits;
      // A row stored before the inline limit existed gets the default one.
      outcome = await checkResult(outcome.value, max, inlineResultBytes ?? INLINE_DEFAULT);
    }
    await this.#o.journal.flush();
    if (outcome.ok) {
      const skipped = this.#o.journal.unconsumedApplied();
      if (skipped.length > 0) outcome = { ok: false, error: divergence(skipped) };
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
}
