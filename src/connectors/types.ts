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
  /**
   * The tool changes nothing. Its calls then run without waiting for their journal entry to
   * commit (it commits behind, before any later write), and one lost in a crash runs again on
   * replay. Declare it only for a tool that is safe to call twice.
   */
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
  /** The execution making the call. */
  executionId: string;
  /**
   * The tenant of the execution making the call (a service key's namespace; `default` in the
   * library unless told). A tool that keeps anything between calls (keys, quotas, caches) keeps
   * it per namespace, so one tenant never reads or spends another's.
   */
  namespace: string;
  /** The connector's name, as the script calls it. */
  connector: string;
  /** The tool's name within its connector. */
  tool: string;
}

/** A validator's answer. */
export type Validation = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };

/** One callable method of a connector. */
export interface Tool {
  /** The property the script calls it by: letters, digits, `_`, `-`, `.` (at most 128). */
  name: string;
  /** What the tool does, for the model: shown in the declarations and searched. */
  description: string;
  /** A human-readable title (`ToolSummary.title`). */
  title?: string;
  /** When to prefer this tool (`ToolSummary.useWhen`). */
  useWhen?: string;
  /** When to avoid this tool (`ToolSummary.avoidWhen`). */
  avoidWhen?: string;
  /** JSON Schema of the arguments; the declarations type them from it. */
  inputSchema: JsonSchema;
  /** JSON Schema of the result; without it the model sees `unknown` (or an observed shape). */
  outputSchema?: JsonSchema;
  /** How it behaves: read-only, destructive, needs approval, replay, who resolves it. */
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
  /** The global a script calls it by: a JavaScript identifier, not a reserved global. */
  name: string;
  /** What the connector is for, shown to the model. */
  description: string;
  /** When to prefer this connector (`CapletCard.useWhen` of `caplets.<name>.inspect()`). */
  useWhen?: string;
  /** When to avoid this connector (`CapletCard.avoidWhen`). */
  avoidWhen?: string;
  /** Words to group and find it by (`CapletCard.tags`). */
  tags?: string[];
  /** Its tools; read again when `onToolsChanged` fires. */
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
  /** Resources, prompts, completions and readiness, for `caplets.<name>`. */
  handle?: ConnectorHandle;
  /** Subscribes to changes of `tools` (an MCP server's `list_changed`); returns an unsubscribe. */
  onToolsChanged?(listener: () => void): () => void;
}

/** One page of a listing. */
export interface Page<T> {
  /** The entries on this page. */
  items: T[];
  /** Present when more follow; pass it back as `cursor`. */
  nextCursor?: string;
  /** The backend had more than a page can carry and some were left out. */
  truncated?: boolean;
}

/** Whether a connector can serve calls now, as a value (never thrown). */
export interface ConnectorCheck {
  /** True when the connector can serve calls now. */
  ready: boolean;
  /** What is wrong when not ready (backend down, auth refused, …). */
  problems?: { code: string; message: string }[];
  /** Facts worth showing: server name and version, protocol, tool count, … */
  info?: Record<string, unknown>;
}

/** A resource a connector can read. */
export interface ResourceInfo {
  /** The resource's URI, for `readResource`. */
  uri: string;
  /** A short name for it. */
  name: string;
  /** What it holds. */
  description?: string;
  /** Its media type, when known. */
  mimeType?: string;
}

/** A parameterized resource (`file:///{path}`). */
export interface ResourceTemplateInfo {
  /** An RFC 6570 URI template; fill it in and read the result with `readResource`. */
  uriTemplate: string;
  /** A short name for it. */
  name: string;
  /** What its resources hold. */
  description?: string;
  /** The media type of its resources, when known. */
  mimeType?: string;
}

/** A prompt a connector offers. */
export interface PromptInfo {
  /** The prompt's name, for `getPrompt`. */
  name: string;
  /** What the prompt is for. */
  description?: string;
  /** The arguments it takes, and whether each is required. */
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/**
 * The non-tool side of a connector. Every method may throw a `CordonError` for an expected
 * failure (`connector_unavailable`, `not_found`, `invalid_input`, …); the runtime turns that into
 * `{ ok: false, error }` for the script. Absent methods are "not supported" for this connector.
 */
export interface ConnectorHandle {
  /** Whether calls can be served now; a down backend is `ready: false`, not a throw. */
  check(): Promise<ConnectorCheck>;
  /** One page of the resources it offers; pass `nextCursor` back as `cursor`. */
  resources?(cursor?: string): Promise<Page<ResourceInfo>>;
  /** One page of its resource templates; pass `nextCursor` back as `cursor`. */
  resourceTemplates?(cursor?: string): Promise<Page<ResourceTemplateInfo>>;
  /** The resource's contents, in the documented shape (`{ contents: [{ uri, mimeType?, text? | blob? }] }`). */
  readResource?(uri: string): Promise<unknown>;
  /** One page of the prompts it offers; pass `nextCursor` back as `cursor`. */
  prompts?(cursor?: string): Promise<Page<PromptInfo>>;
  /** The prompt's messages (`{ description?, messages: [{ role, content }] }`). */
  getPrompt?(name: string, args?: Record<string, string>): Promise<unknown>;
  /**
   * Completion values for an argument of a prompt or a resource template (`resourceTemplate`
   * as `caplets.<id>.complete()` documents it; `resource` is the same, MCP's name).
   */
  complete?(
    ref:
      | { type: "prompt"; name: string }
      | { type: "resourceTemplate"; uri: string }
      | { type: "resource"; uri: string },
    argument: { name: string; value: string },
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
}

/** A connector as listed for callers (no functions). */
export interface ConnectorInfo {
  /** The global a script calls it by. */
  name: string;
  /** What the connector is for. */
  description: string;
  /** Its tools, as data. */
  tools: ToolInfo[];
}

/** A tool as listed for callers. */
export interface ToolInfo {
  /** The property the script calls it by on its connector. */
  name: string;
  /** What the tool does. */
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: JsonSchema;
  /** JSON Schema of the result, when the tool declares one. */
  outputSchema?: JsonSchema;
  /** How it behaves: read-only, destructive, needs approval, replay, who resolves it. */
  annotations: ToolAnnotations;
}
