/**
 * For the typegen tests: the schema corpus as connectors, and a strict
 * in-memory TypeScript compile of generated declarations plus usage code.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import type { Connector, ConnectorInfo, ToolInfo } from "../../src/connectors/types.ts";
import { shop } from "../fixtures/schemas/zod_connector.ts";

const FIXTURES = new URL("../fixtures/schemas/", import.meta.url);

function readTools(file: string): Record<string, unknown>[] {
  return JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8"));
}

/** An MCP `tools/list` entry as a {@link ToolInfo} (MCP's `*Hint` annotations mapped). */
export function mcpToolInfo(raw: Record<string, unknown>): ToolInfo {
  const hints = (raw.annotations ?? {}) as Record<string, unknown>;
  const info: ToolInfo = {
    name: String(raw.name),
    description: String(raw.description ?? ""),
    inputSchema: raw.inputSchema as ToolInfo["inputSchema"],
    annotations: {},
  };
  if (raw.outputSchema) info.outputSchema = raw.outputSchema as ToolInfo["outputSchema"];
  if (hints.readOnlyHint === true) info.annotations.readOnly = true;
  if (hints.destructiveHint === true) info.annotations.destructive = true;
  return info;
}

/** A connector as the registry lists it. */
export function connectorInfo(connector: Connector): ConnectorInfo {
  return {
    name: connector.name,
    description: connector.description,
    tools: connector.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
      annotations: t.annotations,
    })),
  };
}

/**
 * The corpus: two real MCP servers' `tools/list` (server-everything and
 * server-filesystem, dumped over stdio), a zod connector, and edge cases.
 */
export function loadCorpus(): ConnectorInfo[] {
  return [
    {
      name: "everything",
      description: "MCP reference server",
      tools: readTools("mcp_everything_tools.json").map(mcpToolInfo),
    },
    {
      name: "filesystem",
      description: "MCP filesystem server",
      tools: readTools("mcp_filesystem_tools.json").map(mcpToolInfo),
    },
    connectorInfo(shop),
    {
      name: "edge",
      description: "Hand-written edge cases",
      tools: readTools("edge_cases_tools.json") as unknown as ToolInfo[],
    },
  ];
}

/** One compiler diagnostic, located by file and 1-based line. */
export interface Problem {
  file: string;
  line: number;
  message: string;
}

const LIB_DIR = dirname(ts.getDefaultLibFilePath({}));
const VIRTUAL_LIB = "/lib/";
/** Parsed lib files, shared by every compile in the process (parsing them is most of the cost). */
const libCache = new Map<string, ts.SourceFile>();

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  lib: ["lib.es2022.d.ts"],
  types: [],
  skipDefaultLibCheck: true,
};

function readLib(fileName: string): string | undefined {
  try {
    return readFileSync(join(LIB_DIR, fileName.slice(VIRTUAL_LIB.length)), "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Type-checks `files` (absolute virtual paths → source) with `strict` and
 * the ES2022 lib, and returns every diagnostic.
 */
export function typeCheck(files: Record<string, string>): Problem[] {
  const host: ts.CompilerHost = {
    getSourceFile(fileName, languageVersion) {
      if (Object.hasOwn(files, fileName)) {
        return ts.createSourceFile(fileName, files[fileName], languageVersion, true);
      }
      if (!fileName.startsWith(VIRTUAL_LIB)) return undefined;
      let source = libCache.get(fileName);
      if (!source) {
        const text = readLib(fileName);
        if (text === undefined) return undefined;
        source = ts.createSourceFile(fileName, text, languageVersion);
        libCache.set(fileName, source);
      }
      return source;
    },
    getDefaultLibFileName: () => `${VIRTUAL_LIB}lib.es2022.d.ts`,
    getDefaultLibLocation: () => VIRTUAL_LIB.slice(0, -1),
    writeFile: () => {},
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (f) => Object.hasOwn(files, f) || (f.startsWith(VIRTUAL_LIB) && !!readLib(f)),
    readFile: (f) => (Object.hasOwn(files, f) ? files[f] : readLib(f)),
    directoryExists: (d) => d === "/" || d === VIRTUAL_LIB.slice(0, -1),
    getDirectories: () => [],
  };
  const program = ts.createProgram({ rootNames: Object.keys(files), options: OPTIONS, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined
      ? d.file.getLineAndCharacterOfPosition(d.start).line + 1
      : 0;
    return {
      file: d.file?.fileName ?? "",
      line,
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    };
  });
}
