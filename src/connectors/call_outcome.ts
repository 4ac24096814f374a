/**
 * What one tool call answers: its value, or a typed failure. A tool that throws in Cordon's own
 * words (one of the tool codes) is taken at its word; anything else becomes `tool_error`.
 *
 * @module
 */
import { CordonError, type ErrorInfo, errorInfo } from "../errors.ts";

/** The outcome of one call. */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };

/** Codes a tool's `execute` may fail with as they are; anything else becomes `tool_error`. */
const TOOL_CODES: ReadonlySet<string> = new Set([
  "tool_error",
  "tool_timeout",
  "invalid_input",
  "invalid_output",
  "policy_denied",
  "value_too_large",
  "limit_exceeded",
  "connector_unavailable",
  "not_found",
  "not_supported",
]);

/** The outcome of a call whose tool threw `err`. */
export function thrownOutcome(err: unknown): CallOutcome {
  // A connector that says what went wrong in Cordon's words is taken at its word.
  if (err instanceof CordonError && TOOL_CODES.has(err.code)) {
    return fail(err.code, err.message, err.details);
  }
  return fail(
    "tool_error",
    `${err instanceof Error ? err.message : String(err)}`,
    errorDetails(err),
  );
}

/** A failed outcome. */
export function fail(
  code: ErrorInfo["code"],
  message: string,
  details?: Record<string, unknown>,
): CallOutcome {
  return { ok: false, error: errorInfo(code, message, details) };
}

function errorDetails(err: unknown): Record<string, unknown> | undefined {
  if (err instanceof CordonError) return { code: err.code, ...err.details };
  if (err instanceof Error && typeof (err as { code?: unknown }).code === "string") {
    return { code: (err as unknown as { code: string }).code };
  }
  return undefined;
}
