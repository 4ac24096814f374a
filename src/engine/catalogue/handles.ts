/**
 * The host side of `codemode.connector(id)`: one set of methods for every
 * connector, whatever made it (zod, MCP, OpenAPI, built-in). Every method
 * answers `{ ok: true, data } | { ok: false, error }`; an expected failure
 * (backend down, unknown tool, unsupported method) is a value, never a
 * thrown error. `callTool` is not here: the guest sends it as a tool call,
 * so it is authorized and journaled like any other.
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { SearchIndex } from "../../connectors/search.ts";
import type { ConnectorHandle, Page } from "../../connectors/types.ts";
import { CordonError, toErrorInfo } from "../../errors.ts";
import { HANDLE_METHODS, type HandleMethod, type HandleResult } from "../../sandbox/protocol.ts";
import type { Catalogue } from "./catalogue.ts";

/** Items per page of a tool listing. */
export const HANDLE_PAGE_SIZE = 50;
/** Pages read from a backend to search its resources or prompts; enough for real servers. */
export const MAX_SEARCH_PAGES = 20;
/** Hits returned by `searchResources` / `searchPrompts` at most. */
export const MAX_HANDLE_HITS = 20;

function str(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") {
    throw new CordonError("invalid_input", `${what} must be a non-empty string`);
  }
  return value;
}

function offsetOf(cursor: unknown): number {
  if (cursor === undefined || cursor === null) return 0;
  const n = Number(cursor);
  if (typeof cursor !== "string" || !Number.isSafeInteger(n) || n < 0) {
    throw new CordonError("invalid_input", "Unknown cursor; pass back a nextCursor you were given");
  }
  return n;
}

function pageOf<T>(all: T[], cursor: unknown, size = HANDLE_PAGE_SIZE): Page<T> {
  const start = offsetOf(cursor);
  const items = all.slice(start, start + size);
  return start + size < all.length ? { items, nextCursor: String(start + size) } : { items };
}

async function collect<T>(list: (cursor?: string) => Promise<Page<T>>): Promise<Page<T>> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_SEARCH_PAGES; i++) {
    const page = await list(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return { items };
  }
  return { items, truncated: true };
}

/** Ranks listed items (resources, prompts) for a query with the same engine as tool search. */
function rank<T extends { name: string; description?: string }>(
  items: T[],
  query: string,
  key: (item: T) => string,
): T[] {
  const index = new SearchIndex(items.map((item) => ({
    kind: "tool" as const,
    path: key(item),
    name: item.name,
    description: `${item.description ?? ""} ${key(item)}`,
  })));
  const byKey = new Map(items.map((item) => [key(item), item]));
  return index.search(query, { limit: MAX_HANDLE_HITS }).items.map((h) => byKey.get(h.path)!);
}

function need<K extends keyof ConnectorHandle>(
  handle: ConnectorHandle | undefined,
  method: K,
  connector: string,
): NonNullable<ConnectorHandle[K]> {
  const fn = handle?.[method];
  if (typeof fn !== "function") {
    throw new CordonError("not_supported", `${connector} does not offer ${method}`);
  }
  return fn.bind(handle) as NonNullable<ConnectorHandle[K]>;
}

/**
 * Handle methods that reach the connector's backend (an MCP server, an API): they take one of
 * the connector's concurrency permits, like a tool call, so a script cannot go around the bound.
 */
const BACKEND_METHODS: ReadonlySet<HandleMethod> = new Set<HandleMethod>([
  "check",
  "resources",
  "resourceTemplates",
  "readResource",
  "prompts",
  "getPrompt",
  "complete",
  "searchResources",
  "searchPrompts",
]);

/** Answers one handle method for a script. */
export async function handleRequest(
  registry: ConnectorRegistry,
  catalogue: Catalogue,
  params: unknown,
  /** The calling execution's namespace: searches and descriptions answer as it sees them. */
  namespace?: string,
  signal?: AbortSignal,
): Promise<HandleResult> {
  try {
    const p = (params ?? {}) as { connector?: unknown; method?: unknown; args?: unknown };
    const id = str(p.connector, "The connector id");
    const method = p.method as HandleMethod;
    if (!HANDLE_METHODS.includes(method) || method === "callTool") {
      throw new CordonError("invalid_request", `Unknown handle method ${String(p.method)}`);
    }
    const args = Array.isArray(p.args) ? p.args : [];
    const connector = registry.connector(id);
    if (!connector) {
      throw new CordonError(
        "connector_not_found",
        `There is no connector "${id}"; known: ${registry.names().join(", ") || "none"}`,
      );
    }
    const data = BACKEND_METHODS.has(method)
      ? await registry.withPermit(
        id,
        () => dispatch(method, args, id, registry, catalogue, namespace),
        signal,
        namespace,
      )
      : await dispatch(method, args, id, registry, catalogue, namespace);
    return { ok: true, data };
  } catch (err) {
    const info = toErrorInfo(err, "tool_error");
    return {
      ok: false,
      error: {
        code: info.code,
        message: info.message,
        ...(info.details ? { details: info.details } : {}),
      },
    };
  }
}

async function dispatch(
  method: Exclude<HandleMethod, "callTool">,
  args: unknown[],
  id: string,
  registry: ConnectorRegistry,
  catalogue: Catalogue,
  namespace: string | undefined,
): Promise<unknown> {
  const connector = registry.connector(id)!;
  const handle = connector.handle;
  const tools = () =>
    connector.tools.map((t) => ({
      name: t.name,
      description: t.description,
      annotations: t.annotations,
    }));
  switch (method) {
    case "inspect":
      return {
        id,
        description: connector.description,
        tools: connector.tools.length,
        supports: HANDLE_METHODS.filter((m) => {
          if (
            ["inspect", "check", "tools", "searchTools", "describeTool", "callTool"].includes(m)
          ) {
            return true;
          }
          const base = m === "searchResources"
            ? "resources"
            : m === "searchPrompts"
            ? "prompts"
            : m;
          return typeof handle?.[base as keyof ConnectorHandle] === "function";
        }),
      };
    case "check":
      return handle
        ? await handle.check()
        : { ready: true, info: { tools: connector.tools.length } };
    case "tools":
      return pageOf(tools(), args[0]);
    case "searchTools": {
      const query = typeof args[0] === "string" ? args[0] : "";
      const names = new Set(connector.tools.map((t) => t.name));
      const hits: unknown[] = [];
      let cursor: string | undefined;
      // The catalogue ranks every connector's tools; keep this connector's, in order.
      for (let i = 0; i < MAX_SEARCH_PAGES; i++) {
        const page = catalogue.search(query, { limit: 100, cursor, namespace });
        for (const h of page.items) {
          if (h.kind === "tool" && h.connector === id && names.has(h.name)) {
            hits.push({ name: h.name, description: h.description, score: h.score });
          }
        }
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      const options = (args[1] ?? {}) as { limit?: unknown; cursor?: unknown };
      const limit = Number.isSafeInteger(options.limit) ? Math.max(1, options.limit as number) : 10;
      return pageOf(hits, options.cursor, limit);
    }
    case "describeTool":
      return catalogue.describe(`${id}.${str(args[0], "The tool name")}`, undefined, namespace);
    case "resources":
      return await need(handle, "resources", id)(args[0] as string | undefined);
    case "resourceTemplates":
      return await need(handle, "resourceTemplates", id)(args[0] as string | undefined);
    case "readResource":
      return await need(handle, "readResource", id)(str(args[0], "The resource URI"));
    case "prompts":
      return await need(handle, "prompts", id)(args[0] as string | undefined);
    case "getPrompt":
      return await need(handle, "getPrompt", id)(
        str(args[0], "The prompt name"),
        (args[1] ?? undefined) as Record<string, string> | undefined,
      );
    case "complete":
      return await need(handle, "complete", id)(
        args[0] as Parameters<NonNullable<ConnectorHandle["complete"]>>[0],
        args[1] as { name: string; value: string },
      );
    case "searchResources": {
      const all = await collect(need(handle, "resources", id));
      return {
        items: rank(all.items, String(args[0] ?? ""), (r) => r.uri),
        truncated: all.truncated ?? false,
      };
    }
    case "searchPrompts": {
      const all = await collect(need(handle, "prompts", id));
      return {
        items: rank(all.items, String(args[0] ?? ""), (p) => p.name),
        truncated: all.truncated ?? false,
      };
    }
  }
}
