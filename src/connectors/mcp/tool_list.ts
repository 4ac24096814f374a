/**
 * A connector's current tools: listed from its session, rebuilt from each
 * `tools/list` keeping the `Tool` objects (and names) of tools that did not
 * change, and announced to listeners when the list really changed.
 *
 * @module
 */
import type { Tool } from "../types.ts";
import type { McpApprovalOptions } from "./options.ts";
import type { McpToolDefinition } from "./sdk.ts";
import type { McpSession } from "./session.ts";
import {
  buildTool,
  isDirectlyCallable,
  listAllTools,
  type McpTool,
  type McpToolCall,
  ToolNames,
  toolSignature,
} from "./tools.ts";

/** Told the connector's new tool list whenever it changes. */
export type ToolsChangedListener = (tools: readonly Tool[]) => void;

/** The tools of one connector, across sessions. */
export class ToolList {
  readonly #names = new ToolNames();
  readonly #listeners = new Set<ToolsChangedListener>();
  readonly #approval?: McpApprovalOptions;
  readonly #call: McpToolCall;
  #tools: readonly McpTool[] = [];
  #byMcpName = new Map<string, { signature: string; tool: McpTool }>();
  #refreshing?: Promise<void>;
  #refreshAgain = false;

  constructor(approval: McpApprovalOptions | undefined, call: McpToolCall) {
    if (approval !== undefined) this.#approval = approval;
    this.#call = call;
  }

  /** The current tools (a frozen array, replaced on change). */
  get tools(): readonly McpTool[] {
    return this.#tools;
  }

  /** The script-facing name of an MCP tool. */
  nameFor(mcpName: string): string {
    return this.#names.nameFor(mcpName);
  }

  /** Adds a listener; returns the function that removes it. */
  listen(listener: ToolsChangedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Drops every listener (the connector closed). */
  clearListeners(): void {
    this.#listeners.clear();
  }

  /** Takes a new listing; returns true (and tells the listeners) when the tools changed. */
  update(definitions: readonly McpToolDefinition[]): boolean {
    const next: McpTool[] = [];
    const byMcpName = new Map<string, { signature: string; tool: McpTool }>();
    for (const definition of definitions) {
      if (!isDirectlyCallable(definition) || byMcpName.has(definition.name)) continue;
      const signature = toolSignature(definition);
      const previous = this.#byMcpName.get(definition.name);
      const tool = previous?.signature === signature
        ? previous.tool
        : buildTool(definition, this.nameFor(definition.name), this.#approval, this.#call);
      next.push(tool);
      byMcpName.set(definition.name, { signature, tool });
    }
    const changed = next.length !== this.#tools.length ||
      next.some((tool, i) => tool !== this.#tools[i]);
    this.#tools = Object.freeze(next);
    this.#byMcpName = byMcpName;
    if (changed) this.#notify();
    return changed;
  }

  /**
   * Lists the tools of `current()` and takes them. Requests while a listing
   * runs share it plus one more pass; a listing from a session that was
   * replaced meanwhile is dropped and done again on the new one. Fails only
   * when the current session's listing fails.
   */
  refresh(
    current: () => McpSession | undefined,
    options: { timeout: number; signal?: AbortSignal },
  ): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    const refreshing = (async () => {
      try {
        do {
          this.#refreshAgain = false;
          const session = current();
          if (!session) return;
          try {
            const definitions = await listAllTools(session.client, options);
            if (session === current()) this.update(definitions);
            else this.#refreshAgain = true;
          } catch (err) {
            if (session === current()) throw err;
            this.#refreshAgain = true;
          }
        } while (this.#refreshAgain);
      } finally {
        this.#refreshing = undefined;
      }
    })();
    this.#refreshing = refreshing;
    return refreshing;
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(this.#tools);
      } catch (err) {
        // A listener's bug is the host's to see, not a reason to stop telling the others.
        reportError(err);
      }
    }
  }
}
