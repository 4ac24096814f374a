/**
 * What a pass's child asks of the host, answered: tool calls through the
 * journal (waiting for decisions where a tool needs one), `codemode.step`
 * lookups and stores, and the script's other requests through
 * `ScriptRequests`. Every request counts against the run's budgets,
 * and every failure code the script is told is noted (only those may come
 * back in its reply).
 *
 * @module
 */
import {
  CordonError,
  type ErrorCode,
  type ErrorInfo,
  errorInfo,
  toErrorInfo,
} from "../../errors.ts";
import {
  METHOD_STEP_GET,
  METHOD_STEP_PUT,
  METHOD_TOOL_CALL,
  type StepParams,
  type ToolCallParams,
} from "../../sandbox/protocol.ts";
import type { CallEntry } from "../../store/calls.ts";
import { currentExecution } from "./current.ts";
import type { Decision, PassOptions } from "./pass_options.ts";

/** What the requests see of the pass they belong to. */
export interface PassState {
  /** While the run is paused: resolves when it goes on; undefined while it runs. */
  thaw(): Promise<void> | undefined;
  /** The child's answer to `run` has arrived. */
  answered(): boolean;
  /** The run has ended. */
  ended(): boolean;
  /** Aborted when the run ends. */
  readonly signal: AbortSignal;
  /** Ends the run with `info` (unless the child already answered). */
  stop(info: ErrorInfo): void;
  /** Waits for the decision on a call that needs one. */
  park(entry: CallEntry): Promise<Decision>;
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

/** The error for a request the child sent after it answered (nobody reads it). */
export function late(method: string): CordonError {
  return new CordonError("interrupted", `The execution has answered; ${method} was dropped`);
}

/** The requests of one pass's child, with the counts its budgets are held to. */
export class ChildRequests {
  readonly #o: PassOptions;
  readonly #pass: PassState;
  #calls = 0;
  /** Steps and `codemode` platform requests: they share the tool-call budget. */
  #requests = 0;
  /** Step seqs handed out by a step lookup and not stored yet: a store needs one. */
  #openSteps = new Set<number>();
  #inFlight = 0;
  /** Codes this pass raised to the script; only these may come back in its reply. */
  readonly told = new Set<ErrorCode>();

  constructor(options: PassOptions, pass: PassState) {
    this.#o = options;
    this.#pass = pass;
  }

  /** Tool calls made. */
  get calls(): number {
    return this.#calls;
  }

  /** Answers a request of the child's, noting the code of every failure it is told. */
  async answer(method: string, params: unknown): Promise<unknown> {
    try {
      return await currentExecution.run(
        this.#o.executionId,
        () => this.#onRequest(method, params),
      );
    } catch (err) {
      // The peer sends a non-CordonError as `tool_error`; the same code is noted here.
      this.told.add(toErrorInfo(err).code);
      throw err;
    }
  }

  async #onRequest(method: string, params: unknown): Promise<unknown> {
    if (method === METHOD_TOOL_CALL) return await this.#toolCall(readToolCall(params));
    if (method === METHOD_STEP_GET || method === METHOD_STEP_PUT) {
      await this.#pass.thaw();
      if (this.#pass.answered()) throw late(method);
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
      await this.#pass.thaw();
      if (this.#pass.answered()) throw late(method);
      this.#spend(method);
      return await requests.answer(method, params, {
        namespace: this.#o.namespace,
        journal: this.#o.journal,
        signal: this.#pass.signal,
      });
    }
    throw new CordonError("invalid_request", `The host does not handle ${method}`);
  }

  async #toolCall({ connector, tool, args }: ToolCallParams): Promise<unknown> {
    const { limits, registry, journal } = this.#o;
    // Held back while paused: only the process that resumes may run more.
    for (let t = this.#pass.thaw(); t; t = this.#pass.thaw()) await t;
    if (this.#pass.ended() || this.#pass.answered()) {
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
        readOnly: def.annotations.readOnly === true,
      });
      switch (decision.kind) {
        case "answer":
          return decision.value;
        case "fail":
          throw new CordonError(decision.error.code, decision.error.message, decision.error);
        case "diverged":
          this.#pass.stop(decision.error);
          throw new CordonError(decision.error.code, decision.error.message);
        case "execute":
          return await this.#execute(decision.seq, connector, tool, args);
        case "pending": {
          const answer = await this.#pass.park(decision.entry);
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
      signal: this.#pass.signal,
    });
    const final = this.#o.journal.finish(seq, out);
    if (!final.ok) throw new CordonError(final.error.code, final.error.message, final.error);
    this.#o.observe?.(connector, tool, final.value, this.#o.namespace);
    return final.value;
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
      `The script made more than ${max} tool calls and codemode requests (steps, search, describe, run, connector handles, readLogs/readRecovery/readResult count as calls)${
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
    this.#pass.stop(info);
    return new CordonError(code, message);
  }
}
