/**
 * JSON-RPC 2.0 over NDJSON: wire types, framing, the peer, and the tagged
 * value encoding.
 *
 * @module
 */
export { CodecError, decodeValue, encodeValue, MAX_VALUE_DEPTH } from "./codec.ts";
export {
  type FrameFault,
  FrameWriter,
  LineSplitter,
  readFrames,
  type ReadFramesOptions,
} from "./framing.ts";
export {
  classifyFrame,
  fromRpcError,
  RPC_APPLICATION_ERROR,
  type RpcErrorObject,
  type RpcId,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
  toRpcError,
} from "./messages.ts";
export {
  type NotificationHandler,
  Peer,
  type PeerOptions,
  type RequestHandler,
  type RequestOptions,
} from "./peer.ts";
