/**
 * Assertions on how a run ended: completed, paused, or failed. Each returns
 * the part a test goes on to check, and fails with everything needed to see
 * why (the error and its line, the calls, the last console lines).
 *
 * @module
 */
import type { ErrorCode, ErrorInfo } from "../errors.ts";
import type { ErrorResult, ExecuteResult, PausedResult } from "../engine/execution/types.ts";
import { describeOutcome, fail } from "./format.ts";

/**
 * Asserts that a run completed and returns its result.
 *
 * @param result What `execute()`, `approve()`, `reject()` or `resolve()` returned.
 * @returns The script's return value.
 * @throws {AssertionError} When the run paused or failed; the message says how, with its calls.
 */
export function expectCompleted(result: ExecuteResult): unknown {
  if (result.status === "completed") return result.result;
  fail({
    message: `Expected the run to complete, but ${describeOutcome(result)}`,
    actual: result.status,
    expected: "completed",
    operator: "expectCompleted",
  }, expectCompleted);
}

/**
 * Asserts that a run paused for a decision and returns it, so a test can
 * check `pending` before it approves, rejects or resolves.
 *
 * @param result What `execute()` (or a decision that led to another pause) returned.
 * @returns The paused result, with `pending` listing the waiting calls.
 * @throws {AssertionError} When the run completed or failed.
 */
export function expectPaused(result: ExecuteResult): PausedResult {
  if (result.status === "paused") return result;
  fail({
    message: `Expected the run to pause for a decision, but ${describeOutcome(result)}`,
    actual: result.status,
    expected: "paused",
    operator: "expectPaused",
  }, expectPaused);
}

/**
 * Asserts that a run failed (status `error`, or `rejected` for an uncaught
 * rejection), with `code` if given, and returns the error.
 *
 * @param result What the run returned.
 * @param code The error code the run must have failed with, e.g. `tool_error`.
 * @returns The error: code, message, and the line in the script where one applies.
 * @throws {AssertionError} When the run completed, paused, or failed with another code.
 */
export function expectError(result: ExecuteResult, code?: ErrorCode): ErrorInfo {
  const failed = result.status === "error" || result.status === "rejected";
  if (failed && (code === undefined || result.error.code === code)) {
    return (result as ErrorResult).error;
  }
  const wanted = code ? `fail with ${code}` : "fail";
  fail({
    message: `Expected the run to ${wanted}, but ${describeOutcome(result)}`,
    actual: failed ? (result as ErrorResult).error.code : result.status,
    expected: code ?? "error",
    operator: "expectError",
  }, expectError);
}
