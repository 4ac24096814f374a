/**
 * A result's type-check findings wherever they are: in the result (`meta.typecheck` `done`, or
 * no check), or, for a `warn` check still pending when the run completed, in the stored
 * execution once the check ends.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Diagnostic, ExecuteResult, Runtime } from "../../mod.ts";

/** Every diagnostic of `result`, waiting up to `ms` for a pending check's stored findings. */
export async function diagnosticsOf(
  rt: Runtime,
  result: ExecuteResult,
  ms = 15_000,
): Promise<Diagnostic[]> {
  if (result.meta.typecheck !== "pending") return result.diagnostics;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const d = await rt.execution(result.executionId);
    if (d?.diagnostics) return [...result.diagnostics, ...d.diagnostics];
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`execution ${result.executionId}: its pending check never stored its findings`);
}
