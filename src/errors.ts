/**
 * The one vocabulary of failure in Cordon. Every expected failure is an
 * {@link ErrorInfo} with a code from {@link ErrorCode}; numbers (JSON-RPC)
 * and HTTP statuses are mapped from these codes only at the edges.
 *
 * @module
 */

/** Every typed failure Cordon reports. */
export type ErrorCode =
  // The request itself.
  | "invalid_request"
  | "unsupported_language"
  | "limit_exceeded"
  | "runtime_closed"
  // The code, before it runs.
  | "syntax_error"
  | "type_error"
  | "import_not_allowed"
  | "package_unavailable"
  // The code, while it runs.
  | "script_error"
  | "result_not_serializable"
  | "result_too_large"
  // The sandbox.
  | "sandbox_timeout"
  | "sandbox_memory"
  | "sandbox_crashed"
  | "spawn_failed"
  | "protocol_error"
  | "output_limit"
  | "too_many_calls"
  | "too_many_calls_in_flight"
  // Connectors and tools.
  | "connector_not_found"
  | "tool_not_found"
  | "invalid_input"
  | "invalid_output"
  | "tool_error"
  | "tool_timeout"
  | "value_too_large"
  | "policy_denied"
  | "connector_unavailable"
  | "not_found"
  | "not_supported"
  // Semantic search: an embedding endpoint that failed, did not answer in time, or answered nonsense.
  | "embedder_failed"
  | "embedder_timeout"
  | "embedder_malformed"
  // Durable executions.
  | "execution_not_found"
  | "invalid_state"
  | "rejected"
  | "replay_divergence"
  | "interrupted"
  | "expired"
  // Snippets.
  | "snippet_not_found"
  | "snippet_unavailable"
  // Sessions.
  | "session_not_found"
  | "session_busy"
  // The service.
  | "invalid_config"
  | "unauthorized"
  | "forbidden"
  | "payload_too_large"
  | "unsupported_media_type"
  | "method_not_allowed"
  | "too_many_requests"
  | "idempotency_conflict"
  // The store.
  | "store_unavailable"
  | "internal";

/** Every code, for validation and exhaustive tables. */
export const ERROR_CODES: readonly ErrorCode[] = [
  "invalid_request",
  "unsupported_language",
  "limit_exceeded",
  "runtime_closed",
  "syntax_error",
  "type_error",
  "import_not_allowed",
  "package_unavailable",
  "script_error",
  "result_not_serializable",
  "result_too_large",
  "sandbox_timeout",
  "sandbox_memory",
  "sandbox_crashed",
  "spawn_failed",
  "protocol_error",
  "output_limit",
  "too_many_calls",
  "too_many_calls_in_flight",
  "connector_not_found",
  "tool_not_found",
  "invalid_input",
  "invalid_output",
  "tool_error",
  "tool_timeout",
  "value_too_large",
  "policy_denied",
  "connector_unavailable",
  "not_found",
  "not_supported",
  "embedder_failed",
  "embedder_timeout",
  "embedder_malformed",
  "execution_not_found",
  "invalid_state",
  "rejected",
  "replay_divergence",
  "interrupted",
  "expired",
  "snippet_not_found",
  "snippet_unavailable",
  "session_not_found",
  "session_busy",
  "invalid_config",
  "unauthorized",
  "forbidden",
  "payload_too_large",
  "unsupported_media_type",
  "method_not_allowed",
  "too_many_requests",
  "idempotency_conflict",
  "store_unavailable",
  "internal",
];

/**
 * Codes a sandbox child may report on its own: what its script threw, and a
 * result it could not send. Every other code is the host's (limits, kills,
 * decisions, tools, the store); a child can write any frame, so it may
 * repeat one only when the host raised it to the script in that run
 * (a rejected call the script did not catch), and otherwise its claim is
 * reported as the script's own `script_error`.
 */
export const CHILD_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "script_error",
  "result_not_serializable",
  "result_too_large",
]);

/** Where in the user's own code something went wrong (1-based). */
export interface SourceLocation {
  /** Line in the code as the caller sent it, from 1. */
  line: number;
  /** Column in that line, from 1. */
  column: number;
}

/** A failure as a value: what results, envelopes and handles carry. */
export interface ErrorInfo {
  /** What kind of failure it is; callers branch on this, not on the message. */
  code: ErrorCode;
  /** What went wrong, in words a model can act on. */
  message: string;
  /** Facts behind the message (a limit, a path, validation issues); absent when there are none. */
  details?: Record<string, unknown>;
  /** Where in the user's code it happened, when that is known. */
  location?: SourceLocation;
}

/**
 * An exception carrying an {@link ErrorInfo}. Thrown for misuse of the
 * library API (bad options, a closed runtime) and inside layers that turn it
 * back into a value before it reaches a caller.
 *
 * @example
 * ```ts
 * import { CordonError } from "./errors.ts";
 * const err = new CordonError("invalid_request", "Cannot run: code is empty");
 * console.assert(err.code === "invalid_request");
 * ```
 */
export class CordonError extends Error {
  /** What kind of failure it is. */
  readonly code: ErrorCode;
  /** Facts behind the message, when there are any. */
  readonly details?: Record<string, unknown>;
  /** Where in the user's code it happened, when that is known. */
  readonly location?: SourceLocation;

  /** Makes an error with a code and a message; `extra.cause` becomes the standard `cause`. */
  constructor(
    code: ErrorCode,
    message: string,
    extra: { details?: Record<string, unknown>; location?: SourceLocation; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = "CordonError";
    this.code = code;
    if (extra.details) this.details = extra.details;
    if (extra.location) this.location = extra.location;
  }

  /** This error as a plain value. */
  toInfo(): ErrorInfo {
    return errorInfo(this.code, this.message, this.details, this.location);
  }
}

/** Builds an {@link ErrorInfo}, leaving out empty optional parts. */
export function errorInfo(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
  location?: SourceLocation,
): ErrorInfo {
  const info: ErrorInfo = { code, message };
  if (details && Object.keys(details).length > 0) info.details = details;
  if (location) info.location = location;
  return info;
}

/** True when `value` is one of the known {@link ErrorCode}s. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/**
 * Turns anything thrown into an {@link ErrorInfo}. A {@link CordonError}
 * keeps its code; anything else is a bug somewhere and becomes `fallback`.
 */
export function toErrorInfo(err: unknown, fallback: ErrorCode = "tool_error"): ErrorInfo {
  if (err instanceof CordonError) return err.toInfo();
  const message = err instanceof Error ? err.message : String(err);
  return errorInfo(fallback, message);
}
