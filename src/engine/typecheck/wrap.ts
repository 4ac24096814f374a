/**
 * Where the user's code sits in the file the type checker checks: which
 * form it is read as, how it is wrapped (as `source/source.ts` wraps it, so line
 * numbers match), and how diagnostics are mapped back into it.
 *
 * @module
 */
import ts from "typescript";
import { scanImports } from "../packages/imports.ts";
import { functionSource, MODULE_SYNTAX } from "../source/form.ts";

/** Which form the code is read as (the same three as `source/source.ts`). */
export type CheckForm = "script" | "function" | "module";

/** One problem, located in the user's code (1-based line and column). */
export interface TypeDiagnostic {
  code: number;
  message: string;
  line: number;
  column: number;
  category: "error" | "warning";
}

/** Diagnostics returned per list: past the first few, errors are mostly cascades. */
export const MAX_DIAGNOSTICS = 20;
/** Characters of one message: elaborations of large tool types can run to kilobytes. */
const MAX_MESSAGE_CHARS = 600;
/** Unresolvable imports are typed `any` rather than reported: the sandbox decides what loads. */
const IGNORED_CODES = new Set([2307, 2792]);

/**
 * The form `source/source.ts` reads `code` as: a line starting with `import` or
 * `export` makes a module; one async function or arrow, a function;
 * anything else, a script body.
 *
 * @example
 * ```ts
 * import { formOf } from "./check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(formOf("return 1"), "script");
 * assert.equal(formOf("async (input) => input.n"), "function");
 * assert.equal(formOf("export default 1"), "module");
 * ```
 */
export function formOf(code: string): CheckForm {
  if (MODULE_SYNTAX.test(code)) {
    // Imports without an export: a script whose imports the runtime lifts (allowed packages).
    const scan = scanImports(code);
    if (!scan || scan.isModule) return "module";
  }
  // The same test as source.ts: it is a function if it parses as one expression.
  return functionSource(code) ? "function" : "script";
}

/** The three forms, to validate a request's. */
export const FORMS: readonly CheckForm[] = ["script", "function", "module"];

/** The checked file's text and where the user's code starts in it. */
export interface Wrapped {
  text: string;
  /** Offset of the user's first character in `text`. */
  start: number;
}

/**
 * Wraps `code` as `source/source.ts` does, typed: the same lines before the code,
 * so its lines and columns are the ones the runtime reports.
 */
export function wrap(code: string, form: CheckForm, inputType: string): Wrapped {
  if (form === "module") return { text: code, start: 0 };
  if (form === "script" && MODULE_SYNTAX.test(code)) {
    // As the runtime does: static imports move onto the wrapper's line, blanked in place.
    const statements = (scanImports(code)?.imports ?? []).flatMap((f) =>
      f.kind === "static" && f.statement
        ? [{ ...f.statement, text: f.statement.text.replace("\0", JSON.stringify(f.specifier)) }]
        : []
    );
    let body = code;
    for (const st of [...statements].sort((a, b) => b.start - a.start)) {
      body = body.slice(0, st.start) + body.slice(st.start, st.end).replace(/[^\n]/g, " ") +
        body.slice(st.end);
    }
    const lifted = statements.map((st) => st.text.trim().replace(/;?$/, ";")).join(" ");
    const prefix = `${lifted} export default async function (input: ${inputType}) {\n`;
    return { text: prefix + body + "\n}", start: prefix.length };
  }
  const [prefix, suffix] = form === "script"
    ? [`export default async function (input: ${inputType}) {\n`, "\n}"]
    // The `satisfies` gives an unannotated `input` its type instead of an implicit-any error.
    : ["export default (\n", `\n) satisfies (input: ${inputType}) => unknown;`];
  // A function's final semicolon is blanked, as the runtime reads it.
  const text = form === "function" ? functionSource(code)?.text ?? code : code;
  return { text: prefix + text + suffix, start: prefix.length };
}

/**
 * Keeps the diagnostics of `file` that touch the user's text
 * (`start` … `start + length`), located in that text; one starting in the
 * wrapper's head but reaching into the code is moved to the code's start,
 * one in the wrapper's tail (an unclosed brace) to the code's end.
 */
export function locate(
  list: readonly ts.Diagnostic[],
  file: ts.SourceFile,
  start: number,
  length: number,
): TypeDiagnostic[] {
  const end = start + length;
  const firstLine = file.getLineAndCharacterOfPosition(start).line;
  const out: TypeDiagnostic[] = [];
  for (const d of list) {
    if (out.length >= MAX_DIAGNOSTICS) break;
    if (d.file !== file || d.start === undefined || IGNORED_CODES.has(d.code)) continue;
    if (d.start < start && d.start + (d.length ?? 0) <= start) continue;
    const at = file.getLineAndCharacterOfPosition(Math.min(Math.max(d.start, start), end));
    const full = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const message = full.length > MAX_MESSAGE_CHARS
      ? `${full.slice(0, MAX_MESSAGE_CHARS - 1)}…`
      : full;
    out.push({
      code: d.code,
      message,
      line: at.line - firstLine + 1,
      column: at.character + 1,
      category: d.category === ts.DiagnosticCategory.Error ? "error" : "warning",
    });
  }
  return out;
}
