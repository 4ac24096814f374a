/**
 * Type expressions with their precedence, so unions and intersections are
 * combined and parenthesized correctly without re-parsing text.
 *
 * @module
 */

/** How tightly an expression binds: unions loosest, then intersections, then the rest. */
export const Precedence = { Union: 0, Intersection: 1, Primary: 2 } as const;
/** One of the {@link Precedence} levels. */
export type Precedence = (typeof Precedence)[keyof typeof Precedence];

/** A TypeScript type expression. */
export interface TypeExpr {
  text: string;
  precedence: Precedence;
  /** The members of a union or intersection, so joining them again flattens. */
  parts?: readonly TypeExpr[];
}

/** `unknown`: the fallback for anything the generator cannot or will not describe. */
export const UNKNOWN: TypeExpr = { text: "unknown", precedence: Precedence.Primary };
/** `never`: no value fits (`false`, an empty `enum`). */
export const NEVER: TypeExpr = { text: "never", precedence: Precedence.Primary };
/** `null`. */
export const NULL: TypeExpr = { text: "null", precedence: Precedence.Primary };

/** A keyword or reference type such as `string`. */
export function primary(text: string): TypeExpr {
  return { text, precedence: Precedence.Primary };
}

/** `text` wrapped in parentheses when it binds looser than `least`. */
export function atLeast(type: TypeExpr, least: Precedence): string {
  return type.precedence < least ? `(${type.text})` : type.text;
}

/** `A | B`: `unknown` absorbs everything, `never` drops out, duplicates collapse. */
export function unionOf(members: readonly TypeExpr[]): TypeExpr {
  if (members.length === 1) return members[0];
  const kept = combine(members, Precedence.Union, "unknown", "never");
  if (kept === undefined) return UNKNOWN;
  if (kept.length === 0) return NEVER;
  if (kept.length === 1) return kept[0];
  return { text: kept.map((m) => m.text).join(" | "), precedence: Precedence.Union, parts: kept };
}

/** `A & B`: `unknown` drops out, `never` absorbs everything, duplicates collapse. */
export function intersectionOf(members: readonly TypeExpr[]): TypeExpr {
  if (members.length === 1) return members[0];
  const kept = combine(members, Precedence.Intersection, "never", "unknown");
  if (kept === undefined) return NEVER;
  if (kept.length === 0) return UNKNOWN;
  if (kept.length === 1) return kept[0];
  return {
    text: kept.map((m) => atLeast(m, Precedence.Intersection)).join(" & "),
    precedence: Precedence.Intersection,
    parts: kept,
  };
}

/**
 * The members to join, flattened (`(A | B) | C` is `A | B | C`) and
 * deduplicated; `undefined` when the `absorbing` type wins outright.
 * Runs for every schema node, hence the plain loops.
 */
function combine(
  members: readonly TypeExpr[],
  kind: Precedence,
  absorbing: string,
  neutral: string,
): TypeExpr[] | undefined {
  const kept: TypeExpr[] = [];
  const seen = new Set<string>();
  for (const member of members) {
    const flat = member.precedence === kind && member.parts ? member.parts : [member];
    for (const m of flat) {
      if (m.text === absorbing) return undefined;
      if (m.text === neutral || seen.has(m.text)) continue;
      seen.add(m.text);
      kept.push(m);
    }
  }
  return kept;
}

/** `T[]`, parenthesizing `T` when needed. */
export function arrayOf(element: TypeExpr): TypeExpr {
  return primary(`${atLeast(element, Precedence.Primary)}[]`);
}

/**
 * The literal type of a JSON value (`"a"`, `1`, `true`, `null`, `{ "k": 1 }`,
 * `[1, 2]`); `unknown` for anything JSON cannot hold or nested deeper than
 * `depth`.
 */
export function literalOf(value: unknown, depth = 8): TypeExpr {
  if (value === null) return NULL;
  switch (typeof value) {
    case "string":
      return primary(JSON.stringify(value));
    case "boolean":
      return primary(String(value));
    case "number":
      if (!Number.isFinite(value)) return primary("number");
      // `-1[]` does not parse as an array of `-1`; a negative literal binds like a prefix.
      return value < 0
        ? { text: String(value), precedence: Precedence.Intersection }
        : primary(String(value));
  }
  if (typeof value !== "object" || depth <= 0) return UNKNOWN;
  if (Array.isArray(value)) {
    return primary(`[${value.map((v) => literalOf(v, depth - 1).text).join(", ")}]`);
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return primary("Record<string, never>");
  const members = entries.map(([k, v]) => `${JSON.stringify(k)}: ${literalOf(v, depth - 1).text}`);
  return primary(`{ ${members.join("; ")} }`);
}
