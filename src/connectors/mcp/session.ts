/**
 * One connection to an MCP server: an SDK `Client` on a transport, from
 * `initialize` to close. A session never reconnects; it reports that it was
 * lost (the process exited, the HTTP server went away) and the connector
 * opens a new one when it next needs it.
 *
 * Losing the connection fails every request in flight (the SDK rejects
 * them when the transport closes). Over HTTP a dropped stream is not proof
 * of death (a proxy may cut idle streams and the SDK resumes them), so a
 * `ping` decides; a refused connection or an expired session (404) is.
 *
 * @module
 */
import { serverText } from "./errors.ts";
import type { McpTarget } from "./options.ts";
import { ProcessTransport } from "./process_transport.ts";
import {
  Client,
  type Implementation,
  type ServerCapabilities,
  StreamableHTTPClientTransport,
  ToolListChangedNotificationSchema,
  type Transport,
} from "./sdk.ts";
import { mcpSchemaValidator } from "./schema_validator.ts";

/** How Cordon introduces itself to servers. */
export const CLIENT_INFO: Implementation = { name: "cordon", version: "0.1.0" };

/** Time a liveness `ping` gets after an HTTP stream broke: a live server answers in ms. */
export const PING_TIMEOUT_MS = 2_000;

/** Time the HTTP session's DELETE gets on close: a courtesy, not worth waiting for. */
export const HTTP_TERMINATE_TIMEOUT_MS = 1_000;

/** What a session tells its owner. */
export interface SessionEvents {
  /** The server said its tool list changed. */
  toolsChanged(session: McpSession): void;
  /** The connection is gone for a reason other than `close()`. */
  lost(session: McpSession, reason: string): void;
}

/** Facts about the server, from `initialize`. */
export interface SessionInfo {
  server?: Implementation;
  protocolVersion?: string;
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** One live connection. */
export class McpSession {
  readonly client: Client;
  readonly #transport: Transport;
  readonly #events: SessionEvents;
  readonly #target: McpTarget;
  #lost?: string;
  #closing?: Promise<void>;
  #probing = false;

  private constructor(
    client: Client,
    transport: Transport,
    events: SessionEvents,
    target: McpTarget,
  ) {
    this.client = client;
    this.#target = target;
    this.#transport = transport;
    this.#events = events;
  }

  /**
   * Connects within `timeoutMs` (or until `signal` aborts). On failure the
   * transport is closed (a started process is stopped) and the error
   * carries the server's stderr tail when there is one.
   */
  static async open(
    target: McpTarget,
    events: SessionEvents,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<McpSession> {
    const transport: Transport = target.kind === "stdio"
      ? new ProcessTransport(target)
      : new StreamableHTTPClientTransport(target.url, { requestInit: { headers: target.headers } });
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      jsonSchemaValidator: mcpSchemaValidator,
    });
    const session = new McpSession(client, transport, events, target);
    client.onclose = () => session.#onClose();
    client.onerror = (error) => session.#onError(error);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (session.alive) events.toolsChanged(session);
    });
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => deadline.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await client.connect(transport, { signal: deadline.signal, timeout: options.timeoutMs });
      return session;
    } catch (err) {
      await session.close();
      throw new Error(session.#startupFailure(err, deadline.signal));
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** True until the connection is lost or closed. */
  get alive(): boolean {
    return this.#lost === undefined && this.#closing === undefined;
  }

  /** Why the connection is gone (lost, or closed by the host), if it is. */
  get lostReason(): string | undefined {
    return this.#lost ?? (this.#closing ? "the connection was closed by the host" : undefined);
  }

  /** The stdio server's process id (its process group). */
  get pid(): number | undefined {
    return this.#transport instanceof ProcessTransport ? this.#transport.pid : undefined;
  }

  /** What the server said about itself. */
  get info(): SessionInfo {
    const info: SessionInfo = { capabilities: this.client.getServerCapabilities() ?? {} };
    const server = this.client.getServerVersion();
    if (server) info.server = server;
    const version = (this.#transport as { protocolVersion?: string }).protocolVersion;
    if (version) info.protocolVersion = version;
    const instructions = this.client.getInstructions();
    if (instructions) info.instructions = instructions;
    return info;
  }

  /** Gives the session up as lost (a request found it dead before its events said so). */
  abandon(reason: string): void {
    this.#lose(reason);
  }

  /** Closes the connection (ends the HTTP session, stops the process); idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const transport = this.#transport;
    if (transport instanceof StreamableHTTPClientTransport && this.#lost === undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        transport.terminateSession().catch(() => {}),
        new Promise((resolve) => (timer = setTimeout(resolve, HTTP_TERMINATE_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
    }
    await this.client.close().catch(() => {});
  }

  #onClose(): void {
    if (this.#closing || this.#lost !== undefined) return;
    this.#lose(this.#exitReason());
  }

  #lose(reason: string): void {
    if (!this.alive) return;
    this.#lost = reason;
    this.#events.lost(this, reason);
    // Closing the client rejects the requests in flight; the process (if any) is gone or going.
    void this.client.close().catch(() => {});
  }

  #onError(error: Error): void {
    if (!this.alive || !(this.#transport instanceof StreamableHTTPClientTransport)) return;
    const status = (error as { code?: unknown }).code;
    if (error instanceof TypeError || status === 404) {
      // A refused connection, or the server no longer knows the session (it restarted).
      this.#lose(
        status === 404 ? "the server ended the session" : unreachable(error, this.#target),
      );
    } else if (typeof status !== "number") {
      void this.#probe();
    }
  }

  async #probe(): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    try {
      await this.client.ping({ timeout: PING_TIMEOUT_MS });
    } catch (err) {
      this.#lose(`the server does not answer: ${serverText(String((err as Error)?.message))}`);
    } finally {
      this.#probing = false;
    }
  }

  #exitReason(): string {
    const transport = this.#transport;
    if (!(transport instanceof ProcessTransport)) return "the connection closed";
    const status = transport.exitStatus;
    const how = status?.signal
      ? `was killed by ${status.signal}`
      : `exited with code ${status?.code ?? "unknown"}`;
    return `the server process ${how}`;
  }

  /** Why `open()` failed, once the session is closed (a process has exited by then). */
  #startupFailure(err: unknown, deadline: AbortSignal): string {
    const transport = this.#transport;
    let reason = err instanceof Error ? err.message : String(err);
    if (deadline.aborted) reason = String((deadline.reason as Error)?.message ?? deadline.reason);
    else if (this.#lost !== undefined) reason = this.#lost;
    else if (transport instanceof ProcessTransport && transport.exitedOnItsOwn) {
      // A write to the dead process may have failed first (EPIPE); its exit says more.
      reason = this.#exitReason();
    } else if (err instanceof Deno.errors.NotFound) {
      reason = `the command was not found (${reason})`;
    } else if (err instanceof TypeError) reason = unreachable(err, this.#target);
    const stderr = transport instanceof ProcessTransport ? transport.stderrTail.trim() : "";
    return serverText(stderr ? `${reason}; its stderr ends with: ${stderr}` : reason);
  }
}

/** A network failure in words, without the URL's query or credentials. */
function unreachable(error: TypeError, target: McpTarget): string {
  const cause = (error as { cause?: unknown }).cause;
  let detail = cause instanceof Error ? cause.message : error.message;
  if (target.kind === "http") {
    detail = detail.replaceAll(target.url.href, `${target.url.origin}${target.url.pathname}`);
  }
  return `the server cannot be reached (${detail})`;
}
