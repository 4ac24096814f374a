/**
 * Small pieces of TypeScript syntax the generator writes: identifiers,
 * property keys, member access and literal types from JSON values.
 *
 * @module
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Words that cannot name a `declare const` (reserved words, strict-mode
 * reserved words, and globals TypeScript will not let a declaration shadow).
 */
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "implements",
  "import",
  "in",
  "instanceof",
  "interface",
  "let",
  "new",
  "null",
  "package",
  "private",
  "protected",
  "public",
  "return",
  "static",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "undefined",
  "var",
  "void",
  "while",
  "with",
  "yield",
]);

/** Whether `name` can be written bare as a property name. */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** Whether `name` can name a top-level `declare const`. */
export function isDeclarableName(name: unknown): name is string {
  return typeof name === "string" && IDENTIFIER.test(name) && !RESERVED_WORDS.has(name);
}

/** A property key as written in a type literal: bare when possible, else quoted. */
export function propertyKey(name: string): string {
  return isIdentifier(name) ? name : JSON.stringify(name);
}

/** How code reaches a tool: `math.add` or `math["read-file"]`. */
export function memberAccess(object: string, name: string): string {
  return isIdentifier(name) ? `${object}.${name}` : `${object}[${JSON.stringify(name)}]`;
}

/** Splits text into JSDoc-safe lines: `*\/` cannot end the comment early. */
export function docLines(text: unknown): string[] {
  if (typeof text !== "string") return [];
  if (!/[\r\n]|\*\//.test(text)) {
    const line = text.trim();
    return line === "" ? [] : [line];
  }
  if (text.trim() === "") return [];
  return text.replaceAll("*/", "*\\/").trim().split(/\r\n|\r|\n/).map((l) => l.trimEnd());
}

/**
 * A JSDoc block for `lines` at `indent`, ending with a newline, or "" when
 * there is nothing to say. Lines must already be escaped ({@link docLines}).
 */
export function docComment(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return "";
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  const body = lines.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join("\n");
  return `${indent}/**\n${body}\n${indent} */\n`;
}
