/**
 * OpenAPI connectors: one tool per operation of an OpenAPI 3.0/3.1
 * document, called from the host with the host's credentials.
 *
 * @module
 */
export {
  MAX_DESCRIPTION_CHARS,
  openApiConnector,
  type OpenApiConnectorOptions,
} from "./connector.ts";
export { MAX_REF_HOPS, type OpenApiDocument, readOpenApiDocument } from "./document.ts";
export { DEFAULT_HTTP_TIMEOUT_MS, MAX_REDIRECTS } from "./http.ts";
export { BODY_PROPERTY } from "./input.ts";
export { baseToolName, MAX_TOOL_NAME_LENGTH } from "./names.ts";
export {
  type BodyKind,
  listOperations,
  type OpenApiBody,
  type OpenApiOperation,
  type OpenApiParameter,
  type ParameterLocation,
  type SkippedOperation,
} from "./operations.ts";
export type { HostAuth } from "./request.ts";
export { DEFAULT_MAX_RESPONSE_BYTES, MAX_ERROR_BODY_CHARS } from "./response.ts";
export {
  MAX_INLINE_DEPTH,
  MAX_REF_DEPTH,
  MAX_SCHEMA_CHARS,
  type SchemaConverter,
  schemaConverter,
  type SchemaDirection,
  toJsonSchema,
} from "./schema.ts";
