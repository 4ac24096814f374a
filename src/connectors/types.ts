/**
 * What a connector is, independent of how it was made (zod, MCP, built-in).
 *
 * @module
 */
import type { ErrorInfo } from "../errors.ts";

/** A JSON Schema object (draft 2020-12 as zod and MCP produce it). */
export type JsonSchema = Record<string, unknown>;

/** How a tool behaves, for policy, approval and replay. */
export interface ToolAnnotations {
  /** The tool changes nothing. */
  readOnly?: boolean;
  /** The tool may destroy or overwrite data. */
  destructive?: boolean;
  /** A person must approve each call before it runs. */
  requiresApproval?: boolean;
  /** On replay, answer from the log (`once`, the default) or run again (`reexecute`, read-only tools). */
  replay?: "once" | "reexecute";
  /** Who produces the result: the host (`execute`) or someone outside (`client`). */
  resolution?: "host" | "client";
}

/** What a tool's `execute` is given besides its arguments. */
export interface ToolContext {
  /** Aborted when the call times out or the execution ends. */
  signal: AbortSignal;
  executionId: string;
  connector: string;
  tool: string;
}

/** A validator's answer. */
export type Validation = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };

/** One callable method of a connector. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  /** Per-call time limit in ms, counted from when the call starts executing. */
  timeoutMs?: number;
  /** Checks and normalizes the arguments before `execute`. */
  validateInput?(args: unknown): Validation;
  /** Checks the result after `execute`. */
  validateOutput?(value: unknown): Validation;
  /** Runs the call. Absent for client-resolved tools. */
  execute?(args: unknown, context: ToolContext): unknown | Promise<unknown>;
  /** Undoes an applied call (used by rollback). */
  revert?(args: unknown, result: unknown): unknown | Promise<unknown>;
}

/** A named provider of tools. */
export interface Connector {
  name: string;
  description: string;
  tools: readonly Tool[];
  /** Calls of this connector running at once, across all executions. */
  concurrency?: number;
  /** Default per-call time limit for its tools, in ms. */
  timeoutMs?: number;
  /**
   * Connects (starts a server, lists its tools). `createRuntime()` awaits it before it reads
   * `tools`; a connector that fails to start fails the runtime's creation with its reason.
   */
  start?(): Promise<void>;
  /** Disconnects and stops anything it started; `runtime.close()` awaits it. */
  close?(): Promise<void>;
  /** Resources, prompts, completions and readiness, for `codemode.connector(name)`. */
  handle?: ConnectorHandle;
  /** Subscribes to changes of `tools` (an MCP server's `list_changed`); returns an unsubscribe. */
  onToolsChanged?(listener: () => void): () => void;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
  /** The backend had more than a page can carry and some were left out. */
  truncated?: boolean;
}

/** Whether a connector can serve calls now, as a value (never thrown). */
export interface ConnectorCheck {
  ready: boolean;
  /** What is wrong when not ready (backend down, auth refused, …). */
  problems?: { code: string; message: string }[];
  /** Facts worth showing: server name and version, protocol, tool count, … */
  info?: Record<string, unknown>;
}

/** A resource a connector can read. */
export interface ResourceInfo {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** A parameterized resource (`file:///{path}`). */
export interface ResourceTemplateInfo {
  uriTemplate: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** A prompt a connector offers. */
export interface PromptInfo {
  name: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/**
 * The non-tool side of a connector. Every method may throw a `CordonError` for an expected
 * failure (`connector_unavailable`, `not_found`, `invalid_input`, …); the runtime turns that into
 * `{ ok: false, error }` for the script. Absent methods are "not supported" for this connector.
 */
export interface ConnectorHandle {
  check(): Promise<ConnectorCheck>;
  resources?(cursor?: string): Promise<Page<ResourceInfo>>;
  resourceTemplates?(cursor?: string): Promise<Page<ResourceTemplateInfo>>;
  /** The resource's contents, in the documented shape (`{ contents: [{ uri, mimeType?, text? | blob? }] }`). */
  readResource?(uri: string): Promise<unknown>;
  prompts?(cursor?: string): Promise<Page<PromptInfo>>;
  /** The prompt's messages (`{ description?, messages: [{ role, content }] }`). */
  getPrompt?(name: string, args?: Record<string, string>): Promise<unknown>;
  /** Completion values for an argument of a prompt or a resource template. */
  complete?(
    ref: { type: "prompt"; name: string } | { type: "resource"; uri: string },
    argument: { name: string; value: string },
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
}

/** A connector as listed for callers (no functions). */
export interface ConnectorInfo {
  name: string;
  description: string;
  tools: ToolInfo[];
}

/** A tool as listed for callers. */
export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
}
