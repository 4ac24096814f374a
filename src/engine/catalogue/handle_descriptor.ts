/**
 * What `caplets.<id>.describeTool(name)` and `tools()` answer: the documented `ToolDescriptor`
 * (JSON Schemas, `callSignature`, `inputTypeScript`, `outputTypeScript`, the observed output
 * shape as a `JsonShape` tree, examples) and `ToolSummary`, built from the catalogue.
 *
 * @module
 */
import type { Shape, ShapeKind } from "../../connectors/shape.ts";
import type { Tool } from "../../connectors/types.ts";
import { schemaToTs } from "../../connectors/typegen/mod.ts";
import type { Catalogue } from "./catalogue.ts";

/** The documented `JsonShape` tree of an observed output. */
export type JsonShape =
  | { kind: "null" }
  | { kind: "boolean" }
  | { kind: "number" }
  | { kind: "string" }
  | { kind: "unknown" }
  | { kind: "array"; element?: JsonShape; truncated?: boolean }
  | {
    kind: "object";
    fields: Record<string, { optional: boolean; shape: JsonShape }>;
    truncated?: boolean;
  }
  | { kind: "union"; variants: JsonShape[] };

/** The documented `ObservedOutputShape`. */
export interface ObservedOutputShape {
  version: 1;
  source: "observed";
  observedAt: string;
  sampleCount: number;
  typeScript: string;
  jsonShape: JsonShape;
  truncated: boolean;
}

/** The documented `ToolSummary`. */
export interface ToolSummary {
  name: string;
  title?: string;
  description?: string;
  useWhen?: string;
  avoidWhen?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/** A tool's summary, as listings and searches give it. */
export function toolSummary(tool: Tool): ToolSummary {
  const out: ToolSummary = { name: tool.name };
  if (tool.title !== undefined) out.title = tool.title;
  out.description = tool.description;
  if (tool.useWhen !== undefined) out.useWhen = tool.useWhen;
  if (tool.avoidWhen !== undefined) out.avoidWhen = tool.avoidWhen;
  if (tool.annotations.readOnly !== undefined) out.readOnlyHint = tool.annotations.readOnly;
  if (tool.annotations.destructive !== undefined) {
    out.destructiveHint = tool.annotations.destructive;
  }
  return out;
}

/** A `Shape` as the documented `JsonShape`, and whether anything was left out of it. */
export function toJsonShape(shape: Shape): { shape: JsonShape; truncated: boolean } {
  let truncated = false;
  const kind = (k: ShapeKind): JsonShape => {
    switch (k.kind) {
      case "null":
      case "boolean":
      case "string":
      case "unknown":
        return { kind: k.kind };
      case "integer":
      case "number":
      case "bigint":
        return { kind: "number" };
      // Dates cross JSON as ISO strings.
      case "date":
        return { kind: "string" };
      case "array":
      case "set":
        return k.items ? { kind: "array", element: of(k.items) } : { kind: "array" };
      case "record":
      case "map":
        // Keys are data: the fields are not known.
        truncated = true;
        return { kind: "object", fields: {}, truncated: true };
      case "object": {
        const fields: Record<string, { optional: boolean; shape: JsonShape }> = {};
        for (const f of k.fields) {
          fields[f.name] = { optional: f.shape.samples < k.count, shape: of(f.shape) };
        }
        if (k.more) truncated = true;
        return k.more ? { kind: "object", fields, truncated: true } : { kind: "object", fields };
      }
      default:
        return { kind: "unknown" };
    }
  };
  const of = (s: Shape): JsonShape => {
    const kinds = s.kinds.filter((k) => k.kind !== "undefined");
    const variants = kinds.map(kind);
    if (variants.length === 0) return { kind: "unknown" };
    return variants.length === 1 ? variants[0] : { kind: "union", variants };
  };
  const out = of(shape);
  return { shape: out, truncated };
}

/** The documented `ToolDescriptor` of `id.tool`, as `namespace` sees it. */
export function toolDescriptor(
  catalogue: Catalogue,
  id: string,
  tool: Tool,
  namespace: string | undefined,
): Record<string, unknown> {
  const path = `${id}.${tool.name}`;
  const d = catalogue.describe(path, undefined, namespace);
  const name = JSON.stringify(tool.name);
  const out: Record<string, unknown> = {
    id: path,
    tool: { ...toolSummary(tool), annotations: { ...tool.annotations } },
    inputSchema: tool.inputSchema,
  };
  if (tool.outputSchema) out.outputSchema = tool.outputSchema;
  const compact = (schema: unknown) => schemaToTs(schema, { compact: true });
  out.callSignature = `caplets.${id}.callTool(${name}, args: ${
    compact(tool.inputSchema)
  }): Promise<CapletsResult<${tool.outputSchema ? compact(tool.outputSchema) : "unknown"}>>`;
  out.inputTypeScript = d.input;
  out.outputTypeScript = d.output;
  // Only where the output schema says little, as describe() shows it.
  const seen = d.observedShape === undefined ? undefined : catalogue.observation(path, namespace);
  if (seen) {
    const json = toJsonShape(seen.shape);
    const observed: ObservedOutputShape = {
      version: 1,
      source: "observed",
      observedAt: new Date(seen.at).toISOString(),
      sampleCount: seen.samples,
      typeScript: seen.rendered,
      jsonShape: json.shape,
      truncated: json.truncated,
    };
    out.observedOutputShape = observed;
  }
  out.examples = [
    `const result = await caplets.${id}.callTool(${name}, { /* args */ });`,
    ...d.examples,
  ];
  return out;
}
