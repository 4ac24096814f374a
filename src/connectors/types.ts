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
