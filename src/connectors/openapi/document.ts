/**
 * Reading an OpenAPI 3.0/3.1 document: parsing, the checks that refuse what
 * cannot become a connector, and following `$ref`s between its objects.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { isRecord, resolveRef } from "../typegen/refs.ts";

/** An OpenAPI document that passed {@link readOpenApiDocument}'s checks. */
export interface OpenApiDocument extends Record<string, unknown> {
  openapi: string;
  paths: Record<string, unknown>;
}

/**
 * Hops a chain of `$ref`s to parameters, bodies, responses or path items may
 * take: real documents use one or two; a longer chain is a loop.
 */
export const MAX_REF_HOPS = 16;

/** The versions this reader understands: 3.0.x and 3.1.x (and 3.2, which keeps their shape). */
const VERSION_PATTERN = /^3\.\d+(\.\d+)?(-[0-9A-Za-z.-]+)?$/;

function refuse(reason: string): never {
  throw new CordonError("invalid_request", `Cannot read the OpenAPI document: ${reason}`);
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : typeof value;
}

/**
 * Parses (when given JSON text) and checks an OpenAPI document.
 * Throws `invalid_request` for anything that is not a 3.x document with paths.
 *
 * @example
 * ```ts
 * import { readOpenApiDocument } from "./document.ts";
 * const doc = readOpenApiDocument('{"openapi":"3.1.0","info":{},"paths":{"/a":{}}}');
 * console.assert(doc.openapi === "3.1.0");
 * ```
 */
export function readOpenApiDocument(document: unknown): OpenApiDocument {
  let value = document;
  if (typeof document === "string") {
    try {
      value = JSON.parse(document);
    } catch (err) {
      const yamlHint = /^\s*(openapi|swagger)\s*:/m.test(document)
        ? "; it looks like YAML, which is not supported: convert it to JSON"
        : "";
      refuse(`it is not valid JSON (${(err as Error).message})${yamlHint}`);
    }
  }
  if (!isRecord(value)) refuse(`expected an object, got ${describeValue(value)}`);
  if (value.swagger !== undefined) {
    refuse(`Swagger ${String(value.swagger)} is not supported; convert it to OpenAPI 3`);
  }
  if (typeof value.openapi !== "string" || !VERSION_PATTERN.test(value.openapi)) {
    refuse(`expected an "openapi" field of version 3.x, got ${describeValue(value.openapi)}`);
  }
  if (!isRecord(value.paths) || Object.keys(value.paths).length === 0) {
    refuse(`it has no paths, so there is nothing to call`);
  }
  return value as OpenApiDocument;
}

/**
 * The object `node` stands for: itself, or what its `$ref` chain points at
 * inside `doc`. `undefined` when the chain is broken, remote or too long.
 */
export function dereference(
  doc: OpenApiDocument,
  node: unknown,
): Record<string, unknown> | undefined {
  let current = node;
  for (let hop = 0; hop <= MAX_REF_HOPS; hop++) {
    if (!isRecord(current)) return undefined;
    if (typeof current.$ref !== "string") return current;
    current = resolveRef(doc, current.$ref);
  }
  return undefined;
}

/**
 * The base URL for an operation: `override` when given, else the first server
 * of the operation, its path item or the document, with `{variables}` set to
 * their defaults. `undefined` when the only URL found is relative.
 */
export function serverUrl(
  doc: OpenApiDocument,
  pathItem: Record<string, unknown>,
  operation: Record<string, unknown>,
  override?: string,
): string | undefined {
  if (override !== undefined) return override;
  for (const owner of [operation, pathItem, doc]) {
    const servers = owner.servers;
    if (!Array.isArray(servers) || !isRecord(servers[0])) continue;
    const server = servers[0];
    if (typeof server.url !== "string") continue;
    const variables = isRecord(server.variables) ? server.variables : {};
    const url = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isRecord(variable) && typeof variable.default === "string" ? variable.default : whole;
    });
    return URL.canParse(url) ? url : undefined;
  }
  return undefined;
}
