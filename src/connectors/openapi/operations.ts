/**
 * The operations of an OpenAPI document, flattened: one entry per path and
 * method, with its parameters merged and dereferenced, the request body it
 * can send and the response schema it promises.
 *
 * @module
 */
import { isRecord } from "../typegen/refs.ts";
import { dereference, type OpenApiDocument } from "./document.ts";

/** The HTTP methods a path item may hold, in the order tools are listed. */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Where a parameter goes. */
export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** One parameter, dereferenced. `schema` may still hold `$ref`s into the document. */
export interface OpenApiParameter {
  /** Its name in the document; the input property too, unless taken (then `query_id`, …). */
  name: string;
  /** Where it goes: path, query, header or cookie. */
  in: ParameterLocation;
  /** Whether the input must have it (path parameters always). */
  required: boolean;
  /** Its schema from the document (of its JSON content, for `content` parameters). */
  schema: unknown;
  /** The document's description of it. */
  description?: string;
  /** True when the document marks it deprecated. */
  deprecated?: boolean;
  /** Serialization style (`form`, `simple`, `deepObject`, …), defaulted per location. */
  style: string;
  /** OpenAPI `explode`: arrays and objects as separate values (default true for `form`). */
  explode: boolean;
  /** Declared with `content: { "application/json": … }`: sent as JSON text. */
  json: boolean;
}

/** How a request body is sent. */
export type BodyKind = "json" | "form" | "text";

/** The request body an operation sends. */
export interface OpenApiBody {
  /** The media type sent as `content-type`; JSON is preferred when the document offers it. */
  mediaType: string;
  /** How the value is encoded: JSON, a URL-encoded form, or text. */
  kind: BodyKind;
  /** Whether the document requires a body. */
  required: boolean;
  /** The body's schema from the document (`{ type: "string" }` for text). */
  schema: unknown;
  /** The document's description of the body. */
  description?: string;
}

/** One operation (path + method), as `include` sees it. */
export interface OpenApiOperation {
  /** Lower case: `get`, `post`, … */
  method: string;
  /** The path template: `/pets/{petId}`. */
  path: string;
  /** The document's `operationId`; the tool's name is made from it (else method and path). */
  operationId?: string;
  /** The document's summary; the tool's description starts with it. */
  summary?: string;
  /** The document's description; the tool's description goes on with it after the summary. */
  description?: string;
  /** True when the document marks it deprecated; its description then says so. */
  deprecated: boolean;
  /** The document's tags, handy for `include` filters. */
  tags: string[];
  /** Its parameters, the path item's merged with its own (which win), dereferenced. */
  parameters: OpenApiParameter[];
  /** The request body it sends, when it has one this connector can encode. */
  body?: OpenApiBody;
  /** The JSON schema of the 200 (else 201) response, when it has one. */
  responseSchema?: unknown;
  /** The raw operation and path item objects, for `include` filters that need more. */
  raw: { operation: Record<string, unknown>; pathItem: Record<string, unknown> };
}

/** An operation that cannot become a tool, and why. */
export interface SkippedOperation {
  method: string;
  path: string;
  reason: string;
}

/** Parameters the OpenAPI spec says to ignore: the HTTP layer sets them. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

const DEFAULT_STYLES: Record<ParameterLocation, string> = {
  path: "simple",
  query: "form",
  header: "simple",
  cookie: "form",
};

/** The base media type, lower case, without parameters. */
export function baseMediaType(mediaType: string): string {
  return mediaType.split(";")[0].trim().toLowerCase();
}

/** Whether a media type carries JSON (`application/json`, `application/problem+json`, …). */
export function isJsonMediaType(mediaType: string): boolean {
  const base = baseMediaType(mediaType);
  return base === "application/json" || /^application\/[^/]+\+json$/.test(base);
}

/** The JSON media entry of a `content` map, `application/json` first. */
function jsonContent(content: unknown): [string, Record<string, unknown>] | undefined {
  if (!isRecord(content)) return undefined;
  const keys = Object.keys(content).filter(isJsonMediaType);
  keys.sort((a, b) =>
    Number(baseMediaType(b) === "application/json") -
    Number(baseMediaType(a) === "application/json")
  );
  const key = keys[0];
  return key !== undefined && isRecord(content[key]) ? [key, content[key]] : undefined;
}

function readParameter(doc: OpenApiDocument, node: unknown): OpenApiParameter | undefined {
  const p = dereference(doc, node);
  if (!p || typeof p.name !== "string" || p.name === "") return undefined;
  const location = p.in;
  if (
    location !== "path" && location !== "query" && location !== "header" && location !== "cookie"
  ) {
    return undefined;
  }
  if (location === "header" && IGNORED_HEADERS.has(p.name.toLowerCase())) return undefined;
  const content = jsonContent(p.content);
  const style = typeof p.style === "string" ? p.style : DEFAULT_STYLES[location];
  const parameter: OpenApiParameter = {
    name: p.name,
    in: location,
    required: location === "path" || p.required === true,
    schema: content ? content[1].schema ?? {} : p.schema ?? {},
    style,
    explode: typeof p.explode === "boolean" ? p.explode : style === "form",
    json: content !== undefined,
  };
  if (typeof p.description === "string") parameter.description = p.description;
  if (p.deprecated === true) parameter.deprecated = true;
  return parameter;
}

/** Path item parameters, overridden by the operation's own (same name and location). */
function mergeParameters(doc: OpenApiDocument, shared: unknown, own: unknown): OpenApiParameter[] {
  const merged = new Map<string, OpenApiParameter>();
  for (const list of [shared, own]) {
    if (!Array.isArray(list)) continue;
    for (const node of list) {
      const p = readParameter(doc, node);
      if (p) merged.set(`${p.in}:${p.name}`, p);
    }
  }
  return [...merged.values()];
}

/** Adds a string parameter for each `{name}` of the path the document forgot to declare. */
function addUndeclaredPathParameters(path: string, parameters: OpenApiParameter[]): void {
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (parameters.some((p) => p.in === "path" && p.name === name)) continue;
    parameters.push({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
      style: "simple",
      explode: false,
      json: false,
    });
  }
}

/** The body this connector can send, `null` when the body is required but unsendable. */
function readBody(doc: OpenApiDocument, node: unknown): OpenApiBody | null | undefined {
  const body = dereference(doc, node);
  if (!body || !isRecord(body.content)) return undefined;
  const required = body.required === true;
  const description = typeof body.description === "string" ? body.description : undefined;
  const json = jsonContent(body.content);
  const pick = (): [string, BodyKind, unknown] | undefined => {
    if (json) return [json[0], "json", json[1].schema ?? {}];
    for (const [key, media] of Object.entries(body.content as Record<string, unknown>)) {
      const base = baseMediaType(key);
      const schema = isRecord(media) ? media.schema : undefined;
      if (base === "application/x-www-form-urlencoded") {
        return [key, "form", schema ?? { type: "object" }];
      }
      if (base.startsWith("text/")) return [key, "text", { type: "string" }];
    }
    return undefined;
  };
  const chosen = pick();
  if (!chosen) return required ? null : undefined;
  const [mediaType, kind, schema] = chosen;
  return { mediaType, kind, required, schema, ...(description ? { description } : {}) };
}

function readResponseSchema(doc: OpenApiDocument, responses: unknown): unknown {
  if (!isRecord(responses)) return undefined;
  for (const status of ["200", "201"]) {
    const response = dereference(doc, responses[status]);
    const json = response && jsonContent(response.content);
    if (json) return json[1].schema;
  }
  return undefined;
}

/**
 * Every operation of `doc`, in document order, and the ones that cannot be
 * called (a required body this connector cannot encode, such as multipart).
 */
export function listOperations(
  doc: OpenApiDocument,
): { operations: OpenApiOperation[]; skipped: SkippedOperation[] } {
  const operations: OpenApiOperation[] = [];
  const skipped: SkippedOperation[] = [];
  for (const [path, node] of Object.entries(doc.paths)) {
    const pathItem = dereference(doc, node);
    if (!pathItem) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isRecord(operation)) continue;
      const body = readBody(doc, operation.requestBody);
      if (body === null) {
        const types = Object.keys(dereference(doc, operation.requestBody)?.content ?? {});
        skipped.push({
          method,
          path,
          reason: `its required body is ${types.join(" or ")}, which is not sent`,
        });
        continue;
      }
      const op: OpenApiOperation = {
        method,
        path,
        deprecated: operation.deprecated === true,
        tags: Array.isArray(operation.tags)
          ? operation.tags.filter((t) => typeof t === "string")
          : [],
        parameters: mergeParameters(doc, pathItem.parameters, operation.parameters),
        raw: { operation, pathItem },
      };
      addUndeclaredPathParameters(path, op.parameters);
      if (typeof operation.operationId === "string") op.operationId = operation.operationId;
      if (typeof operation.summary === "string") op.summary = operation.summary;
      if (typeof operation.description === "string") op.description = operation.description;
      if (body) op.body = body;
      const responseSchema = readResponseSchema(doc, operation.responses);
      if (responseSchema !== undefined) op.responseSchema = responseSchema;
      operations.push(op);
    }
  }
  return { operations, skipped };
}
