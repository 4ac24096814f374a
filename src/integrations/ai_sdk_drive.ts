/**
 * How the code tool carries a paused run on: the app's `onPause` callback
 * decides waiting calls (approve, reject, resolve) and the run continues in
 * the same tool call, round after round; calls it leaves undecided wait for
 * someone else (the console, the HTTP API), and a tool call that picks a run
 * up by its id waits a bounded time for that decision and the run's end.
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import type { Runtime } from "../engine/runtime/types.ts";
import type { PendingAction } from "../engine/execution/types.ts";
import { watchMoves } from "../engine/execution/events.ts";
import { type Snapshot, stateOf } from "./ai_sdk_output.ts";

/** A decision on one waiting call, returned by `onPause`. */
export type CodeToolDecision =
  | { seq: number; action: "approve" }
  | { seq: number; action: "reject"; reason?: string }
  | { seq: number; action: "resolve"; value: unknown };

/** What `onPause` is told about a paused run. */
export interface CodeToolPause {
  /** The paused execution. */
  executionId: string;
  /** Every call it waits on now, with `seq`, `connector`, `tool`, `args` and `resolution`. */
  pending: PendingAction[];
  /** 1 for the first time this tool call asks, then 2, 3, … up to `maxRounds`. */
  round: number;
  /** The AI SDK's tool call id. */
  toolCallId: string;
  /** Aborted when the AI SDK call is. */
  signal?: AbortSignal;
}

/**
 * Decides a paused run's waiting calls. Return a decision for each call to decide now; a call
 * left out (or `undefined` returned) stays waiting for someone else, and the tool answers
 * `paused`. An exception it throws is the app's bug: it propagates (the AI SDK reports a tool
 * error) and the run stays paused, listed by `runtime.pending()`.
 */
export type OnPause = (
  pause: CodeToolPause,
) => CodeToolDecision[] | undefined | void | Promise<CodeToolDecision[] | undefined | void>;

/** Rounds of `onPause` one tool call makes by default before it answers `paused`. */
export const DEFAULT_MAX_ROUNDS = 10;
/**
 * How often a wait reads the store: decisions made by another process (a service on the same
 * database) send no event here.
 */
export const WAIT_POLL_MS = 250;

/** What {@link drive} needs besides the snapshot. */
export interface DriveOptions {
  runtime: Runtime;
  onPause?: OnPause;
  maxRounds: number;
  /** Until when (`performance.now()`) a run that is not over is waited for; now: not at all. */
  deadline: number;
  toolCallId: string;
  signal?: AbortSignal;
  /** Reads the stored execution (the namespace already checked). */
  read: (executionId: string) => Promise<Snapshot>;
}

/** The outcome and any decisions that could not be applied. */
export interface Driven {
  snap: Snapshot;
  notices: string[];
}

function idOf(snap: Snapshot): string {
  return snap.kind === "result" ? snap.out.executionId : snap.details.id;
}

function decide(runtime: Runtime, id: string, d: CodeToolDecision) {
  switch (d.action) {
    case "approve":
      return runtime.approve(id, { seq: d.seq });
    case "reject":
      return runtime.reject(id, d.reason === undefined ? { seq: d.seq } : d);
    case "resolve":
      return runtime.resolveExecution(id, d.seq, d.value);
    default:
      throw new CordonError(
        "invalid_request",
        `Unknown decision "${(d as { action: unknown }).action}" for call ${
          (d as { seq: unknown }).seq
        }: use approve, reject or resolve`,
      );
  }
}

/** Applies decisions in order, each to the run as the previous one left it. */
async function apply(
  o: DriveOptions,
  snap: Snapshot,
  decisions: readonly CodeToolDecision[],
  notices: string[],
): Promise<Snapshot> {
  const id = idOf(snap);
  for (const d of decisions) {
    const { status, pending } = stateOf(snap);
    if (status !== "paused" || !pending.some((p) => p.seq === d?.seq)) {
      notices.push(`call #${d?.seq}: not waiting any more; the decision was not applied`);
      continue;
    }
    try {
      snap = { kind: "result", out: await decide(o.runtime, id, d) };
    } catch (err) {
      if (!(err instanceof CordonError)) throw err;
      notices.push(`call #${d.seq}: ${err.code}: ${err.message}`);
      snap = await o.read(id);
    }
  }
  return snap;
}

/**
 * Carries a run on from `snap` until it is over, or until nothing more can be done before the
 * deadline: `onPause` is asked about waiting calls it has not seen in this tool call (at most
 * `maxRounds` times), and calls it leaves undecided are waited for until the deadline.
 */
export async function drive(o: DriveOptions, snap: Snapshot): Promise<Driven> {
  const notices: string[] = [];
  const offered = new Set<number>();
  using moves = watchMoves((l) => o.runtime.subscribe(l), idOf(snap), true);
  let rounds = 0;
  for (;;) {
    const { status, pending } = stateOf(snap);
    if (status !== "paused" && status !== "running") return { snap, notices };
    const fresh = pending.filter((p) => !offered.has(p.seq));
    if (status === "paused" && o.onPause && fresh.length > 0 && rounds < o.maxRounds) {
      rounds++;
      for (const p of pending) offered.add(p.seq);
      const decisions = await o.onPause({
        executionId: idOf(snap),
        pending,
        round: rounds,
        toolCallId: o.toolCallId,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      if (decisions && decisions.length > 0) {
        snap = await apply(o, snap, decisions, notices);
        continue;
      }
    }
    if (performance.now() >= o.deadline || o.signal?.aborted) return { snap, notices };
    await moves.next(Math.min(WAIT_POLL_MS, o.deadline - performance.now()), o.signal);
    snap = await o.read(idOf(snap));
  }
}
