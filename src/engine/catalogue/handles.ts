/**
 * The host side of `caplets.<id>` (and `codemode.connector(id)`, the same
 * handle): one set of methods for every connector, whatever made it (zod,
 * MCP, OpenAPI, built-in). Every method answers the guest `{ ok: true, data }
 * | { ok: false, error }`; an expected failure (backend down, unknown tool,
 * unsupported method) is a value, never a thrown error. The guest hands
 * listings and `inspect()` to the script bare, as documented (a listing of
 * what a backend does not offer is an empty page). `callTool` is not here:
 * the guest sends it as a tool call, so it is authorized and journaled.
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import type { Connector, ConnectorCheck, ConnectorHandle, Page } from "../../connectors/types.ts";
import { CordonError, toErrorInfo } from "../../errors.ts";
import { HANDLE_METHODS, type HandleMethod, type HandleResult } from "../../sandbox/protocol.ts";
import type { Catalogue } from "./catalogue.ts";
import { completeArgs, promptArgs } from "./handle_args.ts";
import { toolDescriptor, toolSummary } from "./handle_descriptor.ts";
import {
  backendPage,
  collect,
  DEFAULT_HANDLE_HITS,
  MAX_SEARCH_PAGES,
  pageInput,
  pageOf,
  rank,
} from "./handle_pages.ts";

function str(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") {
    throw new CordonError("invalid_input", `${what} must be a non-empty string`);
  }
  return value;
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

/** A listing of what a backend does not offer is an empty page, as documented. */
async function orEmpty<T>(list: () => Promise<Page<T>>): Promise<Page<T>> {
  try {
    return await list();
  } catch (err) {
    if (err instanceof CordonError && err.code === "not_supported") return { items: [] };
    throw err;
  }
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
    if (method === "check") return checkResult(data as ConnectorCheck);
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
  switch (method) {
    case "inspect":
      return capletCard(id, connector);
    case "check":
      return handle
        ? await handle.check()
        : { ready: true, info: { tools: connector.tools.length } };
    case "tools":
      return pageOf(connector.tools.map(toolSummary), pageInput(args[0]));
    case "searchTools": {
      const query = typeof args[0] === "string" ? args[0] : "";
      const request = pageInput(args[1], DEFAULT_HANDLE_HITS);
      const hits: string[] = [];
      let cursor: string | undefined;
      // The catalogue ranks every connector's tools; keep this connector's, in order.
      for (let i = 0; i < MAX_SEARCH_PAGES; i++) {
        const page = await catalogue.search(query, { limit: 100, cursor, namespace });
        for (const h of page.items) {
          if (h.kind === "tool" && h.connector === id) hits.push(h.name);
        }
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      const byName = new Map(connector.tools.map((t) => [t.name, t]));
      const found = hits.flatMap((name) =>
        byName.has(name) ? [toolSummary(byName.get(name)!)] : []
      );
      return pageOf(found, request);
    }
    case "describeTool": {
      const name = str(args[0], "The tool name");
      const tool = registry.tool(id, name);
      if (!tool) {
        throw new CordonError(
          "tool_not_found",
          `${id} has no tool "${name}"; use searchTools() or tools() to find one`,
          { details: { path: `${id}.${name}` } },
        );
      }
      return toolDescriptor(catalogue, id, tool, namespace);
    }
    case "resources":
      return await orEmpty(() => backendPage(need(handle, "resources", id), pageInput(args[0])));
    case "resourceTemplates":
      return await orEmpty(() =>
        backendPage(need(handle, "resourceTemplates", id), pageInput(args[0]))
      );
    case "prompts":
      return await orEmpty(() => backendPage(need(handle, "prompts", id), pageInput(args[0])));
    case "readResource": {
      const uri = str(args[0], "The resource URI");
      return await need(handle, "readResource", id)(uri);
    }
    case "getPrompt": {
      // The input is checked first: a bad one is the script's error whatever the backend offers.
      const [name, values] = [str(args[0], "The prompt name"), promptArgs(args[1])];
      return await need(handle, "getPrompt", id)(name, values);
    }
    case "complete": {
      const { ref, argument } = completeArgs(args);
      return await need(handle, "complete", id)(ref, argument);
    }
    case "searchResources": {
      const request = pageInput(args[1], DEFAULT_HANDLE_HITS);
      return await orEmpty(async () => {
        const all = await collect(need(handle, "resources", id));
        const hits = rank(all.items, String(args[0] ?? ""), (r) => r.uri);
        return truncatedIf(pageOf(hits, request), all.truncated);
      });
    }
    case "searchPrompts": {
      const request = pageInput(args[1], DEFAULT_HANDLE_HITS);
      return await orEmpty(async () => {
        const all = await collect(need(handle, "prompts", id));
        const hits = rank(all.items, String(args[0] ?? ""), (p) => p.name);
        return truncatedIf(pageOf(hits, request), all.truncated);
      });
    }
  }
}

/** A backend that is not ready is `ok: false`, as the documented guard recipe expects. */
function checkResult(check: ConnectorCheck): HandleResult {
  if (check.ready) return { ok: true, data: check };
  const first = check.problems?.[0];
  const message = check.problems?.map((p) => p.message).join("; ") || "The backend is not ready";
  return {
    ok: false,
    error: { code: first?.code ?? "connector_unavailable", message, details: check },
  };
}

function truncatedIf<T>(page: Page<T>, truncated: boolean | undefined): Page<T> {
  return truncated ? { ...page, truncated: true } : page;
}

/** The documented `CapletCard`: who the connector is; `backend` says what it offers. */
function capletCard(id: string, connector: Connector): Record<string, unknown> {
  const handle = connector.handle;
  const card: Record<string, unknown> = {
    id,
    name: connector.name,
    description: connector.description,
  };
  if (connector.useWhen !== undefined) card.useWhen = connector.useWhen;
  if (connector.avoidWhen !== undefined) card.avoidWhen = connector.avoidWhen;
  if (connector.tags !== undefined) card.tags = [...connector.tags];
  const offers = (m: keyof ConnectorHandle) => typeof handle?.[m] === "function";
  card.backend = {
    tools: connector.tools.length,
    supports: HANDLE_METHODS.filter((m) => {
      if (m === "searchResources") return offers("resources");
      if (m === "searchPrompts") return offers("prompts");
      if (["inspect", "check", "tools", "searchTools", "describeTool", "callTool"].includes(m)) {
        return true;
      }
      return offers(m as keyof ConnectorHandle);
    }),
  };
  return card;
}
