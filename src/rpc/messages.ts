/**
 * JSON-RPC 2.0 wire types and the one table that maps Cordon's typed error
 * codes to numbers on the wire.
 *
 * @module
 */
import { type ErrorCode, type ErrorInfo, errorInfo, isErrorCode } from "../errors.ts";

/** A request id; Cordon always uses numbers, but accepts strings. */
export type RpcId = number | string;

/** A request: expects a response with the same id. */
export interface RpcRequest {
  jsonrpc: "2.0";
  id: RpcId;
  method: string;
  params?: unknown;
}

/** A notification: no id, no response. */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

/** The error object of a failed response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: { code?: string; details?: Record<string, unknown>; location?: ErrorInfo["location"] };
}

/** A response: `result` or `error`. */
export type RpcResponse =
  | { jsonrpc: "2.0"; id: RpcId; result: unknown }
  | { jsonrpc: "2.0"; id: RpcId | null; error: RpcErrorObject };

/** Standard JSON-RPC numbers, plus Cordon's one application number. */
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
/** Every Cordon failure travels as this number, with `data.code` typed. */
export const RPC_APPLICATION_ERROR = -32000;

/** Turns a typed failure into a wire error object. */
export function toRpcError(info: ErrorInfo): RpcErrorObject {
  const data: RpcErrorObject["data"] = { code: info.code };
  if (info.details) data.details = info.details;
  if (info.location) data.location = info.location;
  return { code: RPC_APPLICATION_ERROR, message: info.message, data };
}

/** Turns a wire error object back into a typed failure. */
export function fromRpcError(err: RpcErrorObject): ErrorInfo {
  const code: ErrorCode = isErrorCode(err?.data?.code) ? err.data.code : "protocol_error";
  return errorInfo(
    code,
    String(err?.message ?? "Unknown error"),
    err?.data?.details,
    err?.data?.location,
  );
}

/** What a raw frame is, after a structural check. */
export type ClassifiedFrame =
  | { kind: "request"; frame: RpcRequest }
  | { kind: "notification"; frame: RpcNotification }
  | { kind: "response"; frame: RpcResponse }
  | { kind: "invalid"; reason: string };

/** Checks the shape of a parsed frame without trusting it. */
export function classifyFrame(raw: unknown): ClassifiedFrame {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { kind: "invalid", reason: "a frame must be a JSON object" };
  }
  const f = raw as Record<string, unknown>;
  if (f.jsonrpc !== "2.0") return { kind: "invalid", reason: 'jsonrpc must be "2.0"' };
  const hasId = typeof f.id === "number" || typeof f.id === "string";
  if (typeof f.method === "string") {
    if (hasId) return { kind: "request", frame: f as unknown as RpcRequest };
    if (f.id === undefined) return { kind: "notification", frame: f as unknown as RpcNotification };
    return { kind: "invalid", reason: "id must be a number or a string" };
  }
  if (hasId || f.id === null) {
    if ("result" in f && !("error" in f)) {
      return { kind: "response", frame: f as unknown as RpcResponse };
    }
    if ("error" in f && typeof f.error === "object" && f.error !== null) {
      return { kind: "response", frame: f as unknown as RpcResponse };
    }
  }
  return { kind: "invalid", reason: "not a request, notification or response" };
}
