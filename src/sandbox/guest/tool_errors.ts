/**
 * Errors the guest makes for failed host requests (a tool call, a `caplets.<id>` listing):
 * their code is the host's, and {@link isToolError} tells the guest's entry an error is one.
 *
 * Runs inside the child: nothing but the shared errors module.
 *
 * @module
 */
import { CordonError, type ErrorInfo } from "../../errors.ts";

// Captured when the guest loads, before user code can touch the intrinsics.
const weakSetHas = WeakSet.prototype.has;
const weakSetAdd = WeakSet.prototype.add;

/** Errors this guest created for failed host requests (their code is the host's). */
const toolErrors = new WeakSet<object>();

/** True when `err` is an error this guest created for a failed tool call or host request. */
export function isToolError(err: unknown): boolean {
  return err !== null && typeof err === "object" && Reflect.apply(weakSetHas, toolErrors, [err]);
}

/** An error for `<connector>.<tool>` failing with `info`, carrying its code and details. */
export function toolError(connector: string, tool: string, info: ErrorInfo): Error {
  const err = new Error(`${connector}.${tool}: ${info.message}`) as Error & {
    code: string;
    details?: unknown;
  };
  err.code = info.code;
  if (info.details) err.details = info.details;
  Reflect.apply(weakSetAdd, toolErrors, [err]);
  return err;
}

/** What a rejected host request failed with, as `{ code, message, details? }`. */
export function errorInfoOf(err: unknown): ErrorInfo {
  return err instanceof CordonError
    ? err.toInfo()
    : { code: "tool_error" as const, message: String(err) };
}
