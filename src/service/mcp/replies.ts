/**
 * Server-to-client requests over stateless Streamable HTTP. The front asks a
 * client something (`elicitation/create`) on the SSE stream of the client's
 * own POST; the client answers with a new POST, which a stateless handler
 * would give to a new server that never asked. {@link RepliedTransport}
 * sends each such request out under a random id of its own and keeps it in a
 * process-wide table, and {@link deliverReplies} hands an answering POST's
 * replies to the transport that waits for them.
 *
 * Replies must reach the process that asked: behind a load balancer, keep a
 * client on one node (clients that cannot answer use the `wait` tool).
 *
 * @module
 */
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** A request sent to a client that waits for its reply. */
interface Waiting {
  /** Who may answer it: the namespace of the request that asked. */
  owner: string;
  /** Hands the reply (with its original id) to the server that asked. */
  deliver(reply: JSONRPCMessage): void;
}

/** Every request this process sent to a client and still waits on, by the id it went out with. */
const waiting = new Map<string, Waiting>();

/** A JSON-RPC reply: a result or an error for an id, no method. */
export function isReply(m: unknown): m is { id: RequestId; result?: unknown; error?: unknown } {
  if (typeof m !== "object" || m === null || "method" in m) return false;
  const r = m as Record<string, unknown>;
  return (typeof r.id === "string" || typeof r.id === "number") &&
    ("result" in r || "error" in r);
}

/**
 * Gives each reply in `messages` to the server that asked, when `owner` may answer it; a reply
 * to nothing known (already answered, timed out, cancelled, or of another owner) is dropped, as
 * a late reply is. Returns how many were delivered.
 */
export function deliverReplies(messages: readonly unknown[], owner: string): number {
  let delivered = 0;
  for (const m of messages) {
    if (!isReply(m)) continue;
    const w = waiting.get(String(m.id));
    if (!w || w.owner !== owner) continue;
    waiting.delete(String(m.id));
    w.deliver(m as JSONRPCMessage);
    delivered++;
  }
  return delivered;
}

/** How many requests wait for a client's reply in this process (tests check nothing is left). */
export function repliesAwaited(): number {
  return waiting.size;
}

/**
 * A transport that sends requests to the client under process-unique random ids, so a reply
 * arriving on another HTTP request finds its way back ({@link deliverReplies}). Everything else
 * passes through to `inner`.
 */
export class RepliedTransport implements Transport {
  readonly #inner: Transport;
  readonly #owner: string;
  /** The ids this transport's requests went out with, by their original ids. */
  readonly #wire = new Map<RequestId, string>();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(inner: Transport, owner: string) {
    this.#inner = inner;
    this.#owner = owner;
    inner.onmessage = (m: JSONRPCMessage, extra?: MessageExtraInfo) => this.onmessage?.(m, extra);
    inner.onerror = (e: Error) => this.onerror?.(e);
    inner.onclose = () => {
      this.#forget();
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ("method" in message && "id" in message) {
      const original = message.id;
      const wireId = `cordon-${crypto.randomUUID()}`;
      this.#wire.set(original, wireId);
      waiting.set(wireId, {
        owner: this.#owner,
        deliver: (reply) => {
          this.#wire.delete(original);
          this.onmessage?.({ ...reply, id: original } as JSONRPCMessage);
        },
      });
      return this.#inner.send({ ...message, id: wireId }, options);
    }
    if ("method" in message && message.method === "notifications/cancelled") {
      // The server gave up on a request (timeout, abort): name it as the client knows it.
      const params = message.params as { requestId?: RequestId } | undefined;
      const wireId = params?.requestId === undefined ? undefined : this.#wire.get(params.requestId);
      if (wireId !== undefined && params?.requestId !== undefined) {
        this.#wire.delete(params.requestId);
        waiting.delete(wireId);
        return this.#inner.send(
          { ...message, params: { ...params, requestId: wireId } } as JSONRPCMessage,
          options,
        );
      }
    }
    return this.#inner.send(message, options);
  }

  #forget(): void {
    for (const wireId of this.#wire.values()) waiting.delete(wireId);
    this.#wire.clear();
  }

  async close(): Promise<void> {
    this.#forget();
    await this.#inner.close();
  }
}
