/**
 * The connectors a runtime serves, and the one path by which any tool call
 * runs: look up, validate input, wait for a concurrency permit, execute
 * under a deadline that starts when execution starts, validate output.
 * Every failure comes back as a value.
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import { type CallOutcome, fail, thrownOutcome } from "./call_outcome.ts";
import { checkConnectorName, toolMap } from "./connector_names.ts";
import { Deadlines } from "./deadlines.ts";
import { Semaphore } from "./semaphore.ts";
import type { Connector, ConnectorInfo, Tool, ToolContext } from "./types.ts";

/** Per-call time limit when neither tool nor connector sets one. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/**
 * Calls of one connector running at once when it sets none: enough for a
 * `Promise.all` fan-out, few enough not to flood a backend.
 */
export const DEFAULT_CONNECTOR_CONCURRENCY = 64;

export type { CallOutcome } from "./call_outcome.ts";
export { RESERVED_NAMES } from "./connector_names.ts";

/**
 * The namespace of a call that names none: the same as the engine's `DEFAULT_NAMESPACE` (this
 * layer cannot import the engine), so a library caller's calls land where its executions do.
 */
export const DEFAULT_CALL_NAMESPACE = "default";

/** What {@link ConnectorRegistry.call} needs besides the names and args. */
export interface CallOptions {
  executionId: string;
  /**
   * The tenant of the calling execution: handed to the tool as `context.namespace` and used to
   * share the connector's concurrency fairly. {@link DEFAULT_CALL_NAMESPACE} when absent.
   */
  namespace?: string;
  /** Aborts the call (the execution ended). */
  signal?: AbortSignal;
}

interface Entry {
  connector: Connector;
  tools: Map<string, Tool>;
  semaphore: Semaphore;
}

/**
 * The connectors of a runtime.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineConnector } from "./define.ts";
 * import { ConnectorRegistry } from "./registry.ts";
 * const reg = new ConnectorRegistry([defineConnector({
 *   name: "echo",
 *   description: "Echo",
 *   tools: { say: { description: "Say", input: z.string(), execute: (s) => s } },
 * })]);
 * const out = await reg.call("echo", "say", "hi", { executionId: "exec_1" });
 * console.assert(out.ok && out.value === "hi");
 * ```
 */
export class ConnectorRegistry {
  #entries = new Map<string, Entry>();
  readonly #deadlines = new Deadlines();
  #guestKey: string | undefined;

  constructor(connectors: readonly Connector[] = []) {
    for (const c of connectors) this.add(c);
  }

  /** Adds a connector; throws `invalid_request` for a bad or taken name. */
  add(connector: Connector): void {
    this.#guestKey = undefined;
    const name = checkConnectorName(connector);
    if (this.#entries.has(name)) {
      throw new CordonError("invalid_request", `Cannot add connector "${name}": the name is taken`);
    }
    const tools = toolMap(name, connector.tools);
    const concurrency = connector.concurrency ?? DEFAULT_CONNECTOR_CONCURRENCY;
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
      throw new CordonError(
        "invalid_request",
        `Cannot add connector "${name}": concurrency must be a positive integer`,
      );
    }
    this.#entries.set(name, { connector, tools, semaphore: new Semaphore(concurrency) });
  }

  /** A connector by name. */
  connector(name: string): Connector | undefined {
    return this.#entries.get(name)?.connector;
  }

  /**
   * Runs `work` holding one of the connector's concurrency permits, like a tool call: anything
   * that reaches the connector's backend (a resource read, a prompt listing) waits its turn.
   * Rejects with the signal's reason if it is aborted while waiting.
   */
  async withPermit<T>(
    name: string,
    work: () => Promise<T>,
    signal?: AbortSignal,
    namespace: string = DEFAULT_CALL_NAMESPACE,
  ): Promise<T> {
    const entry = this.#entries.get(name);
    if (!entry) return await work();
    const release = await entry.semaphore.acquire(signal, namespace);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Re-reads a connector's tools (its list changed, e.g. an MCP `list_changed`). A list with a
   * bad name is refused and the old one kept.
   */
  refresh(name: string): void {
    const entry = this.#entries.get(name);
    if (entry) entry.tools = toolMap(name, entry.connector.tools);
  }

  /** The connector names, in the order added. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** A tool, if it exists. */
  tool(connector: string, tool: string): Tool | undefined {
    return this.#entries.get(connector)?.tools.get(tool);
  }

  /** Every connector and its tools, as data. */
  list(): ConnectorInfo[] {
    return [...this.#entries.values()].map(({ connector }) => ({
      name: connector.name,
      description: connector.description,
      tools: connector.tools.map((t) => {
        const info: ConnectorInfo["tools"][number] = {
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema,
          annotations: t.annotations,
        };
        if (t.outputSchema) info.outputSchema = t.outputSchema;
        return info;
      }),
    }));
  }

  /** What the guest must know to build its globals. */
  guestConnectors(): { name: string; tools: string[] }[] {
    return [...this.#entries.values()].map((e) => ({
      name: e.connector.name,
      tools: [...e.tools.keys()],
    }));
  }

  /** Names {@link guestConnectors}' current answer: it changes whenever a connector is added. */
  guestKey(): string {
    return this.#guestKey ??= JSON.stringify(this.guestConnectors());
  }

  /** Runs one call; never throws. */
  async call(
    connectorName: string,
    toolName: string,
    args: unknown,
    options: CallOptions,
  ): Promise<CallOutcome> {
    const entry = this.#entries.get(connectorName);
    if (!entry) {
      return fail(
        "connector_not_found",
        `There is no connector "${connectorName}"; known: ${this.names().join(", ") || "none"}`,
      );
    }
    const tool = entry.tools.get(toolName);
    if (!tool) {
      return fail(
        "tool_not_found",
        `${connectorName} has no tool "${toolName}"; it has: ${[...entry.tools.keys()].join(", ")}`,
      );
    }
    if (!tool.execute) {
      return fail(
        "tool_error",
        `${connectorName}.${toolName} is resolved by a client, which needs a durable runtime`,
      );
    }
    let value = args;
    if (tool.validateInput) {
      const v = tool.validateInput(args);
      if (!v.ok) return v;
      value = v.value;
    }
    const namespace = options.namespace ?? DEFAULT_CALL_NAMESPACE;
    let release = entry.semaphore.tryAcquire();
    if (!release) {
      try {
        release = await entry.semaphore.acquire(options.signal, namespace);
      } catch {
        return fail("tool_error", `${connectorName}.${toolName} was cancelled before it started`);
      }
    }
    const timeoutMs = tool.timeoutMs ?? entry.connector.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const call = new ToolCall(options.signal);
    const cancelDeadline = this.#deadlines.add(timeoutMs, () => {
      call.abort(new DOMException("The call timed out", "TimeoutError"));
      call.settle(
        fail("tool_timeout", `${connectorName}.${toolName} did not finish within ${timeoutMs} ms`),
      );
    });
    try {
      const context: ToolContext = {
        // Made on first use: most tools never look at it, and a burst of calls need not pay
        // for a controller and a listener each.
        get signal() {
          return call.signal;
        },
        executionId: options.executionId,
        namespace,
        connector: connectorName,
        tool: toolName,
      };
      try {
        Promise.resolve(tool.execute(value, context)).then(
          (v) => call.settle({ ok: true, value: v }),
          (err) => call.settle(thrownOutcome(err)),
        );
      } catch (err) {
        call.settle(thrownOutcome(err));
      }
      const outcome = await call.outcome;
      if (!outcome.ok || !tool.validateOutput) return outcome;
      return tool.validateOutput(outcome.value);
    } finally {
      cancelDeadline();
      call.done();
      release();
    }
  }
}

/**
 * One call's outcome (the first of its result and its deadline) and its abort signal, made
 * only if the tool asks for it; it follows the execution's own signal.
 */
class ToolCall {
  readonly outcome: Promise<CallOutcome>;
  settle!: (outcome: CallOutcome) => void;
  readonly #outer: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #reason: unknown;
  #aborted = false;
  #onOuterAbort: (() => void) | undefined;

  constructor(outer: AbortSignal | undefined) {
    this.#outer = outer;
    this.outcome = new Promise((resolve) => (this.settle = resolve));
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = this.#controller = new AbortController();
      const outer = this.#outer;
      if (this.#aborted) controller.abort(this.#reason);
      else if (outer?.aborted) controller.abort(outer.reason);
      else if (outer) {
        this.#onOuterAbort = () => controller.abort(outer.reason);
        outer.addEventListener("abort", this.#onOuterAbort, { once: true });
      }
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** Stops following the execution's signal. */
  done(): void {
    if (this.#onOuterAbort) this.#outer!.removeEventListener("abort", this.#onOuterAbort);
  }
}
