/**
 * One table of routes drives both the server and its OpenAPI document: each
 * route names its zod schemas for path parameters, query and body, the
 * access it needs, and its answers. A request is checked against those
 * schemas before its handler runs, so the document cannot drift from what
 * the server accepts.
 *
 * @module
 */
import { CONSOLE_OPERATION, MCP_OPERATION } from "./mcp_operation.ts";
import type { Context } from "hono";
import { z } from "zod";
import { CordonError } from "../../errors.ts";
import { fail, jsonResponse } from "../http/http.ts";
import { Idempotency, MAX_IDEMPOTENCY_KEY_CHARS } from "../requests/idempotency.ts";
import type { Principal, Scope } from "../access/keys.ts";

/** Who may call a route: anyone, any key, or a key with a scope (`admin` has every scope). */
export type Access = "public" | "read" | Scope;

/** What a handler receives: validated input and the caller. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  c: Context;
  /** Tells the request's idempotency key which execution it started (POSTs that run code). */
  started?: (executionId: string) => void;
}

/** One route. */
export interface Route {
  method: "get" | "post" | "put" | "delete";
  /** Hono syntax: `/v1/executions/:id`. */
  path: string;
  summary: string;
  tag: string;
  access: Access;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The body is raw bytes of any type, read by the handler itself (no `body` schema then). */
  rawBody?: boolean;
  /** Status → description (the error answers are added for every route). */
  responses: Record<number, string>;
  /** Answers with a Response, or with a value sent as JSON (200). */
  handle(input: RouteInput<unknown, unknown, unknown>): unknown;
}

/** The query schema of a route that takes no query parameters. */
const NO_QUERY = z.object({}).strict();

/** Defines a route with its handler typed from its schemas. */
export function route<
  P extends z.ZodType = z.ZodObject<Record<string, never>>,
  Q extends z.ZodType = z.ZodObject<Record<string, never>>,
  B extends z.ZodType = z.ZodUndefined,
>(spec: {
  method: Route["method"];
  path: string;
  summary: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  rawBody?: boolean;
  responses: Record<number, string>;
  handle(input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>): unknown;
}): Route {
  // Unknown query parameters are refused on every route, so a typo or a probe never passes
  // silently: a route without a query schema takes none, and every query schema is strict.
  const query = spec.query instanceof z.ZodObject ? spec.query.strict() : spec.query ?? NO_QUERY;
  return { ...spec, query } as unknown as Route;
}

/** True when `principal` may use a route needing `access`. */
export function allowed(principal: Principal | undefined, access: Access): boolean {
  if (access === "public") return true;
  if (!principal) return false;
  if (principal.scopes.has("admin")) return true;
  if (access === "read") return principal.scopes.size > 0;
  return principal.scopes.has(access);
}

function invalid(where: string, error: z.ZodError): never {
  const issues = error.issues.slice(0, 10).map((i) => ({
    path: [where, ...i.path.map(String)].join("."),
    message: i.message,
  }));
  fail(
    "invalid_request",
    `Invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    { issues },
  );
}

/** True for `application/json` and `application/<x>+json`, with or without parameters. */
export function isJsonType(type: string | undefined): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type ?? "");
}

async function readBody(c: Context): Promise<{ text: string; value: unknown }> {
  // The JSON type is required even without a body: a browser can send a bodiless or form POST
  // cross-site without asking (a CORS "simple request"), but not one with this type.
  if (!isJsonType(c.req.header("content-type"))) {
    fail(
      "unsupported_media_type",
      "Send the body as JSON with content-type: application/json (also when it is empty)",
    );
  }
  const text = await c.req.text();
  // A decision without options (approve, rollback) may come with an empty body.
  if (text === "") return { text, value: {} };
  try {
    return { text, value: JSON.parse(text) };
  } catch (err) {
    fail("invalid_request", `The body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Checks a request against a route's schemas and runs its handler. A POST with an
 * `Idempotency-Key` runs through `idempotency`: once per key and request.
 */
export async function runRoute(
  r: Route,
  c: Context,
  principal: Principal,
  idempotency?: Idempotency,
): Promise<Response> {
  if (!allowed(principal, r.access)) {
    fail(
      "forbidden",
      `This key may not ${r.summary.toLowerCase()}: it needs the "${r.access}" scope`,
      { needs: r.access, has: [...principal.scopes] },
    );
  }
  const parse = (schema: z.ZodType | undefined, value: unknown, where: string) => {
    if (!schema) return value;
    const out = schema.safeParse(value);
    return out.success ? out.data : invalid(where, out.error);
  };
  const params = parse(r.params, c.req.param(), "path");
  const query = parse(r.query, c.req.query(), "query");
  const read = r.body ? await readBody(c) : undefined;
  const body = r.body ? parse(r.body, read!.value, "body") : undefined;
  const answer = async (started?: (executionId: string) => void) => {
    const out = await r.handle({ params, query, body, principal, c, started });
    return out instanceof Response ? out : jsonResponse(out);
  };
  const key = c.req.header("idempotency-key");
  if (key === undefined || r.method !== "post" || !idempotency) return await answer();
  const url = new URL(c.req.url);
  return await idempotency.run({
    namespace: principal.namespace,
    key: Idempotency.check(key),
    // The body as sent: a retry sends the same bytes.
    request: `POST ${url.pathname}${url.search}\n${read?.text ?? ""}`,
    work: answer,
  });
}

const ERROR_BODY = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        details: { type: "object" },
      },
    },
  },
};

function jsonSchema(schema: z.ZodType): unknown {
  try {
    return z.toJSONSchema(schema, { target: "openapi-3.0", io: "input", unrepresentable: "any" });
  } catch (err) {
    throw new CordonError("internal", `A route schema cannot be documented: ${err}`);
  }
}

function parameters(schema: z.ZodType | undefined, where: "path" | "query"): unknown[] {
  if (!schema) return [];
  const s = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === "path" || (s.required ?? []).includes(name),
    schema: prop,
    ...((prop as { description?: string }).description
      ? { description: (prop as { description: string }).description }
      : {}),
  }));
}

/** The OpenAPI 3.0 document of `routes`. */
export function openApiDocument(
  routes: readonly Route[],
  info: { title: string; version: string; description: string },
  serverUrl?: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    // `:name{.+}` (a parameter with its own pattern) is `{name}` in OpenAPI.
    const path = r.path.replace(/:(\w+)(?:\{[^}]*\})?/g, "{$1}");
    const responses: Record<string, unknown> = {};
    for (const [status, description] of Object.entries(r.responses)) {
      responses[status] = { description };
    }
    const errors = r.method === "post"
      ? { ...ERROR_STATUSES, ...POST_ERROR_STATUSES }
      : ERROR_STATUSES;
    for (const [status, description] of Object.entries(errors)) {
      if (r.access === "public" && (status === "401" || status === "403")) continue;
      responses[status] ??= {
        description,
        content: { "application/json": { schema: ERROR_BODY } },
      };
    }
    const op: Record<string, unknown> = {
      operationId: `${r.method}${
        r.path.replace(/[/:](\w)/g, (_, ch: string) => ch.toUpperCase()).replace(/\W/g, "")
      }`,
      summary: r.summary,
      tags: [r.tag],
      parameters: [
        ...parameters(r.params, "path"),
        ...parameters(r.query, "query"),
        ...(r.method === "post" ? [IDEMPOTENCY_HEADER] : []),
      ],
      responses,
      ...(r.access === "public" ? { security: [] } : { "x-cordon-access": r.access }),
    };
    if (r.body) {
      op.requestBody = {
        required: true,
        content: { "application/json": { schema: jsonSchema(r.body) } },
      };
    } else if (r.rawBody) {
      op.requestBody = {
        required: true,
        content: { "*/*": { schema: { type: "string", format: "binary" } } },
      };
    }
    (paths[path] ??= {})[r.method] = op;
  }
  paths["/mcp"] = { post: MCP_OPERATION };
  paths["/"] = { get: CONSOLE_OPERATION };
  return {
    openapi: "3.0.3",
    info,
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }],
  };
}

const IDEMPOTENCY_HEADER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Run once: a retry with the same key and body gets the first answer (kept 24 hours); the same key with another body is 422 idempotency_conflict",
  schema: { type: "string", maxLength: MAX_IDEMPOTENCY_KEY_CHARS },
};

/** What every POST may also answer. */
const POST_ERROR_STATUSES: Record<string, string> = {
  "415": "No content-type: application/json (needed also without a body)",
  "422": "The Idempotency-Key was used for another request (idempotency_conflict)",
};

const ERROR_STATUSES: Record<string, string> = {
  "400": "Invalid request (bad JSON, wrong types, bad parameters)",
  "401": "No valid API key",
  "403": "The key lacks the scope",
  "413": "The body is larger than the server accepts",
};
