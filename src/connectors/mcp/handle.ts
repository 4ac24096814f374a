/**
 * The non-tool side of an MCP connector (`caplets.<name>`):
 * readiness, resources, resource templates, prompts and completions,
 * mapped one to one onto the SDK's requests. Listings come a page at a
 * time as the server pages them. A server that does not declare the
 * capability answers `not_supported` without a round trip.
 *
 * @module
 */
import { CordonError, toErrorInfo } from "../../errors.ts";
import type {
  ConnectorCheck,
  ConnectorHandle,
  Page,
  PromptInfo,
  ResourceInfo,
  ResourceTemplateInfo,
} from "../types.ts";
import type { ServerCapabilities } from "./sdk.ts";
import type { McpSession } from "./session.ts";

/** What the handle needs from its connector. */
export interface McpHandleHost {
  readonly name: string;
  /** Per-request time limit, in ms. */
  readonly callTimeoutMs: number;
  /**
   * Runs `request` on the live session (connecting first when there is
   * none), retrying once on a new session if the old one was lost under
   * it: every request the handle makes only reads. Failures come back as
   * Cordon errors named after `what`.
   */
  run<T>(what: string, request: (session: McpSession) => Promise<T>): Promise<T>;
  /** Facts for `check()` that only the connector knows (tool count, target, …). */
  checkInfo(): Record<string, unknown>;
}

/** A completion reference, as `ConnectorHandle.complete` takes it. */
type CompletionRef = Parameters<NonNullable<ConnectorHandle["complete"]>>[0];

/** A request under the call time limit. */
type Send<T> = (session: McpSession, options: { timeout: number }) => Promise<T>;

/** `ConnectorHandle` for an MCP server. */
export class McpHandle implements ConnectorHandle {
  readonly #host: McpHandleHost;

  constructor(host: McpHandleHost) {
    this.#host = host;
  }

  /** Connects if needed and pings the server; problems come back as values. */
  async check(): Promise<ConnectorCheck> {
    try {
      const session = await this.#run("check", undefined, async (session, options) => {
        await session.client.ping(options);
        return session;
      });
      const { server, protocolVersion } = session.info;
      return {
        ready: true,
        info: {
          ...this.#host.checkInfo(),
          server: server?.name,
          serverVersion: server?.version,
          protocolVersion,
        },
      };
    } catch (err) {
      const { code, message } = toErrorInfo(err, "connector_unavailable");
      return { ready: false, problems: [{ code, message }], info: this.#host.checkInfo() };
    }
  }

  async resources(cursor?: string): Promise<Page<ResourceInfo>> {
    const result = await this.#run(
      "resources",
      "resources",
      (s, opts) => s.client.listResources(cursor === undefined ? undefined : { cursor }, opts),
    );
    return page(result.resources.map(pick(["uri", "name", "description", "mimeType"])), result);
  }

  async resourceTemplates(cursor?: string): Promise<Page<ResourceTemplateInfo>> {
    const result = await this.#run(
      "resourceTemplates",
      "resources",
      (s, opts) =>
        s.client.listResourceTemplates(cursor === undefined ? undefined : { cursor }, opts),
    );
    return page(
      result.resourceTemplates.map(pick(["uriTemplate", "name", "description", "mimeType"])),
      result,
    );
  }

  async readResource(uri: string): Promise<unknown> {
    const result = await this.#run(
      `readResource(${JSON.stringify(uri)})`,
      "resources",
      (s, opts) => s.client.readResource({ uri }, opts),
    );
    return { contents: result.contents };
  }

  async prompts(cursor?: string): Promise<Page<PromptInfo>> {
    const result = await this.#run(
      "prompts",
      "prompts",
      (s, opts) => s.client.listPrompts(cursor === undefined ? undefined : { cursor }, opts),
    );
    return page(result.prompts.map(pick(["name", "description", "arguments"])), result);
  }

  async getPrompt(name: string, args?: Record<string, string>): Promise<unknown> {
    const result = await this.#run(
      `getPrompt(${JSON.stringify(name)})`,
      "prompts",
      (s, opts) => s.client.getPrompt(args ? { name, arguments: args } : { name }, opts),
    );
    const prompt: { description?: string; messages: unknown[] } = { messages: result.messages };
    if (result.description !== undefined) prompt.description = result.description;
    return prompt;
  }

  async complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
  ): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
    // MCP names a resource template's reference "ref/resource".
    const mcpRef = ref.type === "prompt"
      ? { type: "ref/prompt" as const, name: ref.name }
      : { type: "ref/resource" as const, uri: ref.uri };
    const result = await this.#run(
      "complete",
      "completions",
      (s, opts) => s.client.complete({ ref: mcpRef, argument }, opts),
    );
    const { values, total, hasMore } = result.completion;
    const out: { values: string[]; total?: number; hasMore?: boolean } = { values };
    if (total !== undefined) out.total = total;
    if (hasMore !== undefined) out.hasMore = hasMore;
    return out;
  }

  /** One request, once the server is known to declare `capability` (else `not_supported`). */
  #run<T>(
    what: string,
    capability: keyof ServerCapabilities | undefined,
    send: Send<T>,
  ): Promise<T> {
    const name = this.#host.name;
    return this.#host.run(`${name}.${what}`, (session) => {
      if (capability !== undefined && !session.info.capabilities[capability]) {
        throw new CordonError(
          "not_supported",
          `${name}.${what}: the MCP server does not offer ${String(capability)}`,
        );
      }
      return send(session, { timeout: this.#host.callTimeoutMs });
    });
  }
}

function page<T>(items: T[], result: { nextCursor?: string }): Page<T> {
  return result.nextCursor === undefined ? { items } : { items, nextCursor: result.nextCursor };
}

/** Keeps the listed fields that are present (the documented shape, nothing else). */
function pick<K extends string>(keys: readonly K[]) {
  return <T extends Partial<Record<K, unknown>>>(item: T) => {
    const out: Partial<Record<K, unknown>> = {};
    for (const key of keys) if (item[key] !== undefined) out[key] = item[key];
    return out as Pick<T, K & keyof T>;
  };
}
