/**
 * HTTP edges of the service: the status each error code answers with, the
 * `{ error: { code, message, details? } }` body, and JSON bodies in the
 * tagged encoding (a `bigint` or `Date` result survives the trip).
 *
 * @module
 */
import { CordonError, type ErrorCode, type ErrorInfo } from "../../errors.ts";
import { encodeValue } from "../../rpc/codec.ts";

/** The HTTP status for each code a request can fail with; anything else is 500. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  invalid_request: 400,
  unsupported_language: 400,
  invalid_input: 400,
  limit_exceeded: 400,
  syntax_error: 400,
  unauthorized: 401,
  forbidden: 403,
  policy_denied: 403,
  not_found: 404,
  execution_not_found: 404,
  snippet_not_found: 404,
  session_not_found: 404,
  tool_not_found: 404,
  connector_not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  session_busy: 409,
  snippet_unavailable: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  type_error: 422,
  idempotency_conflict: 422,
  too_many_requests: 429,
  not_supported: 501,
  connector_unavailable: 502,
  runtime_closed: 503,
  store_unavailable: 503,
  internal: 500,
};

/** The status an error answers with. */
export function statusOf(code: string): number {
  return STATUS[code as ErrorCode] ?? 500;
}

/** A JSON response; values JSON cannot carry use the tagged encoding. */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers: HeadersInit = {},
): Response {
  return new Response(JSON.stringify(encodeValue(body)), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** The error body for `info`, with its status. */
export function errorResponse(info: Pick<ErrorInfo, "code" | "message" | "details">): Response {
  const error: Record<string, unknown> = { code: info.code, message: info.message };
  if (info.details !== undefined) error.details = info.details;
  const status = statusOf(info.code);
  const headers: Record<string, string> = status === 429 ? { "retry-after": "1" } : {};
  // RFC 9110: a 401 names its scheme, so clients (MCP ones too) know to send a bearer token.
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="cordon"';
  return jsonResponse({ error }, status, headers);
}

/** Any thrown value as an error response: typed errors keep their code, others are `internal`. */
export function thrownResponse(err: unknown): Response {
  if (err instanceof CordonError) return errorResponse(err);
  return errorResponse({
    code: "internal",
    message: "The server failed to answer this request; the error is in its log",
  });
}

/** Shorthand for a typed failure. */
export function fail(code: ErrorCode, message: string, details?: Record<string, unknown>): never {
  throw new CordonError(code, message, details ? { details } : undefined);
}
