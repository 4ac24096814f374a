/**
 * Declarations for one connector: a type-only namespace with each tool's
 * input and output types, merged with a `declare const` holding the tools.
 *
 * @module
 */
import type { ConnectorInfo, ToolInfo } from "../types.ts";
import { docComment, docLines, isDeclarableName, memberAccess, propertyKey } from "./literals.ts";
import { renderSchema, schemaToTs } from "./schema.ts";
import { typeNameStems } from "./type_names.ts";

/** The types and one-line signature `describe` shows for a tool. */
export interface ToolSignature {
  /** The input type, multi-line with JSDoc on properties. */
  input: string;
  /** The output type (`unknown` without an output schema). */
  output: string;
  /** One line, e.g. `math.add(args: { a: number; b: number }): Promise<number>`. */
  signature: string;
}

/** Tools by name in code-unit order (locale-independent, so hashes agree everywhere), first of each name kept. */
function sortedTools(tools: unknown): ToolInfo[] {
  if (!Array.isArray(tools)) return [];
  const byName = new Map<string, ToolInfo>();
  for (const tool of tools) {
    if (typeof tool?.name === "string" && !byName.has(tool.name)) byName.set(tool.name, tool);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A tool's JSDoc: its description, then what its annotations mean for a caller. */
function toolDocs(tool: ToolInfo): string[] {
  const lines = docLines(tool.description);
  const a = tool.annotations ?? {};
  if (a.readOnly === true) lines.push("Read-only: changes nothing.");
  if (a.destructive === true) lines.push("Destructive: may delete or overwrite data.");
  if (a.requiresApproval === true) {
    lines.push("Needs approval: each call waits until a person approves it.");
  }
  return lines;
}

/**
 * The TypeScript declarations of one connector.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { declareConnector } from "./declarations.ts";
 * const text = declareConnector({
 *   name: "math",
 *   description: "Arithmetic",
 *   tools: [{
 *     name: "add",
 *     description: "Add two numbers",
 *     inputSchema: {
 *       type: "object",
 *       properties: { a: { type: "number" }, b: { type: "number" } },
 *       required: ["a", "b"],
 *     },
 *     outputSchema: { type: "number" },
 *     annotations: { readOnly: true },
 *   }],
 * });
 * assert.ok(text.includes("type AddInput = { a: number; b: number };"));
 * assert.ok(text.includes("add(args: math.AddInput): Promise<math.AddOutput>;"));
 * ```
 */
export function declareConnector(info: ConnectorInfo): string {
  const name = info?.name;
  if (!isDeclarableName(name)) {
    // U+2028/2029 would end a line comment early; JSON.stringify leaves them raw.
    const shown = JSON.stringify(String(name)).replace(
      /[\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16)}`,
    );
    return `// Connector ${shown} is left out: its name is not a JavaScript identifier.\n`;
  }
  const tools = sortedTools(info.tools);
  const stems = typeNameStems(tools.map((t) => t.name));
  const types: string[] = [];
  const methods: string[] = [];
  tools.forEach((tool, i) => {
    const path = docLines(`${name}.${tool.name}`).join(" ");
    const stem = stems[i];
    const input = renderSchema(tool.inputSchema, undefined, 1);
    const output = tool.outputSchema ? renderSchema(tool.outputSchema, undefined, 1) : "unknown";
    types.push(`${docComment([`Input of ${path}`], "  ")}  type ${stem}Input = ${input};`);
    const outputDocs = [`Output of ${path}`, ...docLines(tool.outputSchema?.description)];
    types.push(`${docComment(outputDocs, "  ")}  type ${stem}Output = ${output};`);
    methods.push(
      `${docComment(toolDocs(tool), "  ")}  ${propertyKey(tool.name)}(args: ${name}.${stem}Input)` +
        `: Promise<${name}.${stem}Output>;`,
    );
  });
  const doc = docComment(docLines(info.description), "");
  const body = (lines: string[]) => (lines.length > 0 ? `\n${lines.join("\n")}\n` : "");
  return `${doc}declare namespace ${name} {${body(types)}}\n` +
    `${doc}declare const ${name}: {${body(methods)}};\n`;
}

/**
 * A tool's input and output types and its one-line call signature, as
 * `describe` shows them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolSignature } from "./declarations.ts";
 * const sig = toolSignature("math", {
 *   name: "add",
 *   description: "Add two numbers",
 *   inputSchema: {
 *     type: "object",
 *     properties: { a: { type: "number" }, b: { type: "number" } },
 *     required: ["a", "b"],
 *   },
 *   outputSchema: { type: "number" },
 *   annotations: {},
 * });
 * assert.equal(sig.signature, "math.add(args: { a: number; b: number }): Promise<number>");
 * ```
 */
export function toolSignature(connector: string, tool: ToolInfo): ToolSignature {
  const output = tool.outputSchema;
  const signature = `${memberAccess(connector, String(tool.name))}(args: ${
    schemaToTs(tool.inputSchema, { compact: true })
  }): Promise<${output ? schemaToTs(output, { compact: true }) : "unknown"}>`;
  return {
    input: schemaToTs(tool.inputSchema),
    output: output ? schemaToTs(output) : "unknown",
    signature,
  };
}
