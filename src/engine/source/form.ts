/**
 * How a script's form is read: whether code is one function expression, as
 * a saved snippet is written (`// saved as "name"` then `async (input) => { … };`),
 * and the text it is read from (its final semicolon blanked, so lines and
 * columns stay). The runtime (`source.ts`) and the type checker read forms
 * with these same functions.
 *
 * @module
 */
import { transform } from "sucrase";

/** A line starting with `import` or `export` makes the code a module. */
export const MODULE_SYNTAX = /^[ \t]*(?:import[\s{*"']|export[\s{*])/m;

/**
 * How a function expression starts: `async (…) =>`, `async x =>`, `async function`,
 * `function`, `(…) =>` or `x =>`. Read after the leading comments.
 */
const FUNCTION_HEAD =
  /^(?:async\s*(?:\(|function\b|[A-Za-z_$][\w$]*\s*=>)|function\b|\([^()]*\)\s*(?::[^=;{}]*)?=>|[A-Za-z_$][\w$]*\s*=>)/;

/** Sucrase settings shared by every transpile of user code. */
export const SUCRASE_OPTIONS = {
  transforms: ["typescript" as const],
  disableESTransforms: true,
  preserveDynamicImport: true,
};

/** The index after leading whitespace and comments (linear: no backtracking regex). */
function afterLeadingComments(code: string): number {
  let i = 0;
  for (;;) {
    while (i < code.length && /\s/.test(code[i])) i++;
    if (code.startsWith("//", i)) {
      const nl = code.indexOf("\n", i);
      if (nl < 0) return code.length;
      i = nl + 1;
    } else if (code.startsWith("/*", i)) {
      const close = code.indexOf("*/", i + 2);
      if (close < 0) return code.length;
      i = close + 2;
    } else {
      return i;
    }
  }
}

/** True when the code, past its leading comments, starts like a function expression. */
export function startsLikeFunction(code: string): boolean {
  const at = afterLeadingComments(code);
  return FUNCTION_HEAD.test(code.slice(at, at + 300));
}

/** At most this many trailing comments are skipped looking for a final semicolon. */
const MAX_TRAILING_COMMENTS = 16;

/**
 * Where a final semicolon is: the last character that is not whitespace, or the last before
 * trailing comments (a guess: `//` may sit in a string; the parse that follows decides).
 */
function finalSemicolons(code: string): number[] {
  const found: number[] = [];
  let end = code.trimEnd().length;
  if (code[end - 1] === ";") found.push(end - 1);
  for (let n = 0; n < MAX_TRAILING_COMMENTS; n++) {
    if (code.startsWith("*/", end - 2)) {
      const open = code.lastIndexOf("/*", end - 3);
      if (open < 0) break;
      end = code.slice(0, open).trimEnd().length;
    } else {
      const lineStart = code.lastIndexOf("\n", end - 1) + 1;
      const slashes = code.lastIndexOf("//", end - 2);
      if (slashes < lineStart) break;
      end = code.slice(0, slashes).trimEnd().length;
    }
    if (code[end - 1] === ";" && !found.includes(end - 1)) found.push(end - 1);
  }
  return found;
}

/** The code with the character at `at` replaced by a space. */
function blank(code: string, at: number): string {
  return code.slice(0, at) + " " + code.slice(at + 1);
}

/** Code read as one function expression: its text and, when asked, the module made of it. */
export interface FunctionSource {
  /** The code with a final semicolon blanked (same lines and columns). */
  text: string;
  /** `prefix` + `export default (\n` + text + `\n);`, transpiled. */
  module: string;
}

/**
 * Reads `code` as one function expression, or returns undefined when it is not one: it must
 * start like a function (after leading comments) and parse as a single expression once a final
 * semicolon is blanked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { functionSource } from "./form.ts";
 * const fn = functionSource('// saved as "x"\nasync (input) => {\n  return input;\n};');
 * assert.ok(fn);
 * assert.equal(functionSource("async () => 1;\nreturn 2"), undefined);
 * ```
 */
export function functionSource(code: string, prefix = ""): FunctionSource | undefined {
  if (!startsLikeFunction(code)) return undefined;
  // A semicolon never ends an expression in parentheses: with one, only blanked texts can parse.
  const semicolons = finalSemicolons(code);
  const candidates = semicolons.length === 0 ? [code] : semicolons.map((at) => blank(code, at));
  for (const text of candidates) {
    try {
      const module = transform(`${prefix}export default (\n${text}\n);`, SUCRASE_OPTIONS).code;
      return { text, module };
    } catch {
      // Not one expression this way; the next candidate, or a script body.
    }
  }
  return undefined;
}
