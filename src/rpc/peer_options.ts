/**
 * What a `Peer` (`peer.ts`) is given: the handlers of incoming requests and
 * notifications, the function that writes frames, and the options of one
 * outgoing request.
 *
 * @module
 */
import type { ErrorInfo } from "../errors.ts";

/** Handles an incoming request; returns its result or throws a CordonError. */
export type RequestHandler = (method: string, params: unknown) => unknown | Promise<unknown>;
/** Handles an incoming notification. */
export type NotificationHandler = (method: string, params: unknown) => void;

/** Options for a `Peer`. */
export interface PeerOptions {
  /** Writes one frame (a JSON text, no newline). */
  send(json: string): void | Promise<void>;
  onRequest?: RequestHandler;
  onNotification?: NotificationHandler;
  /** A frame broke the protocol; the peer does not throw for it. */
  onProtocolError?(info: ErrorInfo): void;
  /**
   * Runs a function after the event loop's next turn and returns its cancel; the end of a busy
   * slice waits for it. Default: a zero timeout, which costs nothing to load. The host passes
   * `afterTurn` (loop.ts), much quicker per turn; a child does not, because `setImmediate`
   * costs a child 10 ms to load.
   */
  afterTurn?(fn: () => void): () => void;
  /**
   * Handle every frame as it arrives, never deferring any to a later slice. For a sandbox
   * child, whose event loop is its own: slicing a burst of a thousand answers there only adds
   * timer turns (the first `setTimeout` costs a child 10 ms to load). Default: false.
   */
  unsliced?: boolean;
}

/** Options for `Peer.request`. */
export interface RequestOptions {
  /** Reject with `tool_timeout`-like `code` after this long. */
  timeoutMs?: number;
  /** The error code a deadline produces. */
  timeoutCode?: ErrorInfo["code"];
  /**
   * Called synchronously when the response arrives, before any frame after
   * it is handled (the promise settles a microtask later).
   */
  onAnswer?(): void;
}
