/**
 * The requests a `Peer` (`peer.ts`) sent and awaits: one entry per id, its
 * deadline, and how a response settles one or a close fails them all.
 *
 * @module
 */
import { CordonError, type ErrorInfo } from "../errors.ts";
import { decodeValue } from "./codec.ts";
import { fromRpcError, type RpcId, type RpcResponse } from "./messages.ts";

/** A request of ours that awaits its response. */
export interface Pending {
  onAnswer?(): void;
  resolve(value: unknown): void;
  reject(err: CordonError): void;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Settles `pending` (already taken out of the map) with its response. A
 * result that cannot be decoded rejects it, then throws for the frame.
 */
export function settle(pending: Pending, frame: RpcResponse): void {
  if (pending.timer !== undefined) clearTimeout(pending.timer);
  if ("error" in frame) {
    const info = fromRpcError(frame.error);
    pending.onAnswer?.();
    pending.reject(new CordonError(info.code, info.message, info));
    return;
  }
  let value: unknown;
  try {
    value = decodeValue(frame.result);
  } catch (err) {
    const message = `Cannot decode a response: ${(err as Error).message}`;
    pending.reject(new CordonError("protocol_error", message));
    throw err;
  }
  pending.onAnswer?.();
  pending.resolve(value);
}

/** Fails every pending request with `info` and empties the map. */
export function failAll(pending: Map<RpcId, Pending>, info: ErrorInfo): void {
  for (const [, p] of pending) {
    if (p.timer !== undefined) clearTimeout(p.timer);
    p.reject(new CordonError(info.code, info.message, info));
  }
  pending.clear();
}
