/**
 * How an object type is laid out: on one line when short and undocumented,
 * else one member per line with its JSDoc above it.
 *
 * @module
 */
import { docComment } from "./literals.ts";
import { primary, type TypeExpr } from "./type_expr.ts";

/** Object types up to this many characters (and without JSDoc) stay on one line. */
export const MAX_INLINE_WIDTH = 80;

/** One member of an object type: `key?: type` or an index signature, with its JSDoc lines. */
export interface Member {
  key: string;
  type: TypeExpr;
  docs: string[];
}

/**
 * The object type with `members`, or `Record<string, never>` with none.
 * `level` is the nesting of the line the type starts on.
 */
export function layoutObject(
  members: readonly Member[],
  options: { compact: boolean; indent: string },
  level: number,
): TypeExpr {
  if (members.length === 0) return primary("Record<string, never>");
  const inline = `{ ${members.map((m) => m.key).join("; ")} }`;
  const fits = inline.length <= MAX_INLINE_WIDTH && !inline.includes("\n") &&
    members.every((m) => m.docs.length === 0);
  if (options.compact || fits) return primary(inline);
  const pad = options.indent.repeat(level + 1);
  const body = members.map((m) => `${docComment(m.docs, pad)}${pad}${m.key};`).join("\n");
  return primary(`{\n${body}\n${options.indent.repeat(level)}}`);
}
