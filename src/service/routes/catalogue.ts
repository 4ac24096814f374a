/**
 * Discovery and snippet routes, connectors, logs and health.
 *
 * @module
 */
import { z } from "zod";
import type { RunSnippetOptions } from "../../engine/discovery/api.ts";
import { SNIPPET_NAME } from "../../engine/snippets/snippets.ts";
import type { ServiceDeps } from "./deps.ts";
import { fail } from "../http/http.ts";
import { type Route, route } from "./route.ts";
import { runSettings, startRun } from "./executions.ts";
import { isAdmin, namespaceFor } from "../access/scope.ts";

const namespace = runSettings.namespace;
const snippetName = z.object({ name: z.string().regex(SNIPPET_NAME, "a snippet name") });

/** The catalogue routes. */
export function catalogueRoutes(deps: ServiceDeps): Route[] {
  const { runtime } = deps;
  return [
    route({
      method: "get",
      path: "/v1/snippets",
      summary: "List snippets",
      tag: "snippets",
      access: "read",
      query: z.object({ namespace }).strict(),
      responses: { 200: "The newest version of each snippet" },
      handle: async ({ query, principal }) => ({
        items: await runtime.snippets({ namespace: namespaceFor(principal, query.namespace) }),
      }),
    }),
    route({
      method: "post",
      path: "/v1/snippets",
      summary: "Save an execution's code as a snippet",
      tag: "snippets",
      access: "execute",
      body: z.object({
        name: z.string().regex(SNIPPET_NAME, "a snippet name"),
        executionId: z.string().min(1).max(200),
        description: z.string().max(2_000).optional(),
        inputSchema: z.record(z.string(), z.unknown()).optional(),
      }).strict(),
      responses: { 201: "Saved (a new version if the name existed)", 409: "Not completed" },
      handle: async ({ body, principal, c }) => {
        const d = await runtime.execution(body.executionId);
        if (!d || (!isAdmin(principal) && d.namespace !== principal.namespace)) {
          fail("execution_not_found", `There is no execution ${body.executionId}`);
        }
        const { name, ...options } = body;
        return c.json(await runtime.saveSnippet(name, options), 201);
      },
    }),
    route({
      method: "get",
      path: "/v1/snippets/:name",
      summary: "Read a snippet with its code and versions",
      tag: "snippets",
      access: "read",
      params: snippetName,
      query: z.object({ namespace }).strict(),
      responses: { 200: "The snippet" },
      handle: async ({ params, query, principal }) => {
        const ns = namespaceFor(principal, query.namespace);
        const s = await runtime.snippet(params.name, { namespace: ns });
        if (!s) fail("snippet_not_found", `There is no snippet "${params.name}"`);
        return s;
      },
    }),
    route({
      method: "delete",
      path: "/v1/snippets/:name",
      summary: "Delete a snippet (every version)",
      tag: "snippets",
      access: "execute",
      params: snippetName,
      query: z.object({ namespace }).strict(),
      responses: { 200: "Deleted" },
      handle: async ({ params, query, principal }) => {
        const ns = namespaceFor(principal, query.namespace);
        if (!(await runtime.deleteSnippet(params.name, { namespace: ns }))) {
          fail("snippet_not_found", `There is no snippet "${params.name}"`);
        }
        return { deleted: true };
      },
    }),
    route({
      method: "post",
      path: "/v1/snippets/:name/run",
      summary: "Run a snippet (a W3C traceparent header sets meta.traceId)",
      tag: "snippets",
      access: "execute",
      params: snippetName,
      body: z.object({ input: z.unknown().optional(), ...runSettings }).strict(),
      responses: { 200: "The outcome", 202: "Running (wait: false)" },
      handle: ({ params, body, principal, started, c }) => {
        const { wait, input, namespace: ns, ...rest } = body;
        const options: RunSnippetOptions = { ...rest, namespace: namespaceFor(principal, ns) };
        const traceparent = c.req.header("traceparent");
        if (traceparent !== undefined) options.traceparent = traceparent;
        return startRun(
          deps,
          (hooks) => runtime.runSnippet(params.name, input, options, hooks),
          wait,
          started,
          options.namespace ?? principal.namespace,
        );
      },
    }),
    route({
      method: "get",
      path: "/v1/search",
      summary: "Search tools and snippets",
      tag: "discovery",
      access: "read",
      query: z.object({
        q: z.string().max(1_000).default(""),
        limit: z.coerce.number().int().min(1).max(100).optional(),
        cursor: z.string().max(256).optional(),
        namespace,
      }).strict(),
      responses: { 200: "Ranked hits with nextCursor" },
      handle: ({ query, principal }) =>
        runtime.search(query.q, {
          limit: query.limit,
          cursor: query.cursor,
          namespace: namespaceFor(principal, query.namespace),
        }),
    }),
    route({
      method: "get",
      path: "/v1/describe/:path",
      summary: "Describe a tool or snippet",
      tag: "discovery",
      access: "read",
      params: z.object({ path: z.string().min(1).max(300) }),
      query: z.object({ namespace }).strict(),
      responses: { 200: "Signature, types, examples", 404: "No such tool or snippet" },
      handle: ({ params, query, principal }) =>
        runtime.describe(params.path, { namespace: namespaceFor(principal, query.namespace) }),
    }),
    route({
      method: "get",
      path: "/v1/types",
      summary: "TypeScript declarations of every tool",
      tag: "discovery",
      access: "read",
      query: z.object({ format: z.enum(["json", "ts"]).optional() }).strict(),
      responses: { 200: "{ declarations, declarationHash }, or the .d.ts text (format=ts)" },
      handle: ({ query, c }) => {
        const t = runtime.types();
        if (query.format !== "ts") return t;
        return c.body(t.declarations, 200, {
          "content-type": "text/plain; charset=utf-8",
          etag: `"${t.declarationHash}"`,
        });
      },
    }),
    route({
      method: "get",
      path: "/v1/connectors",
      summary: "List connectors and their tools",
      tag: "connectors",
      access: "read",
      responses: { 200: "Connectors with their tools' schemas and annotations" },
      handle: () => ({ items: runtime.connectors() }),
    }),
    route({
      method: "get",
      path: "/v1/connectors/:id/check",
      summary: "Check that a connector can serve calls",
      tag: "connectors",
      access: "read",
      params: z.object({ id: z.string().min(1).max(128) }),
      responses: { 200: "{ ready, problems?, info? }", 404: "No such connector" },
      handle: ({ params }) => runtime.checkConnector(params.id),
    }),
    route({
      method: "get",
      path: "/v1/logs/:logRef",
      summary: "Read an execution's stored console lines",
      tag: "executions",
      access: "read",
      params: z.object({ logRef: z.string().min(1).max(200) }),
      query: z.object({
        cursor: z.string().max(20).optional(),
        limit: z.coerce.number().int().min(1).max(500).optional(),
      }).strict(),
      responses: { 200: "A page of lines with nextCursor", 404: "Unknown logRef" },
      handle: async ({ params, query, principal }) => {
        const namespace = isAdmin(principal) ? undefined : principal.namespace;
        return await runtime.readLogs({ logRef: params.logRef, ...query, namespace });
      },
    }),
    route({
      method: "get",
      path: "/healthz",
      summary: "Health",
      tag: "service",
      access: "public",
      responses: { 200: "Up", 503: "Shutting down, or the store lost its database" },
      handle: ({ c }) => {
        const caps = runtime.capabilities();
        // A store that lost its file must not look healthy: a load balancer stops sending
        // work that would be answered and then lost.
        const health = deps.shutdown.aborted
          ? { ok: false as const, reason: "the service is shutting down" }
          : runtime.health();
        return c.json({
          ok: health.ok,
          ...(health.ok ? {} : { reason: health.reason }),
          version: deps.version,
          uptimeMs: Date.now() - deps.startedAt,
          memoryGuard: caps.memoryGuard.kind,
          pool: caps.pool,
          load: deps.gate.load,
          declarationHash: caps.declarationHash,
        }, health.ok ? 200 : 503);
      },
    }),
  ];
}
