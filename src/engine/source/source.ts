/**
 * Turns the model's TypeScript into the JavaScript module the guest
 * imports. Runs on the host, before any child is involved, so a syntax
 * error costs no spawn and comes back with line and column in the user's
 * own code.
 *
 * Three forms are accepted:
 *
 * - **script**: a body with top-level `await` and `return`; `input` is in scope.
 * - **function**: one arrow or function expression, `async (input) => { … }`, after any
 *   leading comments and with or without a final semicolon (as snippets are written:
 *   `// saved as "name"` then `async (input) => { … };`).
 * - **module**: an ES module whose `export default` is a function or a value
 *   (chosen when the code has a line starting with `import` or `export`).
 *
 * The transpiler is sucrase: measured on this machine for a 30-line script
 * (bench/transpile.ts), sucrase p50 0.28 ms, amaro strip-only 0.26 ms
 * (but no `enum`), TypeScript's `transpileModule` 2.1 ms,
 * esbuild-wasm 6.3 ms. Sucrase keeps line numbers, so stack traces map back
 * by subtracting the wrapper's one line.
 *
 * @module
 */
import { transform } from "sucrase";
import { CordonError, type SourceLocation } from "../../errors.ts";
import { functionSource, MODULE_SYNTAX, SUCRASE_OPTIONS } from "./form.ts";

/** Which form the code was read as. */
export type CodeForm = "script" | "function" | "module";

/** The code, ready for the guest. */
export interface PreparedSource {
  form: CodeForm;
  /** A JavaScript ES module; its default export is the entry. */
  module: string;
  /** Lines added before the user's first line. */
  lineOffset: number;
  /** `python`: `module` is the user's Python block, run by the guest's Python runner. */
  language?: "python" | "bash";
}

/** The longest code accepted, in characters (a prompt-sized script is far below). */
export const MAX_CODE_CHARS = 1_000_000;

/** Prepared sources kept for reuse (snippets and retries send the same code). */
const CACHE_ENTRIES = 256;
const cache = new Map<string, PreparedSource>();

/**
 * Transpiles `wrapped`, the user's `code` with `lineOffset` lines before it, or throws a
 * `syntax_error` located in the user's code. An error the parser only meets in the wrapper's
 * closing line (an unclosed bracket) points at the end of the code's last line.
 */
function transpile(wrapped: string, lineOffset: number, code: string): string {
  try {
    return transform(wrapped, SUCRASE_OPTIONS).code;
  } catch (err) {
    const loc = (err as { loc?: { line: number; column: number } }).loc;
    const raw = err instanceof Error ? err.message : String(err);
    let message = raw.replace(/\s*\(\d+:\d+\)\s*$/, "");
    let location: SourceLocation | undefined;
    if (loc) {
      const lines = code.split("\n");
      location = { line: Math.max(1, loc.line - lineOffset), column: Math.max(1, loc.column) };
      if (location.line > lines.length) {
        const last = lines.length - 1 - [...lines].reverse().findIndex((l) => l.trim() !== "");
        const at = last >= lines.length ? lines.length - 1 : last;
        location = { line: at + 1, column: lines[at].trimEnd().length + 1 };
        message = "Unexpected end of code: a bracket, brace or string is not closed";
      }
    }
    const where = location ? ` at line ${location.line}, column ${location.column}` : "";
    throw new CordonError("syntax_error", `Syntax error${where}: ${message}`, { location });
  }
}

/**
 * Prepares `code` for the guest, or throws a `syntax_error` whose location
 * is in the user's code.
 */
export function prepareSource(code: string): PreparedSource {
  if (typeof code !== "string" || code.trim() === "") {
    throw new CordonError("invalid_request", "Cannot run: code is empty");
  }
  if (code.length > MAX_CODE_CHARS) {
    throw new CordonError(
      "invalid_request",
      `Cannot run: code is longer than ${MAX_CODE_CHARS} characters`,
    );
  }
  const hit = cache.get(code);
  if (hit) return hit;
  const prepared = prepareUncached(code);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(code, prepared);
  return prepared;
}

function prepareUncached(code: string): PreparedSource {
  if (MODULE_SYNTAX.test(code)) {
    return { form: "module", module: transpile(code, 0, code), lineOffset: 0 };
  }
  const fn = functionSource(code);
  if (fn) return { form: "function", module: fn.module, lineOffset: 1 };
  const module = transpile(`export default async function (input) {\n${code}\n}`, 1, code);
  return { form: "script", module, lineOffset: 1 };
}

/**
 * Like {@link prepareSource} for code whose import declarations were lifted
 * out (blanked in `body`, so its lines and columns stay) into `prefix`, one
 * line of JavaScript with no newline. Line 1 of the module holds the prefix
 * and the wrapper; the user's line n is line n + 1, in every form. Not cached:
 * the caller caches.
 */
export function prepareLifted(body: string, prefix: string, isModule: boolean): PreparedSource {
  if (isModule) {
    return { form: "module", module: transpile(`${prefix}\n${body}`, 1, body), lineOffset: 1 };
  }
  const fn = functionSource(body, prefix);
  if (fn) return { form: "function", module: fn.module, lineOffset: 1 };
  const wrapped = `${prefix}export default async function (input) {\n${body}\n}`;
  return { form: "script", module: transpile(wrapped, 1, body), lineOffset: 1 };
}
