/**
 * MCP tool definitions as Cordon `Tool`s: the server's names and JSON
 * Schemas as they are, annotations mapped to Cordon's.
 *
 * A tool keeps its MCP name (`get-sum`, called as `everything["get-sum"]`)
 * whenever Cordon's registry accepts it: MCP's own character set,
 * `[A-Za-z0-9_.-]`, at most 128. A name outside it (a space, a slash) gets
 * `_` for each bad character, and a clash a suffix (`_2`). A name, once
 * given, stays with its MCP tool for the connector's life, across
 * reconnects and list changes. Tools that only run as MCP tasks
 * (`execution.taskSupport: "required"`) are left out: Cordon calls tools
 * directly.
 *
 * @module
 */
import type { JsonSchema, Tool, ToolAnnotations, ToolContext } from "../types.ts";
import type { McpApprovalOptions } from "./options.ts";
import type { Client, McpToolDefinition } from "./sdk.ts";

export type { McpToolDefinition };

/**
 * Pages of a listing read before giving up: a server that keeps returning
 * cursors is broken, and 100 pages is far more than any real server sends.
 */
export const MAX_LIST_PAGES = 100;

/** Longest tool name Cordon's registry accepts (MCP's own limit). */
const MAX_NAME_LENGTH = 128;

/** A tool name Cordon's registry accepts (the same pattern as `registry.ts`). */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** Names a tool may not take: they would break the connector's global object. */
const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor"]);

/** A Cordon tool backed by an MCP tool. */
export interface McpTool extends Tool {
  /** The tool's name on the server. */
  readonly mcpName: string;
  /** Calls the tool on the server (see `connector.ts` for results and errors). */
  execute(args: unknown, context: ToolContext): Promise<unknown>;
}

/** Runs an MCP tool by its server-side name. */
export type McpToolCall = (
  mcpName: string,
  args: unknown,
  context: ToolContext,
) => Promise<unknown>;

/** Gives each MCP tool name a stable identifier-safe name. */
export class ToolNames {
  readonly #byMcpName = new Map<string, string>();
  readonly #taken = new Set<string>();

  /** The Cordon name for `mcpName`: the same one every time. */
  nameFor(mcpName: string): string {
    const known = this.#byMcpName.get(mcpName);
    if (known) return known;
    let base = mcpName;
    if (!TOOL_NAME_PATTERN.test(base) || RESERVED_TOOL_NAMES.has(base)) {
      base = base.replace(/[^A-Za-z0-9_.-]/g, "_");
      if (!/^[A-Za-z0-9_]/.test(base)) base = `_${base}`;
      if (RESERVED_TOOL_NAMES.has(base)) base = `${base}_`;
      base = base.slice(0, MAX_NAME_LENGTH);
    }
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
    }
    this.#byMcpName.set(mcpName, name);
    this.#taken.add(name);
    return name;
  }
}

/** Whether a tool can be called with a plain `tools/call`. */
export function isDirectlyCallable(definition: McpToolDefinition): boolean {
  return definition.execution?.taskSupport !== "required";
}

/** Cordon annotations from MCP hints and the host's approval policy. */
export function toolAnnotations(
  definition: McpToolDefinition,
  approval: McpApprovalOptions | undefined,
): ToolAnnotations {
  const hints = definition.annotations ?? {};
  const annotations: ToolAnnotations = { resolution: "host" };
  if (typeof hints.readOnlyHint === "boolean") annotations.readOnly = hints.readOnlyHint;
  if (typeof hints.destructiveHint === "boolean") annotations.destructive = hints.destructiveHint;
  // The MCP spec's defaults: readOnlyHint false, destructiveHint true.
  const destructive = hints.readOnlyHint !== true && hints.destructiveHint !== false;
  if (approval?.all || (approval?.destructive && destructive)) annotations.requiresApproval = true;
  return annotations;
}

/** What identifies a tool's version: a changed signature is a changed tool. */
export function toolSignature(definition: McpToolDefinition): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = definition;
  return JSON.stringify([name, title, description, inputSchema, outputSchema, annotations]);
}

/** One Cordon tool for one MCP tool; `call` does the work. */
export function buildTool(
  definition: McpToolDefinition,
  name: string,
  approval: McpApprovalOptions | undefined,
  call: McpToolCall,
): McpTool {
  const mcpName = definition.name;
  const tool: McpTool = {
    name,
    mcpName,
    description: definition.description ?? definition.title ?? "",
    inputSchema: definition.inputSchema as JsonSchema,
    annotations: toolAnnotations(definition, approval),
    execute: (args, context) => call(mcpName, args, context),
  };
  if (definition.outputSchema) tool.outputSchema = definition.outputSchema as JsonSchema;
  if (typeof definition.title === "string") tool.title = definition.title;
  return tool;
}

/** Every tool the server lists, following cursors. */
export async function listAllTools(
  client: Client,
  options: { signal?: AbortSignal; timeout: number },
): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error(`the server listed more than ${MAX_LIST_PAGES} pages of tools`);
}
