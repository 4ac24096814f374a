/**
 * One end of a JSON-RPC 2.0 connection: ids, the pending map, deadlines,
 * and dispatch of incoming requests and notifications. It knows nothing of
 * processes or streams: frames go out through `send` and come in through
 * {@link Peer.receive}. Values are carried in the tagged encoding of
 * `codec.ts` in both directions.
 *
 * Incoming frames are handled in slices (`peer_slices.ts` holds their
 * bounds): a burst that arrives at once would otherwise be handled in one
 * stretch without a turn of the event loop, and every request's handler
 * continues in microtasks of that same stretch. Once a slice is spent,
 * later frames wait in order for the next macrotask. Frames keep their
 * order across slices.
 *
 * @module
 */
import { CordonError, type ErrorInfo, errorInfo } from "../errors.ts";
import { decodeValue, forJson } from "./codec.ts";
import { classifyFrame, type RpcId } from "./messages.ts";
import { failureFrame, methodNotFoundFrame } from "./peer_answers.ts";
import type { PeerOptions, RequestOptions } from "./peer_options.ts";
import { failAll, type Pending, settle } from "./peer_pending.ts";
import {
  isRequest,
  type Slice,
  SLICE_ARM_AT,
  SLICE_BUDGET_MS,
  SLICE_MAX_REQUESTS,
} from "./peer_slices.ts";

export type {
  NotificationHandler,
  PeerOptions,
  RequestHandler,
  RequestOptions,
} from "./peer_options.ts";
export { SLICE_BUDGET_MS, SLICE_MAX_REQUESTS } from "./peer_slices.ts";

/** The default turn: a zero timeout (see `PeerOptions.afterTurn`). */
function timeoutTurn(fn: () => void): () => void {
  const timer = setTimeout(fn, 0);
  return () => clearTimeout(timer);
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
  #cancelSlice: (() => void) | undefined;
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
    const json = JSON.stringify({ jsonrpc: "2.0", id, method, params: forJson(params) });
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
    this.#write(JSON.stringify({ jsonrpc: "2.0", method, params: forJson(params) }));
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
    if (this.#options.unsliced) return true;
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
    this.#cancelSlice = (this.#options.afterTurn ?? timeoutTurn)(() => this.#endSlice());
    return this.#slice = { startedAt: now, requests: 0, frames: 0, armed: true };
  }

  /** A macrotask went by: a new slice takes the frames that waited. */
  #endSlice(): void {
    this.#cancelSlice = undefined;
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
        settle(pending, c.frame);
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
    this.#cancelSlice?.();
    this.#cancelSlice = undefined;
    this.#slice = undefined;
    while (this.#head < this.#queue.length) {
      const raw = this.#queue[this.#head];
      this.#take();
      if (!isRequest(raw)) this.#handle(raw);
    }
    this.#closed = info;
    failAll(this.#pending, info);
  }

  async #dispatch(id: RpcId, method: string, params: unknown): Promise<void> {
    const handler = this.#options.onRequest;
    let response: string;
    if (!handler) {
      response = methodNotFoundFrame(id, method);
    } else {
      try {
        const result = await handler(method, decodeValue(params));
        response = JSON.stringify({ jsonrpc: "2.0", id, result: forJson(result) });
      } catch (err) {
        response = failureFrame(id, err);
      }
    }
    if (!this.#closed) this.#write(response);
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
