/**
 * A full type check of the declarations a runtime gives the model
 * (`runtime.types()`), in the world the sandboxed code is checked in: the
 * ES lib, the sandbox's web globals, and the same compiler options.
 *
 * The runtime's own checker reports only problems in the model's code and
 * syntax errors in the declarations; it skips type errors inside them. Such
 * an error still breaks the model's code: a connector named `Response`
 * redeclares the sandbox's `Response`, and every call to it reads as
 * "Property 'forecast' does not exist on type 'typeof Response'". This
 * check finds it at the source.
 *
 * @module
 */
import ts from "typescript";
import { toDiagnostic } from "../engine/discovery/checked.ts";
import type { Diagnostic } from "../engine/execution/types.ts";
import {
  CHECK_OPTIONS,
  DECLARATIONS_FILE,
  GLOBALS_FILE,
  HOST_BASE,
  parseFile,
  sharedFile,
} from "../engine/typecheck/env.ts";
import { locate } from "../engine/typecheck/wrap.ts";
import type { ConnectorProblem } from "./connector_check.ts";

/**
 * The runtime's options, with declaration files checked: `skipLibCheck`
 * would skip exactly the file under test. The lib files are not checked
 * (only the declarations' own diagnostics are asked for).
 */
const OPTIONS: ts.CompilerOptions = { ...CHECK_OPTIONS, skipLibCheck: false };

/**
 * Type-checks tool declarations (as `runtime.types().declarations` gives
 * them) against the sandbox's globals and returns every syntax and type
 * error in them, located in the declarations' text (1-based).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkDeclarations } from "./declarations.ts";
 *
 * assert.deepEqual(checkDeclarations("declare const math: { add(a: number): Promise<number> };"), []);
 * const [problem] = checkDeclarations("declare const math: { add(a: Num): Promise<number> };");
 * assert.equal(problem.code, "TS2304"); // Cannot find name 'Num'.
 * ```
 *
 * @param declarations Ambient declarations: a script, not a module.
 * @returns The problems found; empty when the declarations are sound.
 */
export function checkDeclarations(declarations: string): Diagnostic[] {
  const file = parseFile(DECLARATIONS_FILE, String(declarations));
  const host: ts.CompilerHost = {
    ...HOST_BASE,
    getSourceFile: (name) => (name === DECLARATIONS_FILE ? file : sharedFile(name)),
    fileExists: (name) => name === DECLARATIONS_FILE || !!sharedFile(name),
  };
  const program = ts.createProgram({
    rootNames: [GLOBALS_FILE, DECLARATIONS_FILE],
    options: OPTIONS,
    host,
  });
  const found = [
    ...program.getSyntacticDiagnostics(file),
    ...program.getSemanticDiagnostics(file),
  ];
  const located = locate(found, file, 0, file.text.length).map(toDiagnostic);
  const global = program.getGlobalDiagnostics().map((d): Diagnostic => ({
    code: `TS${d.code}`,
    message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    severity: d.category === ts.DiagnosticCategory.Error ? "error" : "warning",
  }));
  return [...global, ...located];
}

/** A hint for the usual cause of a redeclaration: a connector named like a sandbox global. */
function clash(message: string, connectors: readonly string[]): string {
  const name = /^(?:Cannot redeclare block-scoped variable|Duplicate identifier) '([^']+)'/
    .exec(message)?.[1];
  if (!name || !connectors.includes(name)) return "";
  return ` (the connector "${name}" clashes with a global of the sandbox: rename it)`;
}

/**
 * {@link checkDeclarations} as connector problems: each located at its
 * line and showing it, once per line and message, with a hint when a
 * connector's name clashes with a sandbox global.
 */
export function declarationProblems(
  declarations: string,
  connectors: readonly string[],
): ConnectorProblem[] {
  const lines = declarations.split("\n");
  const problems = new Map<string, ConnectorProblem>();
  for (const d of checkDeclarations(declarations)) {
    const where = d.line ? `declarations line ${d.line}` : "declarations";
    const source = d.line ? `\n    ${lines[d.line - 1]?.trim()}` : "";
    const message = `${d.code}: ${d.message}${clash(d.message, connectors)}${source}`;
    problems.set(`${where}\n${message}`, { where, message });
  }
  return [...problems.values()];
}
