/**
 * One end of a JSON-RPC 2.0 connection: ids, the pending map, deadlines,
 * and dispatch of incoming requests and notifications. It knows nothing of
 * processes or streams: frames go out through `send` and come in through
 * {@link Peer.receive}. Values are carried in the tagged encoding of
 * `codec.ts` in both directions.
 *
 * @module
 */
import { CordonError, type ErrorInfo, errorInfo, toErrorInfo } from "../errors.ts";
import { CodecError, decodeValue, encodeValue } from "./codec.ts";
import {
  classifyFrame,
  fromRpcError,
  RPC_METHOD_NOT_FOUND,
  type RpcErrorObject,
  type RpcId,
  toRpcError,
} from "./messages.ts";

/** Handles an incoming request; returns its result or throws a CordonError. */
export type RequestHandler = (method: string, params: unknown) => unknown | Promise<unknown>;
/** Handles an incoming notification. */
export type NotificationHandler = (method: string, params: unknown) => void;

/** Options for {@link Peer}. */
export interface PeerOptions {
  /** Writes one frame (a JSON text, no newline). */
  send(json: string): void | Promise<void>;
  onRequest?: RequestHandler;
  onNotification?: NotificationHandler;
  /** A frame broke the protocol; the peer does not throw for it. */
  onProtocolError?(info: ErrorInfo): void;
}

/** Options for {@link Peer.request}. */
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

interface Pending {
  onAnswer?(): void;
  resolve(value: unknown): void;
  reject(err: CordonError): void;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * A JSON-RPC peer.
 *
 * @example
 * ```ts
 * import { Peer } from "./peer.ts";
 * let b: Peer;
 * const a = new Peer({ send: (json) => b.receive(JSON.parse(json)) });
 * b = new Peer({ send: (json) => a.receive(JSON.parse(json)), onRequest: (_m, p) => p });
 * console.assert((await a.request("echo", 7)) === 7);
 * ```
 */
export class Peer {
  #nextId = 1;
  #pending = new Map<RpcId, Pending>();
  #closed: ErrorInfo | undefined;
  readonly #options: PeerOptions;

  constructor(options: PeerOptions) {
    this.#options = options;
  }

  /** How many requests of ours await a response. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Sends a request and waits for its response. */
  request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.#closed) {
      return Promise.reject(new CordonError(this.#closed.code, this.#closed.message));
    }
    const id = this.#nextId++;
    const json = JSON.stringify({ jsonrpc: "2.0", id, method, params: encodeValue(params) });
    return new Promise((resolve, reject) => {
      const pending: Pending = { resolve, reject, onAnswer: options.onAnswer };
      if (options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs)) {
        pending.timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(
            new CordonError(
              options.timeoutCode ?? "sandbox_timeout",
              `${method} did not answer within ${options.timeoutMs} ms`,
            ),
          );
        }, options.timeoutMs);
      }
      this.#pending.set(id, pending);
      this.#write(json);
    });
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    if (this.#closed) return;
    this.#write(JSON.stringify({ jsonrpc: "2.0", method, params: encodeValue(params) }));
  }

  /** Feeds one parsed frame from the other side. */
  receive(raw: unknown): void {
    try {
      this.#receive(raw);
    } catch (err) {
      // A frame that cannot be decoded or handled fails the peer's run, never the reader.
      this.#options.onProtocolError?.(
        errorInfo(
          "protocol_error",
          `Cannot handle a frame: ${err instanceof Error ? err.message : String(err)}`,
        ),
      );
    }
  }

  #receive(raw: unknown): void {
    const c = classifyFrame(raw);
    switch (c.kind) {
      case "invalid":
        this.#options.onProtocolError?.(errorInfo("protocol_error", `Invalid frame: ${c.reason}`));
        return;
      case "notification":
        this.#options.onNotification?.(c.frame.method, decodeValue(c.frame.params));
        return;
      case "request":
        this.#dispatch(c.frame.id, c.frame.method, c.frame.params);
        return;
      case "response": {
        const id = c.frame.id;
        const pending = id === null ? undefined : this.#pending.get(id);
        if (!pending) {
          this.#options.onProtocolError?.(
            errorInfo(
              "protocol_error",
              `A response answers no pending request (id ${JSON.stringify(id)})`,
            ),
          );
          return;
        }
        this.#pending.delete(id!);
        if (pending.timer !== undefined) clearTimeout(pending.timer);
        if ("error" in c.frame) {
          const info = fromRpcError(c.frame.error);
          pending.onAnswer?.();
          pending.reject(new CordonError(info.code, info.message, info));
          return;
        }
        let value: unknown;
        try {
          value = decodeValue(c.frame.result);
        } catch (err) {
          const message = `Cannot decode a response: ${(err as Error).message}`;
          pending.reject(new CordonError("protocol_error", message));
          throw err;
        }
        pending.onAnswer?.();
        pending.resolve(value);
        return;
      }
    }
  }

  /** Fails every pending request and refuses new ones. */
  close(info: ErrorInfo = errorInfo("runtime_closed", "The connection is closed")): void {
    if (this.#closed) return;
    this.#closed = info;
    for (const [, p] of this.#pending) {
      if (p.timer !== undefined) clearTimeout(p.timer);
      p.reject(new CordonError(info.code, info.message, info));
    }
    this.#pending.clear();
  }

  async #dispatch(id: RpcId, method: string, params: unknown): Promise<void> {
    const handler = this.#options.onRequest;
    let response: string;
    if (!handler) {
      response = this.#errorFrame(id, {
        code: RPC_METHOD_NOT_FOUND,
        message: `Unknown method ${method}`,
      });
    } else {
      try {
        const result = await handler(method, decodeValue(params));
        response = JSON.stringify({ jsonrpc: "2.0", id, result: encodeValue(result) });
      } catch (err) {
        const info = err instanceof CodecError
          ? errorInfo("result_not_serializable", `The result cannot be sent: ${err.message}`, {
            path: err.path,
          })
          : toErrorInfo(err);
        response = this.#errorFrame(id, toRpcError(info));
      }
    }
    if (!this.#closed) this.#write(response);
  }

  #errorFrame(id: RpcId | null, error: RpcErrorObject): string {
    return JSON.stringify({ jsonrpc: "2.0", id, error });
  }

  #write(json: string): void {
    try {
      const r = this.#options.send(json);
      if (r instanceof Promise) r.catch(() => this.close());
    } catch {
      this.close();
    }
  }
}
