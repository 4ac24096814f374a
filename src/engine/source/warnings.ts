/**
 * Warnings about how code was read, so a result is never `undefined`
 * without a word: code that ran as a script body and has no `return` of its
 * own (its result is always `undefined`), and code that starts like a function
 * but was not one function expression (so it was never called).
 *
 * @module
 */
import { parse } from "acorn";
import { startsLikeFunction } from "./form.ts";
import { type CodeForm, prepareSource } from "./source.ts";

/** A warning about the code's form, in the shape of a result's diagnostics. */
export interface FormWarning {
  /** `no_return`: a script body without a `return` of its own. */
  code: "no_return";
  message: string;
  severity: "warning";
  /** The code's last line, where a `return` would go. */
  line: number;
  /** Column 1 of that line. */
  column: number;
}

/**
 * The longest code whose returns are looked for in its syntax tree: parsing runs on the host's
 * event loop (about 1 ms per 10,000 characters), and a prompt-sized script is far below.
 * Longer code with the word `return` in it is taken to return.
 */
const MAX_ANALYSED_CHARS = 100_000;

/** Answers kept per code: the same code (a snippet, a retry) is read once. */
const CACHE_ENTRIES = 256;
const cache = new Map<string, boolean>();

interface Node {
  type: string;
  [key: string]: unknown;
}

const FUNCTIONS = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
  "ClassDeclaration",
  "ClassExpression",
]);

/** True when `node` holds a `return` of its own (not one of a nested function's). */
function hasOwnReturn(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasOwnReturn);
  if (!node || typeof node !== "object") return false;
  const n = node as Node;
  if (n.type === "ReturnStatement") return true;
  if (typeof n.type === "string" && FUNCTIONS.has(n.type)) return false;
  for (const key in n) {
    if (key === "type" || key === "start" || key === "end") continue;
    const child = n[key];
    if (child && typeof child === "object" && hasOwnReturn(child)) return true;
  }
  return false;
}

/** True when the script body of `code` has a `return` of its own (true when unsure). */
function scriptReturns(code: string): boolean {
  if (!/\breturn\b/.test(code)) return false;
  if (code.length > MAX_ANALYSED_CHARS) return true;
  const hit = cache.get(code);
  if (hit !== undefined) return hit;
  let returns = true;
  try {
    const prepared = prepareSource(code);
    if (prepared.form === "script") {
      const program = parse(prepared.module, { ecmaVersion: "latest", sourceType: "module" });
      const exported = (program.body as unknown as Node[]).find((n) =>
        n.type === "ExportDefaultDeclaration"
      );
      const body = ((exported?.declaration as Node | undefined)?.body as Node | undefined)?.body;
      returns = body === undefined || hasOwnReturn(body);
    }
  } catch {
    // Code that does not read is reported by its syntax error, not here.
  }
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(code, returns);
  return returns;
}

/**
 * The warnings for code that completed in `form` (none for a function or a module, or a
 * script with a `return`). `repl` is a session's code, where a script declaring names for the
 * next execution returns nothing on purpose: only code that looks like an uncalled function
 * is warned about there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formWarnings } from "./warnings.ts";
 * assert.equal(formWarnings("return 1", "script").length, 0);
 * assert.equal(formWarnings("const x = 1;\nx", "script")[0].line, 2);
 * ```
 */
export function formWarnings(code: string, form: CodeForm, repl = false): FormWarning[] {
  if (form !== "script" || typeof code !== "string") return [];
  const uncalled = startsLikeFunction(code);
  if (repl && !uncalled) return [];
  if (scriptReturns(code)) return [];
  const lines = code.trimEnd().split("\n");
  const message = uncalled
    ? "The code ran as a script body, not as a function: it starts like one but is more than " +
      "one function expression, and has no `return` of its own, so its result is undefined. " +
      "Send one function, `async (input) => { … }`, or end the statements with `return value`."
    : "The code ran as a script body with no `return` of its own, so its result is undefined. " +
      "End it with `return value` to return something.";
  return [{ code: "no_return", message, severity: "warning", line: lines.length, column: 1 }];
}
