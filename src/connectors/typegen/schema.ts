/**
 * `schemaToTs`: a JSON Schema as a TypeScript type expression, for the
 * declarations a model reads and its code is checked against.
 *
 * Written here rather than taken from npm. The well-kept converter,
 * json-schema-to-typescript 16, runs in Deno but is async, pulls in prettier
 * and lodash (25 MB), and emits named `export interface` declarations, not
 * an expression for a signature. In Deno 2.9.6 it took 242 ms for its first
 * schema, then 5.2 ms per schema (1.1 ms unformatted): about 1 s for 200
 * tools. This one is synchronous and dependency-free: 200 tools (114 KB of
 * declarations, MCP and zod schemas) take 4-7 ms warm and 20-30 ms on the
 * first call (JIT warm-up), on a shared 2-core machine.
 *
 * Rules: `additionalProperties` left out on an object with `properties`
 * adds no index signature, so a misspelt argument is a type error; a `$ref`
 * is expanded in place, and one that loops back (or points outside the
 * schema) becomes `unknown`, as does anything deeper than `maxDepth`.
 *
 * @module
 */
import { schemaDocs } from "./docs.ts";
import { propertyKey } from "./literals.ts";
import { layoutObject, type Member } from "./object_layout.ts";
import { isRecord, resolveRef } from "./refs.ts";
import {
  arrayOf,
  atLeast,
  intersectionOf,
  literalOf,
  NEVER,
  NULL,
  Precedence,
  primary,
  type TypeExpr,
  unionOf,
  UNKNOWN,
} from "./type_expr.ts";

/**
 * How deep values nest before the type says `unknown`. Tool arguments rarely
 * go past 4 levels; past 8 a type stops helping a model read it, and inline
 * `$ref` expansion grows with every level.
 */
export const DEFAULT_MAX_DEPTH = 8;
/**
 * Schema nodes converted per call before the rest become `unknown`: a
 * generous real tool has a few hundred; this stops a hostile or
 * `$ref`-heavy schema from producing a type too large to read or check.
 */
export const MAX_SCHEMA_NODES = 2_000;
const DEFAULT_INDENT = "  ";
const UNDEFINED = primary("undefined");

/** Options for {@link schemaToTs}. */
export interface SchemaToTsOptions {
  /** Value nesting past which types become `unknown` (default {@link DEFAULT_MAX_DEPTH}). */
  maxDepth?: number;
  /** One level of indentation in multi-line object types (default two spaces). */
  indent?: string;
  /** One line, no JSDoc: for signatures. */
  compact?: boolean;
}

interface Context {
  root: unknown;
  maxDepth: number;
  indent: string;
  compact: boolean;
  nodes: number;
  /** `$ref`s being expanded, to cut cycles. */
  refs: string[];
}

/**
 * Converts a JSON Schema to a TypeScript type expression. Never throws:
 * whatever it cannot read becomes `unknown`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { schemaToTs } from "./schema.ts";
 * const ts = schemaToTs({
 *   type: "object",
 *   properties: { a: { type: "number" }, b: { type: ["string", "null"] } },
 *   required: ["a"],
 * });
 * assert.equal(ts, "{ a: number; b?: string | null }");
 * ```
 */
export function schemaToTs(schema: unknown, options?: SchemaToTsOptions): string {
  return renderSchema(schema, options, 0);
}

/** {@link schemaToTs} with multi-line output indented for `level` levels of nesting. */
export function renderSchema(
  schema: unknown,
  options: SchemaToTsOptions | undefined,
  level: number,
): string {
  try {
    const o = isRecord(options) ? options : {};
    const ctx: Context = {
      root: schema,
      maxDepth: typeof o.maxDepth === "number" && o.maxDepth >= 0
        ? Math.floor(o.maxDepth)
        : DEFAULT_MAX_DEPTH,
      indent: typeof o.indent === "string" && /^[ \t]*$/.test(o.indent) ? o.indent : DEFAULT_INDENT,
      compact: o.compact === true,
      nodes: 0,
      refs: ["#"],
    };
    return render(ctx, schema, 0, level).text;
  } catch {
    // Getters that throw, proxies, stack exhaustion on absurd nesting.
    return "unknown";
  }
}

function nonEmptyArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value : undefined;
}

function render(ctx: Context, schema: unknown, depth: number, level: number): TypeExpr {
  if (schema === true) return UNKNOWN;
  if (schema === false) return NEVER;
  if (!isRecord(schema) || depth > ctx.maxDepth || ++ctx.nodes > MAX_SCHEMA_NODES) return UNKNOWN;
  const anyOf = nonEmptyArray(schema.anyOf);
  const oneOf = nonEmptyArray(schema.oneOf);
  const allOf = nonEmptyArray(schema.allOf);
  const ref = typeof schema.$ref === "string" ? schema.$ref : undefined;
  const composed = ref !== undefined || anyOf !== undefined || oneOf !== undefined ||
    allOf !== undefined;
  const parts: TypeExpr[] = [];
  if (ref !== undefined) parts.push(renderRef(ctx, ref, depth, level));
  parts.push(renderBase(ctx, schema, depth, level, composed));
  for (const members of [anyOf, oneOf]) {
    if (members) parts.push(unionOf(members.map((m) => render(ctx, m, depth, level))));
  }
  for (const member of allOf ?? []) parts.push(render(ctx, member, depth, level));
  const type = intersectionOf(parts);
  return schema.nullable === true ? unionOf([type, NULL]) : type;
}

function renderRef(ctx: Context, ref: string, depth: number, level: number): TypeExpr {
  if (ctx.refs.includes(ref)) return UNKNOWN;
  const target = resolveRef(ctx.root, ref);
  if (target === undefined) return UNKNOWN;
  ctx.refs.push(ref);
  try {
    return render(ctx, target, depth, level);
  } finally {
    ctx.refs.pop();
  }
}

/** The schema's own type, without `$ref` and the combinators. */
function renderBase(
  ctx: Context,
  schema: Record<string, unknown>,
  depth: number,
  level: number,
  composed: boolean,
): TypeExpr {
  if ("const" in schema) return literalOf(schema.const, ctx.maxDepth);
  if (Array.isArray(schema.enum)) return unionOf(schema.enum.map((v) => literalOf(v)));
  const types = typeof schema.type === "string" ? [schema.type] : nonEmptyArray(schema.type);
  if (types) {
    return unionOf(types.map((t) => {
      switch (t) {
        case "string":
          return primary("string");
        case "number":
        case "integer":
          return primary("number");
        case "boolean":
          return primary("boolean");
        case "null":
          return NULL;
        case "object":
          return renderObject(ctx, schema, depth, level, composed);
        case "array":
          return renderArray(ctx, schema, depth, level);
        default:
          return UNKNOWN;
      }
    }));
  }
  if (
    isRecord(schema.properties) || isRecord(schema.patternProperties) ||
    schema.additionalProperties !== undefined
  ) {
    return renderObject(ctx, schema, depth, level, composed);
  }
  if (schema.items !== undefined || Array.isArray(schema.prefixItems)) {
    return renderArray(ctx, schema, depth, level);
  }
  return UNKNOWN;
}

function renderObject(
  ctx: Context,
  schema: Record<string, unknown>,
  depth: number,
  level: number,
  composed: boolean,
): TypeExpr {
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  const patterns = isRecord(schema.patternProperties) ? schema.patternProperties : undefined;
  const additional = schema.additionalProperties;
  const open = additional === true || (additional === undefined && !properties && !patterns);
  // `type: "object"` beside a `$ref` or combinator adds nothing they do not say.
  if (open && !properties && composed) return UNKNOWN;
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  const members: Member[] = [];
  const types: TypeExpr[] = [];
  let someOptional = false;
  for (const [name, sub] of Object.entries(properties ?? {})) {
    const type = render(ctx, sub, depth + 1, level + 1);
    const optional = !required.has(name);
    someOptional ||= optional;
    types.push(type);
    members.push({
      key: `${propertyKey(name)}${optional ? "?" : ""}: ${type.text}`,
      type,
      docs: ctx.compact || !isRecord(sub) ? [] : schemaDocs(sub, refTarget(ctx, sub)),
    });
  }
  for (const name of required) {
    if (properties && Object.hasOwn(properties, name)) continue;
    members.push({ key: `${propertyKey(name)}: unknown`, type: UNKNOWN, docs: [] });
    types.push(UNKNOWN);
  }
  const indexParts: TypeExpr[] = open ? [UNKNOWN] : [];
  if (isRecord(additional)) indexParts.push(render(ctx, additional, depth + 1, level + 1));
  for (const sub of Object.values(patterns ?? {})) {
    indexParts.push(render(ctx, sub, depth + 1, level + 1));
  }
  if (indexParts.length > 0) {
    // Every named property must fit the index signature, so its type joins in.
    const index = unionOf(
      members.length === 0
        ? indexParts
        : [...indexParts, ...types, ...(someOptional ? [UNDEFINED] : [])],
    );
    const docs = ctx.compact
      ? []
      : Object.keys(patterns ?? {}).map((p) =>
        `Keys matching the pattern ${p.replaceAll("*/", "*\\/").replace(/\s+/g, " ")}`
      );
    members.push({ key: `[key: string]: ${index.text}`, type: index, docs });
  }
  return layoutObject(members, ctx, level);
}

function refTarget(ctx: Context, schema: Record<string, unknown>): unknown {
  return typeof schema.$ref === "string" ? resolveRef(ctx.root, schema.$ref) : undefined;
}

function renderArray(
  ctx: Context,
  schema: Record<string, unknown>,
  depth: number,
  level: number,
): TypeExpr {
  // 2020-12 `prefixItems` + `items`, or draft-07 array-form `items` + `additionalItems`.
  const modern = Array.isArray(schema.prefixItems);
  const prefix = modern ? schema.prefixItems as unknown[] : schema.items;
  if (Array.isArray(prefix)) {
    const rest = modern ? schema.items : schema.additionalItems;
    const min = typeof schema.minItems === "number" ? schema.minItems : 0;
    const closed = rest === false ||
      (typeof schema.maxItems === "number" && schema.maxItems <= prefix.length);
    const elements = prefix.map((item, i) => {
      const type = render(ctx, item, depth + 1, level);
      return i < min ? type.text : `${atLeast(type, Precedence.Primary)}?`;
    });
    if (!closed) elements.push(`...${arrayOf(render(ctx, rest ?? true, depth + 1, level)).text}`);
    return primary(`[${elements.join(", ")}]`);
  }
  if (schema.items === false) return primary("[]");
  return arrayOf(render(ctx, schema.items ?? true, depth + 1, level));
}
