/**
 * TypeScript declarations from tool JSON Schemas: what a model reads to
 * write code against the connectors, and what that code is checked against.
 *
 * @module
 */
export { buildDeclarations, type BuiltDeclarations } from "./build.ts";
export { CODEMODE_DECLARATION } from "./codemode.ts";
export { declareConnector, type ToolSignature, toolSignature } from "./declarations.ts";
export { MAX_INLINE_WIDTH } from "./object_layout.ts";
export {
  DEFAULT_MAX_DEPTH,
  MAX_SCHEMA_NODES,
  schemaToTs,
  type SchemaToTsOptions,
} from "./schema.ts";
