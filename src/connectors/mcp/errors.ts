/**
 * MCP failures as Cordon error codes. One table maps the JSON-RPC and MCP
 * numbers; everything else is decided by what failed: the connection
 * (`connector_unavailable`), the clock (`tool_timeout`) or the server's
 * answer (`tool_error`, `invalid_input`, `not_found`, `not_supported`).
 *
 * @module
 */
import { CordonError, type ErrorCode } from "../../errors.ts";
import { McpError, StreamableHTTPError } from "./sdk.ts";

/** The JSON-RPC and MCP error numbers Cordon gives a meaning to. */
export const MCP_ERROR_CODES = {
  /** Raised by the SDK when the transport closes under a request (servers may reuse it). */
  connectionClosed: -32000,
  /** Raised by the SDK when a request's time limit passes or it is aborted. */
  requestTimeout: -32001,
  /** MCP: the resource does not exist. */
  resourceNotFound: -32002,
  methodNotFound: -32601,
  invalidParams: -32602,
} as const;

/**
 * Longest server message carried into an error, in characters: a model
 * acts on the first lines, and a server may put a whole document there.
 */
export const MAX_ERROR_TEXT_CHARS = 4_000;

/** A message that never reached the server (its process is gone, its stdin closed). */
export class UndeliveredError extends Error {
  override name = "UndeliveredError";
}

/**
 * True when a request failed before the server could act on it, so sending
 * it again on a new session cannot run it twice: the stdio pipe was closed,
 * or an HTTP server answered 404 for a session it no longer knows.
 */
export function isUndelivered(err: unknown): boolean {
  return err instanceof UndeliveredError ||
    (err instanceof StreamableHTTPError && err.code === 404);
}

/** What was being done when something failed. */
export interface FailureContext {
  /** The connector's name. */
  connector: string;
  /** The operation, as a model would name it: `everything.echo`, `everything.readResource("x")`. */
  what: string;
  /** The call's time limit, for the timeout message. */
  timeoutMs: number;
  /** The call's signal: aborted means the caller gave up (its deadline or the execution's end). */
  signal?: AbortSignal;
  /** Why the connection was lost, when it was (the error then is about the connection). */
  lost?: string;
}

/** The server's words without the SDK's "MCP error -32602: " prefix, bounded. */
export function serverText(message: string): string {
  const text = message.replace(/^(MCP error -?\d+: )+/, "");
  return text.length > MAX_ERROR_TEXT_CHARS ? `${text.slice(0, MAX_ERROR_TEXT_CHARS)}…` : text;
}

/** The connector cannot serve calls now; the next call reconnects. */
export function unavailable(connector: string, what: string, reason: string): CordonError {
  return new CordonError(
    "connector_unavailable",
    `${what} failed: the MCP server "${connector}" is unavailable (${reason}); the next call reconnects`,
  );
}

/** A failure the server reported with a JSON-RPC number, as a Cordon error. */
export function codedFailure(code: number, message: string, context: FailureContext): CordonError {
  const text = serverText(message);
  const details = { mcpCode: code };
  const make = (c: ErrorCode, m: string) => new CordonError(c, m, { details });
  if (code === MCP_ERROR_CODES.resourceNotFound) {
    return make("not_found", `${context.what}: ${text}`);
  }
  if (code === MCP_ERROR_CODES.methodNotFound) {
    return make("not_supported", `${context.what} is not supported by the server: ${text}`);
  }
  if (code === MCP_ERROR_CODES.invalidParams) {
    if (/^Output validation error|Structured content does not match/i.test(text)) {
      return make("tool_error", `${context.what} returned an invalid result: ${text}`);
    }
    if (/^Tool \S+ (not found|disabled)/.test(text)) {
      return make("not_found", `${context.what} is gone from the server: ${text}`);
    }
    if (/\bnot found\b/i.test(text)) return make("not_found", `${context.what}: ${text}`);
    return make("invalid_input", `Invalid input for ${context.what}: ${text}`);
  }
  if (code === MCP_ERROR_CODES.requestTimeout) {
    return make("tool_timeout", `${context.what} did not finish within ${context.timeoutMs} ms`);
  }
  if (/\b(not found|unknown (resource|prompt))\b/i.test(text)) {
    return make("not_found", `${context.what}: ${text}`);
  }
  return make("tool_error", `${context.what} failed: ${text}`);
}

/** Anything an SDK call threw, as a Cordon error. */
export function mcpFailure(err: unknown, context: FailureContext): CordonError {
  if (err instanceof CordonError) return err;
  const signal = context.signal;
  if (signal?.aborted) {
    const reason = signal.reason;
    if (reason instanceof DOMException && reason.name === "TimeoutError") {
      return new CordonError("tool_timeout", `${context.what} did not finish in time`);
    }
    return new CordonError("tool_error", `${context.what} was cancelled`);
  }
  if (context.lost !== undefined) {
    return unavailable(context.connector, context.what, context.lost);
  }
  if (err instanceof McpError) return codedFailure(err.code, err.message, context);
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error && err.name === "ZodError") {
    return new CordonError(
      "tool_error",
      `${context.what} failed: the server's reply is not valid MCP (${serverText(message)})`,
    );
  }
  // HTTP statuses, refused connections, a closed pipe: the connection, not the call.
  return unavailable(context.connector, context.what, serverText(message));
}
