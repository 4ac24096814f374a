/**
 * The one JSON Schema validator for schemas that come from outside: snippet
 * input schemas, MCP servers' tool schemas, OpenAPI documents, AI SDK
 * `jsonSchema()` tools. It is Ajv (draft 2020-12, with draft-07 for schemas
 * that declare it or only compile under it), so `if`/`then`/`else`,
 * `dependentRequired` and the rest validate as the specification says.
 *
 * What keeps it from stalling the host on hostile schemas or values:
 * - patterns run on RE2 (linear time; see `schema_regex.ts`);
 * - `uniqueItems` is checked by hashing each item's canonical JSON, not by
 *   comparing every pair (Ajv's own is quadratic in the array);
 * - `format` is an annotation, not checked (as draft 2020-12's default
 *   vocabulary says): format checkers are regular expressions over values a
 *   script picks, and the server behind a tool checks what it receives;
 * - each schema compiles in an Ajv of its own, so one tenant's `$id` never
 *   resolves another's `$ref`, and a bounded cache keyed by the schema's
 *   SHA-256 compiles a schema once.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Ajv } from "ajv/dist/ajv.js";
import { CordonError } from "../errors.ts";
import type { JsonSchema } from "./types.ts";
import { schemaRegExpEngine, type UnsupportedPatterns } from "./schema_regex.ts";

/** Compiled schemas kept: a connector's tools and a namespace's snippets, with room to spare. */
export const MAX_CACHED_SCHEMAS = 512;

/**
 * The most objects and arrays a schema may hold, and how deep it may nest,
 * before it is refused uncompiled. Ajv compiles in time about linear in the
 * schema (measured here: 0.1-0.5 ms a node, 1 ms a pattern, more on a loaded
 * host), and a deeply nested one overflows its stack after 0.7 s. Callers
 * with schemas from requests pass tighter bounds.
 */
export const DEFAULT_SCHEMA_BOUNDS: SchemaBounds = { nodes: 5_000, depth: 64, patterns: 1_000 };

/** One way a value fails its schema: where (`a.0.b`, empty at the top) and what. */
export interface SchemaIssue {
  path: string;
  message: string;
}

/** A schema made into a checker. */
export interface CompiledSchema {
  /** The issues of `value`; empty when it fits. */
  check(value: unknown): SchemaIssue[];
  /** Patterns left unchecked because the linear-time engine cannot run them. */
  readonly warnings: readonly string[];
}

/** Bounds on a schema's size, checked in one pass before it is compiled. */
export interface SchemaBounds {
  /** Objects and arrays in the schema. */
  nodes: number;
  /** Nesting of objects and arrays. */
  depth: number;
  /** `pattern` keywords and `patternProperties` keys. */
  patterns: number;
}

/** How {@link compileJsonSchema} treats a schema. */
export interface CompileJsonSchemaOptions {
  /** Size bounds; {@link DEFAULT_SCHEMA_BOUNDS} when not given. */
  bounds?: SchemaBounds;
  /**
   * A pattern RE2 cannot run (backreferences, lookaround): `"refuse"` the
   * schema (for schemas a caller can fix) or `"ignore"` the pattern with a
   * warning (for third-party schemas; the default).
   */
  unsupportedPatterns?: UnsupportedPatterns;
}

const cache = new Map<string, CompiledSchema>();

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function issueOf(e: AjvError): SchemaIssue {
  const segments = e.instancePath.split("/").slice(1).map((s) =>
    s.replaceAll("~1", "/").replaceAll("~0", "~")
  );
  // Name the property a `required` or `additionalProperties` error is about, as zod did.
  const named = e.params.missingProperty ?? e.params.additionalProperty;
  if (typeof named === "string") segments.push(named);
  return { path: segments.join("."), message: e.message ?? `fails ${e.keyword}` };
}

/** JSON with sorted keys: two values Ajv calls equal give the same text. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const obj = value as Record<string, unknown>;
  return `{${
    Object.keys(obj).sort().map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(",")
  }}`;
}

/** `uniqueItems` in linear time. */
const UNIQUE_ITEMS = {
  keyword: "uniqueItems",
  type: "array" as const,
  schemaType: "boolean" as const,
  errors: true,
  validate: function unique(schema: boolean, data: unknown[]): boolean {
    (unique as { errors?: unknown[] }).errors = [];
    if (!schema) return true;
    // Strings are their own keys in a set of their own; numbers are their own keys beside the
    // canonical texts of everything else (a Set tells the number 1 from the text "1").
    const strings = new Set<string>();
    const others = new Set<unknown>();
    for (const item of data) {
      const seen = typeof item === "string" ? strings : others;
      const key = typeof item === "string" || typeof item === "number" ? item : canonical(item);
      if (seen.has(key)) {
        (unique as { errors?: unknown[] }).errors = [{
          keyword: "uniqueItems",
          message: "must not have duplicate items",
          params: {},
        }];
        return false;
      }
      seen.add(key);
    }
    return true;
  },
};

/** Says which bound `schema` passes, if any; one pass, stopping at the first. */
function boundBroken(schema: unknown, bounds: SchemaBounds): string | undefined {
  let nodes = 0;
  let patterns = 0;
  const stack: [unknown, number][] = [[schema, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (++nodes > bounds.nodes) return `it holds more than ${bounds.nodes} objects and arrays`;
    if (depth > bounds.depth) return `it nests more than ${bounds.depth} deep`;
    const record = node as Record<string, unknown>;
    if (!Array.isArray(node)) {
      if (typeof record.pattern === "string") patterns++;
      const keyed = record.patternProperties;
      if (keyed !== null && typeof keyed === "object") patterns += Object.keys(keyed).length;
      if (patterns > bounds.patterns) return `it has more than ${bounds.patterns} patterns`;
    }
    for (const child of Object.values(record)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** True when the schema says it is an older draft than 2020-12. */
function declaresOlderDraft(schema: JsonSchema): boolean {
  return typeof schema.$schema === "string" && /draft-0[4-7]/.test(schema.$schema);
}

function compileWith(
  draft: "2020-12" | "07",
  schema: JsonSchema,
  unsupported: UnsupportedPatterns,
  warnings: string[],
) {
  const options = {
    strict: false,
    allErrors: true,
    validateSchema: false,
    validateFormats: false,
    code: { regExp: schemaRegExpEngine(unsupported, warnings) },
  };
  const ajv = draft === "2020-12" ? new Ajv2020(options) : new Ajv(options);
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword(UNIQUE_ITEMS);
  const { $schema: _declared, ...rest } = schema;
  return ajv.compile(rest);
}

/**
 * Compiles a JSON Schema (cached by its SHA-256). Throws `invalid_request`
 * naming why when Ajv cannot compile it under either draft, or when it has a
 * pattern RE2 cannot run and `unsupportedPatterns` is `"refuse"`.
 *
 * @example
 * ```ts
 * import { compileJsonSchema } from "./json_schema.ts";
 * const s = compileJsonSchema({
 *   type: "object",
 *   properties: { id: { type: "string", pattern: "^(a+)+$" } },
 *   dependentRequired: { id: ["kind"] },
 * });
 * console.assert(s.check({ id: "aaa", kind: 1 }).length === 0);
 * console.assert(s.check({ id: "a".repeat(10_000) + "!" }).length === 2);
 * ```
 */
export function compileJsonSchema(
  schema: JsonSchema,
  options: CompileJsonSchemaOptions = {},
): CompiledSchema {
  const unsupported = options.unsupportedPatterns ?? "ignore";
  const bounds = options.bounds ?? DEFAULT_SCHEMA_BOUNDS;
  const text = JSON.stringify(schema);
  const key = createHash("sha256")
    .update(`${unsupported}\n${JSON.stringify(bounds)}\n${text}`)
    .digest("hex");
  const hit = cache.get(key);
  if (hit) {
    // Most recently used goes last; the first is the one to evict.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const broken = boundBroken(schema, bounds);
  if (broken) throw new CordonError("invalid_request", `The schema cannot be used: ${broken}`);
  const warnings: string[] = [];
  const drafts = declaresOlderDraft(schema)
    ? ["07", "2020-12"] as const
    : ["2020-12", "07"] as const;
  let validate;
  let failure: unknown;
  for (const draft of drafts) {
    warnings.length = 0;
    try {
      validate = compileWith(draft, schema, unsupported, warnings);
      break;
    } catch (err) {
      failure ??= err;
    }
  }
  if (!validate) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new CordonError("invalid_request", `The schema cannot be used: ${reason}`);
  }
  const compiled: CompiledSchema = {
    warnings: [...warnings],
    check(value) {
      if (validate(value)) return [];
      return (validate.errors as AjvError[] ?? []).map(issueOf);
    },
  };
  cache.set(key, compiled);
  if (cache.size > MAX_CACHED_SCHEMAS) cache.delete(cache.keys().next().value!);
  return compiled;
}
