/**
 * What the call journal decides about a call, and how a tool asks to be treated.
 *
 * @module
 */
import type { ErrorInfo } from "../../errors.ts";
import type { CallEntry, PendingNeed } from "../../store/calls.ts";

/** What the pass should do with a call. */
export type JournalDecision =
  | { kind: "answer"; seq: number; value: unknown }
  | { kind: "fail"; seq: number; error: ErrorInfo }
  | { kind: "execute"; seq: number }
  | { kind: "pending"; seq: number; needs: PendingNeed; entry: CallEntry }
  | { kind: "diverged"; error: ErrorInfo };

/** How a tool wants to be treated. */
export interface CallPolicy {
  needs?: PendingNeed;
  reexecute: boolean;
  /** The tool changes nothing (`readOnly`): no effect for its entry to precede. */
  readOnly?: boolean;
}
