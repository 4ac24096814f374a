/**
 * Finds what a script imports, from sucrase's tokens (strings, comments,
 * templates and regular expressions are never mistaken for imports), and
 * where: static declarations to lift, specifiers to rewrite, and the
 * `require()` calls and re-exports that need a word of their own.
 *
 * @module
 */
// The CommonJS build: sucrase's ESM files import without extensions, which Deno refuses.
import { parse } from "sucrase/dist/parser/index.js";
import { TokenType as tt } from "sucrase/dist/parser/tokenizer/types.js";
import { ContextualKeyword } from "sucrase/dist/parser/tokenizer/keywords.js";
import type { SourceLocation } from "../../errors.ts";

/** The cheap test that keeps code without imports on the fast path. */
export const MAYBE_IMPORTS = /\bimport\b|\brequire\s*\(/;

/** One specifier in the code. */
export interface FoundImport {
  /** The string as written. */
  specifier: string;
  /** How it is imported. */
  kind: "static" | "dynamic" | "reexport" | "require";
  /** Where the string literal starts and ends (end exclusive). */
  start: number;
  end: number;
  /** For `static`: the whole declaration (through its `;`), to lift out of the body. */
  statement?: { start: number; end: number; text: string };
  /** Where it is, for messages. */
  location: SourceLocation;
}

/** What the scan found. */
export interface ImportScan {
  imports: FoundImport[];
  /** True when the code has a top-level `export`: it is a module. */
  isModule: boolean;
}

interface Tok {
  type: number;
  contextualKeyword: number;
  start: number;
  end: number;
  scopeDepth: number;
  isType: boolean;
}

function locationAt(code: string, at: number): SourceLocation {
  const before = code.slice(0, at);
  const line = before.split("\n").length;
  return { line, column: at - before.lastIndexOf("\n") };
}

function stringValue(code: string, t: Tok): string {
  // A JavaScript string literal is JSON but for its quotes and escapes; both are rare here.
  const raw = code.slice(t.start + 1, t.end - 1);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw.replaceAll('"', '\\"')}"`);
  } catch {
    return raw;
  }
}

/**
 * Scans TypeScript `code`. Returns undefined when sucrase cannot parse it:
 * the caller then takes the ordinary path, which reports the syntax error.
 */
export function scanImports(code: string): ImportScan | undefined {
  let tokens: Tok[];
  try {
    tokens = parse(code, false, true, false).tokens as Tok[];
  } catch {
    return undefined;
  }
  const imports: FoundImport[] = [];
  let isModule = false;
  const text = (t: Tok) => code.slice(t.start, t.end);
  const found = (t: Tok, kind: FoundImport["kind"]): FoundImport => ({
    specifier: stringValue(code, t),
    kind,
    start: t.start,
    end: t.end,
    location: locationAt(code, t.start),
  });
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    if (t.type === tt._import && next) {
      if (next.type === tt.parenL) {
        // Only a whole literal (`import("x")`, `import("x", opts)`); a computed specifier
        // (`import("file://" + p)`) is left to the child's permissions.
        const after = tokens[i + 3]?.type;
        if (
          tokens[i + 2]?.type === tt.string && (after === tt.parenR || after === tt.comma)
        ) imports.push(found(tokens[i + 2], "dynamic"));
        continue;
      }
      if (next.type === tt.dot || t.scopeDepth !== 0) continue;
      // `import type X from`, `import type { X } from`: erased, nothing is loaded.
      const typeOnly = next.contextualKeyword === ContextualKeyword._type &&
        tokens[i + 2]?.contextualKeyword !== ContextualKeyword._from &&
        tokens[i + 2]?.type !== tt.comma && tokens[i + 2]?.type !== tt.eq;
      let j = i + 1;
      if (tokens[j].type !== tt.string) {
        while (
          j < tokens.length &&
          !(tokens[j].contextualKeyword === ContextualKeyword._from &&
            tokens[j + 1]?.type === tt.string)
        ) j++;
        j++;
      }
      const spec = tokens[j];
      if (!spec || spec.type !== tt.string) continue;
      let last = j;
      if (tokens[j + 1]?.type === tt.semi) last = j + 1;
      if (typeOnly) {
        i = last;
        continue;
      }
      const item = found(spec, "static");
      const parts = tokens.slice(i, last + 1).map((x) => x === spec ? "\0" : text(x));
      item.statement = {
        start: t.start,
        end: tokens[last].end,
        text: parts.join(" ").replace(/ ;$/, ";"),
      };
      imports.push(item);
      i = last;
    } else if (t.type === tt._export && t.scopeDepth === 0) {
      isModule = true;
      if (next?.contextualKeyword === ContextualKeyword._type) continue;
      if (next?.type !== tt.star && next?.type !== tt.braceL) continue;
      // `export * from "x"`, `export * as ns from "x"`, `export { a } from "x"`.
      let j = i + 2;
      if (next.type === tt.braceL) {
        while (j < tokens.length && tokens[j].type !== tt.braceR) j++;
        j++;
      } else if (tokens[j]?.contextualKeyword === ContextualKeyword._as) {
        j += 2;
      }
      if (
        tokens[j]?.contextualKeyword === ContextualKeyword._from &&
        tokens[j + 1]?.type === tt.string
      ) {
        imports.push(found(tokens[j + 1], "reexport"));
      }
    } else if (
      t.type === tt.name && text(t) === "require" && next?.type === tt.parenL &&
      tokens[i + 2]?.type === tt.string && tokens[i - 1]?.type !== tt.dot
    ) {
      imports.push(found(tokens[i + 2], "require"));
    }
  }
  return { imports, isModule };
}
