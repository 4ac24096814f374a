/**
 * `openApiConnector`: a connector with one tool per operation of an OpenAPI
 * 3.0/3.1 document, calling the API from the host.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { isRecord } from "../typegen/refs.ts";
import type { Connector, Tool, ToolAnnotations } from "../types.ts";
import { type OpenApiDocument, readOpenApiDocument, serverUrl } from "./document.ts";
import { DEFAULT_HTTP_TIMEOUT_MS, sendRequest } from "./http.ts";
import { layoutInput } from "./input.ts";
import { assignToolNames } from "./names.ts";
import { listOperations, type OpenApiOperation } from "./operations.ts";
import { buildRequest, type HostAuth, type RequestPlan } from "./request.ts";
import { DEFAULT_MAX_RESPONSE_BYTES } from "./response.ts";
import { schemaConverter } from "./schema.ts";
import { inputValidator } from "./validate.ts";

/**
 * The longest tool description kept. Descriptions reach the model through
 * generated types and search; long API prose (full markdown guides) is cut.
 */
export const MAX_DESCRIPTION_CHARS = 2_000;

/** Methods that change nothing (RFC 9110 safe methods): their tools are `readOnly`. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

/** Methods that change state: they need approval when `approval.unsafeMethods` is set. */
const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Options for {@link openApiConnector}. */
export interface OpenApiConnectorOptions {
  /** The connector's name (a JavaScript identifier). */
  name: string;
  /** Defaults to the document's `info.title` and `info.description`. */
  description?: string;
  /** An OpenAPI 3.0 or 3.1 document, as an object or JSON text. */
  document: object | string;
  /** Where requests go, instead of the document's first server (needed when that is relative). */
  baseUrl?: string;
  /** Credentials the host adds to every request; never visible to scripts or in results. */
  auth?: HostAuth;
  /** Per-call time limit in ms (default {@link DEFAULT_HTTP_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** The largest response body a tool returns (default {@link DEFAULT_MAX_RESPONSE_BYTES}). */
  maxResponseBytes?: number;
  /** Keeps only the operations for which it returns true. */
  include?: (operation: OpenApiOperation) => boolean;
  /** `unsafeMethods`: POST, PUT, PATCH and DELETE tools need a person's approval. */
  approval?: { unsafeMethods?: boolean };
  /** Calls of this connector running at once. */
  concurrency?: number;
}

function invalid(name: string, reason: string): never {
  throw new CordonError("invalid_request", `Cannot build OpenAPI connector "${name}": ${reason}`);
}

function describeOperation(op: OpenApiOperation, method: string): string {
  const parts = [op.summary, op.description].filter((t): t is string => !!t?.trim());
  if (parts.length === 2 && parts[1].startsWith(parts[0])) parts.shift();
  let text = parts.join("\n\n").trim();
  if (text.length > MAX_DESCRIPTION_CHARS) text = `${text.slice(0, MAX_DESCRIPTION_CHARS)}…`;
  const prefix = op.deprecated ? "Deprecated. " : "";
  return `${prefix}${text ? `${text}\n\n` : ""}(${method} ${op.path})`;
}

function annotationsFor(method: string, approveUnsafe: boolean): ToolAnnotations {
  const annotations: ToolAnnotations = { resolution: "host" };
  if (SAFE_METHODS.has(method)) annotations.readOnly = true;
  if (method === "DELETE") annotations.destructive = true;
  if (approveUnsafe && UNSAFE_METHODS.has(method)) annotations.requiresApproval = true;
  return annotations;
}

function defaultDescription(doc: OpenApiDocument, name: string): string {
  const info = isRecord(doc.info) ? doc.info : {};
  const title = typeof info.title === "string" ? info.title : `${name} HTTP API`;
  const about = typeof info.description === "string" ? info.description.trim() : "";
  const text = about ? `${title}: ${about}` : title;
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text;
}

function checkLimit(name: string, what: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
    invalid(name, `${what} must be a positive integer, got ${value}`);
  }
}

/**
 * A connector with one tool per operation of an OpenAPI document. Tool names
 * come from `operationId` or the method and path (see `names.ts`); arguments
 * are one object of the operation's parameters plus `body` (see `input.ts`).
 * Throws `invalid_request` for a document that is not OpenAPI 3.x with paths.
 *
 * @example
 * ```ts
 * import { openApiConnector } from "./connector.ts";
 * const api = openApiConnector({
 *   name: "pets",
 *   baseUrl: "https://pets.example",
 *   document: {
 *     openapi: "3.1.0",
 *     info: { title: "Pets", version: "1" },
 *     paths: { "/pets/{petId}": { get: { operationId: "getPet", responses: {} } } },
 *   },
 * });
 * console.assert(api.tools[0].name === "getPet");
 * console.assert(api.tools[0].annotations.readOnly === true);
 * ```
 */
export function openApiConnector(options: OpenApiConnectorOptions): Connector {
  const { name } = options;
  const doc = readOpenApiDocument(options.document);
  checkLimit(name, "timeoutMs", options.timeoutMs);
  checkLimit(name, "maxResponseBytes", options.maxResponseBytes);
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) {
    invalid(name, `baseUrl ${JSON.stringify(options.baseUrl)} is not an absolute URL`);
  }
  const auth: HostAuth = {
    headers: { ...options.auth?.headers },
    query: { ...options.auth?.query },
  };
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const approveUnsafe = options.approval?.unsafeMethods === true;
  const operations = listOperations(doc).operations.filter((op) => options.include?.(op) ?? true);
  const names = assignToolNames(operations);
  const toJsonSchema = schemaConverter(doc);
  const tools = operations.map((op, i): Tool => {
    const method = op.method.toUpperCase();
    const baseUrl = serverUrl(doc, op.raw.pathItem, op.raw.operation, options.baseUrl);
    if (baseUrl === undefined) {
      invalid(name, `${method} ${op.path} has no absolute server URL; pass baseUrl`);
    }
    const layout = layoutInput(op);
    const plan: RequestPlan = { method, path: op.path, baseUrl, fields: layout.fields };
    if (op.body) plan.body = op.body;
    const inputSchema = toJsonSchema(layout.schema, "request");
    const tool: Tool = {
      name: names[i],
      description: describeOperation(op, method),
      inputSchema,
      annotations: annotationsFor(method, approveUnsafe),
      validateInput: inputValidator(inputSchema, `${name}.${names[i]}`),
      // Async, so a request that cannot be built rejects like any other failure.
      execute: async (args, ctx) => {
        const request = buildRequest(plan, args, auth);
        return await sendRequest(request, {
          method,
          signal: ctx.signal,
          timeoutMs,
          maxResponseBytes,
          auth,
        });
      },
    };
    if (op.responseSchema !== undefined) {
      tool.outputSchema = toJsonSchema(op.responseSchema, "response");
    }
    return tool;
  });
  const connector: Connector = {
    name,
    description: options.description ?? defaultDescription(doc, name),
    tools,
    timeoutMs,
  };
  if (options.concurrency !== undefined) connector.concurrency = options.concurrency;
  return connector;
}
