/**
 * The connectors a runtime serves, and the one path by which any tool call
 * runs: look up, validate input, wait for a concurrency permit, execute
 * under a deadline that starts when execution starts, validate output.
 * Every failure comes back as a value.
 *
 * @module
 */
import { CordonError, type ErrorInfo, errorInfo } from "../errors.ts";
import { Semaphore } from "./semaphore.ts";
import type { Connector, ConnectorInfo, Tool, ToolContext } from "./types.ts";

/** Per-call time limit when neither tool nor connector sets one. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/**
 * Calls of one connector running at once when it sets none: enough for a
 * `Promise.all` fan-out, few enough not to flood a backend.
 */
export const DEFAULT_CONNECTOR_CONCURRENCY = 64;

/** Codes a tool's `execute` may fail with as they are; anything else becomes `tool_error`. */
const TOOL_CODES: ReadonlySet<string> = new Set([
  "tool_error",
  "tool_timeout",
  "invalid_input",
  "invalid_output",
  "policy_denied",
  "value_too_large",
  "limit_exceeded",
  "connector_unavailable",
  "not_found",
  "not_supported",
]);

/** Connector names: a JavaScript identifier (each connector is a global in the sandbox). */
const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/**
 * Tool names: what MCP allows (letters, digits, `_`, `-`, `.`, at most 128). They are properties
 * of the connector's global, so `get-sum` is called as `everything["get-sum"](…)`.
 */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Names a connector may not take: they would shadow globals the sandbox
 * (or the code a model writes) relies on.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  "codemode",
  "console",
  "input",
  "workspace",
  "globalThis",
  "self",
  "window",
  "Deno",
  "Object",
  "Array",
  "Promise",
  "JSON",
  "Math",
  "Date",
  "Error",
  "Reflect",
  "Proxy",
  "Symbol",
  "Function",
  "String",
  "Number",
  "Boolean",
  "BigInt",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "URL",
  "fetch",
  "crypto",
  "performance",
  "structuredClone",
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "queueMicrotask",
  "atob",
  "btoa",
  "eval",
  "undefined",
  "NaN",
  "Infinity",
  "arguments",
  "constructor",
  "prototype",
  "__proto__",
]);

/** The outcome of one call. */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };

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

/** A connector's tools by name; throws `invalid_request` for a bad or repeated name. */
function toolMap(name: string, list: readonly Tool[]): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const tool of list) {
    if (
      !TOOL_NAME_PATTERN.test(tool.name) || tool.name === "__proto__" ||
      tool.name === "constructor"
    ) {
      throw new CordonError(
        "invalid_request",
        `Cannot add tool "${name}.${tool.name}": bad tool name`,
      );
    }
    if (tools.has(tool.name)) {
      throw new CordonError(
        "invalid_request",
        `Cannot add tool "${name}.${tool.name}": defined twice`,
      );
    }
    tools.set(tool.name, tool);
  }
  return tools;
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

  constructor(connectors: readonly Connector[] = []) {
    for (const c of connectors) this.add(c);
  }

  /** Adds a connector; throws `invalid_request` for a bad or taken name. */
  add(connector: Connector): void {
    const name = connector?.name;
    if (typeof name !== "string" || !NAME_PATTERN.test(name) || RESERVED_NAMES.has(name)) {
      throw new CordonError(
        "invalid_request",
        `Cannot add connector "${name}": a name is a JavaScript identifier of at most 64 characters, not one of the reserved globals`,
      );
    }
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
    let release: () => void;
    try {
      release = await entry.semaphore.acquire(options.signal, namespace);
    } catch {
      return fail("tool_error", `${connectorName}.${toolName} was cancelled before it started`);
    }
    const timeoutMs = tool.timeoutMs ?? entry.connector.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onOuterAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const context: ToolContext = {
        signal: controller.signal,
        executionId: options.executionId,
        namespace,
        connector: connectorName,
        tool: toolName,
      };
      const timeout = new Promise<CallOutcome>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new DOMException("The call timed out", "TimeoutError"));
          resolve(
            fail(
              "tool_timeout",
              `${connectorName}.${toolName} did not finish within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
      });
      const run = (async (): Promise<CallOutcome> => {
        try {
          return { ok: true, value: await tool.execute!(value, context) };
        } catch (err) {
          // A connector that says what went wrong in Cordon's words is taken at its word.
          if (err instanceof CordonError && TOOL_CODES.has(err.code)) {
            return fail(err.code, err.message, err.details);
          }
          return fail(
            "tool_error",
            `${err instanceof Error ? err.message : String(err)}`,
            errorDetails(err),
          );
        }
      })();
      const outcome = await Promise.race([run, timeout]);
      if (!outcome.ok || !tool.validateOutput) return outcome;
      return tool.validateOutput(outcome.value);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onOuterAbort);
      release();
    }
  }
}

function fail(
  code: ErrorInfo["code"],
  message: string,
  details?: Record<string, unknown>,
): CallOutcome {
  return { ok: false, error: errorInfo(code, message, details) };
}

function errorDetails(err: unknown): Record<string, unknown> | undefined {
  if (err instanceof CordonError) return { code: err.code, ...err.details };
  if (err instanceof Error && typeof (err as { code?: unknown }).code === "string") {
    return { code: (err as unknown as { code: string }).code };
  }
  return undefined;
}
