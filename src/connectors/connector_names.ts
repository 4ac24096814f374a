/**
 * The names a registry accepts: a connector's is a JavaScript identifier that shadows no global
 * the sandbox relies on, a tool's is what MCP allows. A bad or repeated name is refused with
 * `invalid_request` when the connector is added or its tools are re-read.
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import type { Connector, Tool } from "./types.ts";

/** Connector names: a JavaScript identifier (each connector is a global in the sandbox). */
const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/**
 * Tool names: what MCP allows (letters, digits, `_`, `-`, `.`, at most 128). They are properties
 * of the connector's global, so `get-sum` is called as `everything["get-sum"](…)`.
 */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Names a connector may not take: they would shadow globals the sandbox
 * (or the code a model writes) relies on.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  "codemode",
  "caplets",
  "console",
  "input",
  "workspace",
  "globalThis",
  "self",
  "window",
  "Deno",
  "Object",
  "Array",
  "Promise",
  "JSON",
  "Math",
  "Date",
  "Error",
  "Reflect",
  "Proxy",
  "Symbol",
  "Function",
  "String",
  "Number",
  "Boolean",
  "BigInt",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "URL",
  "fetch",
  "crypto",
  "performance",
  "structuredClone",
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "queueMicrotask",
  "atob",
  "btoa",
  "eval",
  "undefined",
  "NaN",
  "Infinity",
  "arguments",
  "constructor",
  "prototype",
  "__proto__",
]);

/**
 * The name of a connector about to be added; throws `invalid_request` when it is not an
 * identifier of at most 64 characters or is a reserved global.
 */
export function checkConnectorName(connector: Connector): string {
  const name = connector?.name;
  if (typeof name !== "string" || !NAME_PATTERN.test(name) || RESERVED_NAMES.has(name)) {
    throw new CordonError(
      "invalid_request",
      `Cannot add connector "${name}": a name is a JavaScript identifier of at most 64 characters, not one of the reserved globals`,
    );
  }
  return name;
}

/** A connector's tools by name; throws `invalid_request` for a bad or repeated name. */
export function toolMap(name: string, list: readonly Tool[]): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const tool of list) {
    if (
      !TOOL_NAME_PATTERN.test(tool.name) || tool.name === "__proto__" ||
      tool.name === "constructor"
    ) {
      throw new CordonError(
        "invalid_request",
        `Cannot add tool "${name}.${tool.name}": bad tool name`,
      );
    }
    if (tools.has(tool.name)) {
      throw new CordonError(
        "invalid_request",
        `Cannot add tool "${name}.${tool.name}": defined twice`,
      );
    }
    tools.set(tool.name, tool);
  }
  return tools;
}
