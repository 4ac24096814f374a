/**
 * How an execution in a session is classed for its recovery journal
 * (`recoveryClassification`), from what it actually did, so an agent whose
 * session is gone knows which executions it may run again to rebuild state.
 *
 * The rule, first match wins:
 *
 * 1. `side_effecting`: it made a tool call not declared read-only (whatever
 *    became of the call: a failed or rejected call may still have done part
 *    of its work). Running it again would do it again.
 * 2. `unknown`: it died before it could answer (timeout, crash, lost child,
 *    interrupted): what it got to is not known.
 * 3. `unknown`: its policy let it `fetch` hosts: a request may have changed
 *    something the host cannot see.
 * 4. `setup_like`: everything else: declarations, assignments, computation
 *    and read-only tool calls (reading again is safe; rebuilding state often
 *    needs those reads), including code that threw, which changed nothing
 *    outside the heap.
 *
 * @module
 */
import type { RecoveryClass } from "../../store/sessions.ts";

/** Error codes of runs that ended without answering: what they did is not known. */
const DIED = /^(sandbox_|interrupted|protocol_error|spawn_failed)/;

/** How an execution's effects are judged, from what it actually did. */
export function classify(
  outcome: { ok: boolean; code?: string },
  calls: { kind: string; readOnly: boolean }[],
  networked = false,
): RecoveryClass {
  if (calls.some((c) => c.kind === "tool" && !c.readOnly)) return "side_effecting";
  if (!outcome.ok && DIED.test(outcome.code ?? "")) return "unknown";
  if (networked) return "unknown";
  return "setup_like";
}
