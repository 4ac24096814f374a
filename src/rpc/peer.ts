/**
 * One end of a JSON-RPC 2.0 connection: ids, the pending map, deadlines,
 * and dispatch of incoming requests and notifications. It knows nothing of
 * processes or streams: frames go out through `send` and come in through
 * {@link Peer.receive}. Values are carried in the tagged encoding of
 * `codec.ts` in both directions.
 *
 * Incoming frames are handled in slices: a burst that arrives at once (a
 * thousand calls under `Promise.all`, twenty thousand console lines) would
 * otherwise be handled in one stretch without a turn of the event loop, and
 * every request's handler continues in microtasks of that same stretch. Once
 * a slice has spent {@link SLICE_BUDGET_MS} or dispatched
 * {@link SLICE_MAX_REQUESTS} requests, later frames wait in order for the
 * next macrotask. Frames keep their order across slices.
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

/**
 * The time one slice may spend handling frames before the rest wait for the
 * next macrotask. The trust rule allows 50 ms of stall; a few ms per slice
 * leaves room for the microtasks its requests run afterwards.
 */
export const SLICE_BUDGET_MS = 4;

/**
 * The requests one slice dispatches. A request's handler goes on in
 * microtasks after the slice (journal write, tool, response) where the
 * budget cannot see it; about 0.1 ms each on the per-call path, so 32 stay
 * within a few ms.
 */
export const SLICE_MAX_REQUESTS = 32;

/**
 * Frames handled before a slice arms its end timer. Below this a slice has
 * no timer (so quiet traffic costs no timer per frame) and may be stale,
 * begun in an earlier macrotask; it restarts at this point, so a burst is
 * undercounted by at most this many frames.
 */
const SLICE_ARM_AT = 4;

interface Slice {
  startedAt: number;
  requests: number;
  frames: number;
  armed: boolean;
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
  /** Frames waiting for a later slice, oldest first (from `#head`). */
  #queue: unknown[] = [];
  #head = 0;
  #slice: Slice | undefined;
  #sliceTimer: ReturnType<typeof setTimeout> | undefined;
  /** How many slices ended with frames left over (tests and benches read it). */
  deferredSlices = 0;
  /** Waiters for {@link idle}. */
  #idle: (() => void)[] = [];

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

  /**
   * Feeds one parsed frame from the other side. It is handled now, or after
   * the frames before it in a later slice when the current one is spent.
   */
  receive(raw: unknown): void {
    if (this.#head < this.#queue.length || !this.#admit(raw)) {
      this.#queue.push(raw);
      return;
    }
    this.#handle(raw);
  }

  /**
   * Resolves once no received frame waits for a slice: every frame received
   * so far has been handled (by the handlers bound now).
   */
  idle(): Promise<void> {
    if (this.#head === this.#queue.length) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Counts `raw` into the current slice; false when the slice is spent. */
  #admit(raw: unknown): boolean {
    const now = performance.now();
    let slice = this.#slice;
    if (!slice) {
      const fresh: Slice = { startedAt: now, requests: 0, frames: 0, armed: false };
      slice = this.#slice = fresh;
      // An unarmed slice counts frames handed over in one go (one read of the pipe). Once that
      // is over it is forgotten, so one call at a time never arms a timer or waits for one.
      queueMicrotask(() => {
        if (this.#slice === fresh) this.#slice = undefined;
      });
    }
    if (!slice.armed && slice.frames >= SLICE_ARM_AT) slice = this.#openSlice(now);
    const request = isRequest(raw);
    if (
      slice.armed &&
      (now - slice.startedAt >= SLICE_BUDGET_MS ||
        (request && slice.requests >= SLICE_MAX_REQUESTS))
    ) {
      return false;
    }
    slice.frames++;
    if (request) slice.requests++;
    return true;
  }

  /** A busy slice: counted from `now`, it ends at the next macrotask. */
  #openSlice(now: number): Slice {
    this.#sliceTimer = setTimeout(() => this.#endSlice(), 0);
    return this.#slice = { startedAt: now, requests: 0, frames: 0, armed: true };
  }

  /** A macrotask went by: a new slice takes the frames that waited. */
  #endSlice(): void {
    this.#sliceTimer = undefined;
    this.#slice = undefined;
    if (this.#head === this.#queue.length) return;
    this.deferredSlices++;
    this.#openSlice(performance.now());
    this.#pump();
  }

  #pump(): void {
    while (this.#head < this.#queue.length) {
      const raw = this.#queue[this.#head];
      if (!this.#admit(raw)) return;
      this.#take();
      this.#handle(raw);
    }
  }

  #take(): void {
    this.#queue[this.#head++] = undefined;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  #handle(raw: unknown): void {
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

  /**
   * Fails every pending request and refuses new ones. Frames still waiting
   * for a slice are handled first (a response or a log line that arrived
   * before the close counts), except requests: their sender is gone, so
   * nothing runs for them.
   */
  close(info: ErrorInfo = errorInfo("runtime_closed", "The connection is closed")): void {
    if (this.#closed) return;
    clearTimeout(this.#sliceTimer);
    this.#sliceTimer = undefined;
    this.#slice = undefined;
    while (this.#head < this.#queue.length) {
      const raw = this.#queue[this.#head];
      this.#take();
      if (!isRequest(raw)) this.#handle(raw);
    }
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

/** A frame that asks for an answer (an id and a method); the cheap test before classifying. */
function isRequest(raw: unknown): boolean {
  return raw !== null && typeof raw === "object" && "method" in raw && "id" in raw;
}
