/**
 * `mcpConnector()`: an MCP server as a Cordon connector.
 *
 * - `start()` connects (within `startupTimeoutMs`) and lists every tool.
 *   Each MCP tool becomes a `Tool` with the server's JSON Schemas as they
 *   are, a script-callable name (see `tools.ts`) and annotations from its
 *   hints. Input is validated by the server; bad arguments come back as
 *   `invalid_input`.
 * - A call's value is mapped from the MCP result as `results.ts` documents:
 *   `structuredContent`, else one text block's JSON, else its text, else
 *   `{ content: [...] }`. `isError` results throw `tool_error`.
 * - Failures are typed: a lost or unreachable server is
 *   `connector_unavailable`, a call past its limit `tool_timeout`, the
 *   server's refusals `invalid_input`, `not_found`, `not_supported` or
 *   `tool_error` (see `errors.ts`).
 * - When the server dies, the calls in flight fail with
 *   `connector_unavailable` and the connector is disconnected. Nothing
 *   happens until something needs the server: the next call (or `check()`)
 *   reconnects (after a short, growing wait: see `session_keeper.ts`).
 *   A request that provably never reached the dead server is sent once
 *   more to the new one. Tools keep their names; a changed list is taken
 *   and listeners are told.
 * - `notifications/tools/list_changed` re-lists the tools; listeners hear
 *   of it when the list really changed.
 * - `close()` ends the session and, for stdio, stops the server's whole
 *   process group. It is idempotent and final.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../registry.ts";
import type { Connector, ConnectorHandle, Tool, ToolContext } from "../types.ts";
import { type FailureContext, isUndelivered, mcpFailure } from "./errors.ts";
import { McpHandle } from "./handle.ts";
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  describeTarget,
  type McpHttpOptions,
  type McpStdioOptions,
  type McpTarget,
  resolveTarget,
} from "./options.ts";
import { toolResultValue } from "./results.ts";
import type { CallToolResult } from "./sdk.ts";
import type { McpSession } from "./session.ts";
import { SessionKeeper } from "./session_keeper.ts";
import { ToolList, type ToolsChangedListener } from "./tool_list.ts";

/** An MCP server (stdio or Streamable HTTP) as a connector. Made by {@link mcpConnector}. */
export class McpConnector implements Connector {
  /** The name scripts call it by. */
  readonly name: string;
  /** Calls running at once, when configured. */
  readonly concurrency?: number;
  /** Per-call time limit (`callTimeoutMs`), when configured. */
  readonly timeoutMs?: number;
  /** Readiness, resources, prompts and completions. */
  readonly handle: ConnectorHandle;
  /** When to prefer this server, as configured. */
  readonly useWhen?: string;
  /** When to avoid this server, as configured. */
  readonly avoidWhen?: string;
  /** Tags, as configured. */
  readonly tags?: string[];
  readonly #description?: string;
  readonly #target: McpTarget;
  readonly #callTimeoutMs: number;
  readonly #tools: ToolList;
  readonly #keeper: SessionKeeper;
  #closing?: Promise<void>;

  /** Checks the options (`invalid_request` when bad); connects only on `start()` or first use. */
  constructor(options: McpStdioOptions | McpHttpOptions) {
    this.#target = resolveTarget(options);
    this.name = options.name;
    if (options.description !== undefined) this.#description = options.description;
    if (typeof options.useWhen === "string") this.useWhen = options.useWhen;
    if (typeof options.avoidWhen === "string") this.avoidWhen = options.avoidWhen;
    if (Array.isArray(options.tags)) this.tags = options.tags.map(String);
    if (options.concurrency !== undefined) this.concurrency = options.concurrency;
    if (options.callTimeoutMs !== undefined) this.timeoutMs = options.callTimeoutMs;
    this.#tools = new ToolList(
      options.approval && { ...options.approval },
      (mcpName, args, ctx) => this.#callTool(mcpName, args, ctx),
    );
    this.#callTimeoutMs = options.callTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const refresh = () =>
      this.#tools.refresh(() => this.#keeper.current, {
        timeout: startupTimeoutMs,
        signal: this.#keeper.signal,
      });
    this.#keeper = new SessionKeeper({
      connector: this.name,
      target: this.#target,
      startupTimeoutMs,
      prepare: refresh,
      toolsChanged: () => void refresh().catch(() => {}),
    });
    this.handle = new McpHandle({
      name: this.name,
      callTimeoutMs: this.#callTimeoutMs,
      run: (what, request) =>
        this.#withSession(
          { connector: this.name, what, timeoutMs: this.#callTimeoutMs },
          "lost",
          request,
        ),
      checkInfo: () => this.#checkInfo(),
    });
  }

  /** The configured description, else the server's title and version once known. */
  get description(): string {
    if (this.#description !== undefined) return this.#description;
    const server = this.#keeper.server;
    if (!server) return `MCP server "${this.name}"`;
    return `${server.title ?? server.name} ${server.version} (MCP server)`;
  }

  /** The current tools (replaced, never mutated, when the server's list changes). */
  get tools(): readonly Tool[] {
    return this.#tools.tools;
  }

  /** True while a session is open and alive. */
  get connected(): boolean {
    return this.#keeper.current !== undefined;
  }

  /** The stdio server's process id (and process group id) while connected; for tests and diagnostics. */
  get serverPid(): number | undefined {
    return this.#keeper.current?.pid;
  }

  /** Calls `listener` with the new list whenever the tools change; returns the unsubscribe function. */
  onToolsChanged(listener: ToolsChangedListener): () => void {
    return this.#tools.listen(listener);
  }

  /** Connects and lists the tools; throws `connector_unavailable` with the reason on failure. */
  async start(): Promise<void> {
    await this.#keeper.session(`${this.name}.start`);
  }

  /** Closes the session and stops the server; idempotent, and the connector stays closed. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#tools.clearListeners();
      await this.#keeper.close();
    })();
    return this.#closing;
  }

  /** Same as {@link McpConnector.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #callTool(mcpName: string, args: unknown, ctx: ToolContext): Promise<unknown> {
    const context: FailureContext = {
      connector: this.name,
      what: `${this.name}.${this.#tools.nameFor(mcpName)}`,
      timeoutMs: this.#callTimeoutMs,
      signal: ctx.signal,
    };
    const input = args ?? {};
    if (typeof input !== "object" || Array.isArray(input)) {
      throw new CordonError(
        "invalid_input",
        `Invalid input for ${context.what}: MCP tools take an object of named arguments`,
      );
    }
    return await this.#withSession(context, "undelivered", async (session) => {
      // The SDK never removes the abort listener it adds to a request's signal; a signal of
      // this call only keeps a long-lived caller's signal from collecting one per call.
      const call = new AbortController();
      const onAbort = () => call.abort(ctx.signal.reason);
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      try {
        const result = await session.client.callTool(
          { name: mcpName, arguments: input as Record<string, unknown> },
          undefined,
          { signal: call.signal, timeout: this.#callTimeoutMs },
        );
        return toolResultValue(result as CallToolResult, context);
      } finally {
        ctx.signal.removeEventListener("abort", onAbort);
      }
    });
  }

  /**
   * Runs `request` on the live session, connecting first when there is
   * none. If the session turns out dead under it, the request goes once more
   * to a new session when that is safe: for reads (`"lost"`) always, for
   * tool calls (`"undelivered"`) only when it never reached the server.
   */
  async #withSession<T>(
    context: FailureContext,
    retry: "lost" | "undelivered",
    request: (session: McpSession) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1;; attempt++) {
      let session: McpSession;
      try {
        session = await this.#keeper.session(context.what, context.signal);
      } catch (err) {
        throw mcpFailure(err, context);
      }
      try {
        return await request(session);
      } catch (err) {
        const undelivered = isUndelivered(err);
        if (undelivered) session.abandon((err as Error).message);
        const again = attempt === 1 && !context.signal?.aborted && !this.#closing &&
          (undelivered || (retry === "lost" && !session.alive));
        if (!again) throw mcpFailure(err, { ...context, lost: session.lostReason });
      }
    }
  }

  #checkInfo(): Record<string, unknown> {
    const info: Record<string, unknown> = {
      target: describeTarget(this.#target),
      connected: this.connected,
      tools: this.#tools.tools.length,
    };
    const problem = this.#keeper.problem;
    if (problem !== undefined) info.lastProblem = problem;
    return info;
  }
}

/**
 * An MCP server as a connector: `command` (stdio, started by Cordon) or
 * `url` (Streamable HTTP).
 *
 * @example
 * ```ts ignore
 * import { mcpConnector } from "./connector.ts";
 * await using files = mcpConnector({
 *   name: "files",
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
 *   approval: { destructive: true },
 * });
 * await files.start();
 * console.log(files.tools.map((t) => t.name));
 * ```
 */
export function mcpConnector(options: McpStdioOptions | McpHttpOptions): McpConnector {
  return new McpConnector(options);
}
