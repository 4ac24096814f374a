/**
 * The failure frames a `Peer` (`peer.ts`) answers a request with: an
 * unknown method, or the error its handler threw (a result that cannot be
 * encoded is `result_not_serializable`, naming the path).
 *
 * @module
 */
import { errorInfo, toErrorInfo } from "../errors.ts";
import { CodecError } from "./codec.ts";
import { RPC_METHOD_NOT_FOUND, type RpcErrorObject, type RpcId, toRpcError } from "./messages.ts";

/** A response frame that carries `error`. */
export function errorFrame(id: RpcId | null, error: RpcErrorObject): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** The answer to a request no handler takes. */
export function methodNotFoundFrame(id: RpcId, method: string): string {
  return errorFrame(id, { code: RPC_METHOD_NOT_FOUND, message: `Unknown method ${method}` });
}

/** The answer to a request whose handler threw `err` (or whose result did not encode). */
export function failureFrame(id: RpcId, err: unknown): string {
  const info = err instanceof CodecError
    ? errorInfo("result_not_serializable", `The result cannot be sent: ${err.message}`, {
      path: err.path,
    })
    : toErrorInfo(err);
  return errorFrame(id, toRpcError(info));
}
