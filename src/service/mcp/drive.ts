/**
 * {@link driveRun}: a run started by an MCP tool call, carried through its
 * pauses inside that call. Each waiting call the client may decide is asked
 * about in the client ({@link decideInClient}); the run continues with the
 * answer, as many pauses as it takes. A question declined, dismissed or
 * unanswered leaves the run paused, and the answer says so.
 *
 * @module
 */
import type { Runtime } from "../../engine/runtime/types.ts";
import type { ExecuteResult, PendingAction } from "../../engine/execution/types.ts";
import { type Ask, decideInClient } from "./decide.ts";
import { awaitOutcome, type Outcome } from "./outcome.ts";
import { MAX_WAIT_MS } from "./schemas.ts";

/** How a tool call may carry its run on. */
export interface DriveOptions {
  /** The runtime the run belongs to. */
  runtime: Runtime;
  /** The namespace the run belongs to (as given to the front, or `default`). */
  namespace: string;
  /** The namespace option the runtime's calls take. */
  inNamespace: { namespace?: string };
  /** Admission of each run and resumption (the service's gate); the slot is let go while asking. */
  admit?: () => Promise<() => void>;
  /** Asks the client; absent when it cannot be asked (no elicitation, a JSON-only HTTP client). */
  ask?: Ask;
  /**
   * Whether approvals are asked in the client (the service: keys with the `approve` scope). A
   * value for a client-resolved call is the caller's to give either way.
   */
  approvals: boolean;
  /** The tool call's signal. */
  signal: AbortSignal;
}

/** Where a driven run got to: a fresh result, or an outcome read back, and what was said. */
export interface Driven {
  /** The run's last result, or its outcome read back after a decision made elsewhere. */
  out: ExecuteResult | Outcome;
  /** What happened to a question (declined, decided elsewhere, …), when something did. */
  note?: string;
}

/** The waiting calls this tool call may ask the client about, oldest first. */
export function askable(pending: readonly PendingAction[], o: DriveOptions): PendingAction[] {
  if (!o.ask) return [];
  return pending.filter((p) => p.resolution === "client" || o.approvals)
    .sort((a, b) => a.seq - b.seq);
}

/** Runs `start` with a slot of the gate, given back when it answers. */
async function admitted<T>(o: DriveOptions, start: () => Promise<T>): Promise<T> {
  const leave = await o.admit?.();
  try {
    return await start();
  } finally {
    leave?.();
  }
}

/**
 * Starts a run and carries it through its pauses while the client can be asked. Errors of
 * `start` (a refusal at the gate, a malformed request) propagate.
 */
export async function driveRun(
  start: () => Promise<ExecuteResult>,
  o: DriveOptions,
): Promise<Driven> {
  let out: ExecuteResult | Outcome = await admitted(o, start);
  let note: string | undefined;
  while (out.status === "paused" && !o.signal.aborted) {
    const [next] = askable(out.pending ?? [], o);
    if (!next || !o.ask) break;
    const decided = await decideInClient(next, {
      runtime: o.runtime,
      inNamespace: o.inNamespace,
      ask: o.ask,
      admit: o.admit,
      signal: o.signal,
    });
    if (decided.kind === "unanswered") {
      note = `${decided.note} The run stays paused.`;
      break;
    }
    if (decided.kind === "result") {
      out = decided.out;
      note = undefined;
      continue;
    }
    // Decided elsewhere: follow the run until it ends or stops again, and say so.
    note = `Call #${next.seq} was decided elsewhere (the HTTP API, the console, or expiry).`;
    out = await awaitOutcome(o.runtime, out.executionId, o.namespace, {
      timeoutMs: MAX_WAIT_MS,
      signal: o.signal,
      untilPaused: true,
    });
  }
  return note === undefined ? { out } : { out, note };
}
