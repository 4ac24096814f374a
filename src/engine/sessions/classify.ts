/**
 * How an execution in a session is classed for its recovery journal, from
 * what it actually did: side-effecting, setup-like (safe to run again when the
 * session is rebuilt), or unknown.
 *
 * @module
 */
import type { RecoveryClass } from "../../store/sessions.ts";

/** How an execution's effects are judged, from what it actually did. */
export function classify(
  outcome: { ok: boolean; code?: string },
  calls: { kind: string; readOnly: boolean }[],
): RecoveryClass {
  if (calls.some((c) => c.kind === "tool" && !c.readOnly)) return "side_effecting";
  const crashed = !outcome.ok && /^(sandbox_|interrupted|protocol_error|spawn_failed)/.test(
    outcome.code ?? "",
  );
  if (crashed) return "unknown";
  // Declarations, pure computation and read-only calls: safe to run again to rebuild state.
  return "setup_like";
}
