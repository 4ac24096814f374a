/**
 * {@link decideInClient}: one waiting call asked about in the MCP client
 * (`elicitation/create`), and the answer applied through the runtime. An
 * approval is a choice (`approve`/`reject`, with a reason); a client-resolved
 * call takes its value as JSON text, checked against the tool's output
 * schema, and a bad answer is asked again with what was wrong.
 *
 * @module
 */
import type { Runtime } from "../../engine/runtime/types.ts";
import type { ExecuteResult, PendingAction } from "../../engine/execution/types.ts";
import type { ExecutionEvent } from "../../engine/execution/events.ts";
import { CordonError } from "../../errors.ts";
import { encodeValue } from "../../rpc/codec.ts";

/** How long a question waits for a person (ms); unanswered by then, the run stays paused. */
export const ELICIT_TIMEOUT_MS = 10 * 60_000;
/** Answers a value question takes before the run is left paused (bad JSON, wrong type). */
export const MAX_VALUE_ATTEMPTS = 3;
/** The arguments shown in a question, at most (characters); the rest is cut. */
const MAX_SHOWN_ARGS_CHARS = 2_000;

/** The `elicitation/create` params the front sends (form mode, a flat schema). */
export interface ElicitParams {
  /** What the person reads. */
  message: string;
  /** The form: flat properties of primitive types. */
  requestedSchema: {
    type: "object";
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

/** What the client answered. */
export interface ElicitAnswer {
  /** `accept` with `content`, or `decline`/`cancel`. */
  action: "accept" | "decline" | "cancel";
  /** The form's values, on `accept`. */
  content?: Record<string, unknown>;
}

/** Sends one question to the client; rejects on timeout, abort or an error reply. */
export type Ask = (
  params: ElicitParams,
  options: { signal: AbortSignal; timeout: number },
) => Promise<ElicitAnswer>;

/** What deciding in the client needs. */
export interface DecideContext {
  /** The runtime that holds the execution. */
  runtime: Runtime;
  /** The namespace `describe` looks in. */
  inNamespace: { namespace?: string };
  /** Asks the client. */
  ask: Ask;
  /** Admission of the resumed run (the service's gate), as for a new run. */
  admit?: () => Promise<() => void>;
  /** The tool call's signal: the client went away. */
  signal: AbortSignal;
}

/** What came of asking: the run's next result, a decision made elsewhere, or no answer. */
export type Decided =
  | { kind: "result"; out: ExecuteResult }
  | { kind: "elsewhere" }
  | { kind: "unanswered"; note: string };

function shownArgs(args: unknown): string {
  const text = JSON.stringify(encodeValue(args)) ?? "undefined";
  return text.length > MAX_SHOWN_ARGS_CHARS ? `${text.slice(0, MAX_SHOWN_ARGS_CHARS)}…` : text;
}

/** The tool's description and output type, for the question (nothing when it cannot be read). */
async function aboutTool(ctx: DecideContext, p: PendingAction) {
  try {
    const d = await ctx.runtime.describe(`${p.connector}.${p.tool}`, ctx.inNamespace);
    return { description: d.description, output: d.output };
  } catch {
    return { description: "", output: "unknown" };
  }
}

function approvalQuestion(p: PendingAction, description: string): ElicitParams {
  return {
    message: [
      `Cordon: execution ${p.executionId} wants to call ${p.connector}.${p.tool} (call #${p.seq}),` +
      " a tool that runs only once a person approves it.",
      description ? `What it does: ${description}` : "",
      `Arguments: ${shownArgs(p.args)}`,
      "Approve to let the call run; reject to make it fail in the script (give a reason).",
    ].filter(Boolean).join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        decision: { type: "string", title: "Decision", enum: ["approve", "reject"] },
        reason: {
          type: "string",
          title: "Reason",
          description: "Why it is rejected (the script sees it)",
          maxLength: 2_000,
        },
      },
      required: ["decision"],
    },
  };
}

function valueQuestion(
  p: PendingAction,
  about: { description: string; output: string },
  problem?: string,
): ElicitParams {
  return {
    message: [
      problem ? `That answer was not used: ${problem}. Please answer again.` : "",
      `Cordon: execution ${p.executionId} waits for the result of ${p.connector}.${p.tool}` +
      ` (call #${p.seq}), which you supply.`,
      about.description ? `What it is: ${about.description}` : "",
      `Arguments: ${shownArgs(p.args)}`,
      `Answer with JSON of type: ${about.output}`,
    ].filter(Boolean).join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        value: { type: "string", title: "Value (JSON)", description: `JSON: ${about.output}` },
      },
      required: ["value"],
    },
  };
}

/** Runs `work` with a slot of the admission gate, as a decision over HTTP does. */
async function admitted<T>(ctx: DecideContext, work: () => Promise<T>): Promise<T> {
  const leave = await ctx.admit?.();
  try {
    return await work();
  } finally {
    leave?.();
  }
}

/** A decision that lost the race to one made elsewhere (HTTP, the console, another node). */
function lostRace(err: unknown): boolean {
  return err instanceof CordonError && err.code === "invalid_state";
}

/**
 * Asks the client about `p` and applies the answer. While the question is open, a decision on
 * the same call made elsewhere withdraws it (the client gets `notifications/cancelled`);
 * a decision made elsewhere first is never made twice: the store's claim lets exactly one
 * through, and the loser here answers `elsewhere`.
 */
export async function decideInClient(p: PendingAction, ctx: DecideContext): Promise<Decided> {
  const withdrawn = new AbortController();
  const stopOnClient = () => withdrawn.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", stopOnClient);
  const stop = ctx.runtime.subscribe((e: ExecutionEvent) => {
    if (e.executionId !== p.executionId) return;
    const decided = e.type === "done" ||
      (e.type === "call" && e.call.seq === p.seq && e.call.state !== "pending");
    if (decided) withdrawn.abort(new Error("decided elsewhere"));
  });
  const ask = async (params: ElicitParams): Promise<ElicitAnswer | undefined> => {
    try {
      return await ctx.ask(params, { signal: withdrawn.signal, timeout: ELICIT_TIMEOUT_MS });
    } catch {
      return undefined;
    }
  };
  const elsewhere = () => withdrawn.signal.aborted && !ctx.signal.aborted;
  const noAnswer = (answer: ElicitAnswer | undefined): Decided =>
    elsewhere() ? { kind: "elsewhere" } : {
      kind: "unanswered",
      note: answer?.action === "decline"
        ? `The question about call #${p.seq} was declined in the client.`
        : answer?.action === "cancel"
        ? `The question about call #${p.seq} was dismissed in the client.`
        : `The question about call #${p.seq} got no answer from the client.`,
    };
  try {
    const about = await aboutTool(ctx, p);
    if (p.resolution === "approval") {
      const answer = await ask(approvalQuestion(p, about.description));
      const decision = answer?.action === "accept" ? answer.content?.decision : undefined;
      if (decision !== "approve" && decision !== "reject") return noAnswer(answer);
      const reason = typeof answer?.content?.reason === "string" && answer.content.reason.trim()
        ? answer.content.reason.trim().slice(0, 2_000)
        : undefined;
      try {
        const out = await admitted(
          ctx,
          () =>
            decision === "approve"
              ? ctx.runtime.approve(p.executionId, { seq: p.seq })
              : ctx.runtime.reject(p.executionId, { seq: p.seq, ...(reason ? { reason } : {}) }),
        );
        return { kind: "result", out };
      } catch (err) {
        if (lostRace(err)) return { kind: "elsewhere" };
        if (!(err instanceof CordonError)) throw err;
        return {
          kind: "unanswered",
          note:
            `The decision on call #${p.seq} could not be applied (${err.code}: ${err.message}).`,
        };
      }
    }
    let problem: string | undefined;
    for (let attempt = 1; attempt <= MAX_VALUE_ATTEMPTS; attempt++) {
      const answer = await ask(valueQuestion(p, about, problem));
      const text = answer?.action === "accept" ? answer.content?.value : undefined;
      if (typeof text !== "string") return noAnswer(answer);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        problem = `it is not JSON (${(err as Error).message})`;
        continue;
      }
      try {
        const out = await admitted(ctx, () => ctx.runtime.resolve(p.executionId, p.seq, value));
        return { kind: "result", out };
      } catch (err) {
        if (lostRace(err)) return { kind: "elsewhere" };
        if (!(err instanceof CordonError)) throw err;
        problem = `${err.code}: ${err.message}`;
      }
    }
    return {
      kind: "unanswered",
      note:
        `${MAX_VALUE_ATTEMPTS} answers for call #${p.seq} could not be used (last: ${problem}).`,
    };
  } finally {
    stop();
    ctx.signal.removeEventListener("abort", stopOnClient);
  }
}
