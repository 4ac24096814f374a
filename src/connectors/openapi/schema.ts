/**
 * OpenAPI schemas (with `$ref`s into the document) as self-contained JSON
 * Schemas, bounded in size.
 *
 * A component used once is inlined where it is used. A component used more
 * than once, or recursive (a cycle always re-enters through a component used
 * twice), or nested deeper than {@link MAX_INLINE_DEPTH}, is kept once under
 * `$defs` and referenced as `#/$defs/<Name>`. So every component appears at
 * most once, and the result grows with the document, never with the number
 * of paths through it. When the result is still larger than
 * {@link MAX_SCHEMA_CHARS}, components more than {@link MAX_REF_DEPTH} `$ref`
 * hops from the root are replaced by a description (any value), the hop limit
 * halving until it fits.
 *
 * @module
 */
import type { JsonSchema } from "../types.ts";
import { isRecord, resolveRef } from "../typegen/refs.ts";
import type { OpenApiDocument } from "./document.ts";
import {
  ANNOTATION_KEYWORDS,
  LIST_SCHEMA_KEYWORDS,
  MAP_SCHEMA_KEYWORDS,
  normalizeKeywords,
  SINGLE_SCHEMA_KEYWORDS,
} from "./schema_keywords.ts";

/**
 * The largest schema, as JSON text, one tool gets. Schemas become the
 * TypeScript a model reads; past about 64 KB they cost more context than
 * they help, and a few levels of `{}` read better.
 */
export const MAX_SCHEMA_CHARS = 64_000;

/**
 * `$ref` hops from the root kept once a schema is over budget, halved until
 * it fits. Real schemas nest a handful deep, so 16 loses little.
 */
export const MAX_REF_DEPTH = 16;

/**
 * Components inlined one inside another before the next goes to `$defs`:
 * keeps the JSON (and the types generated from it) shallow when a long chain
 * of components is each used once.
 */
export const MAX_INLINE_DEPTH = 8;

/** Whether the schema is sent (`readOnly` properties are not required) or received (`writeOnly`). */
export type SchemaDirection = "request" | "response";

/** Calls `visit` on each direct subschema of an already normalized node. */
function eachSubschema(node: Record<string, unknown>, visit: (child: unknown) => void): void {
  for (const key of SINGLE_SCHEMA_KEYWORDS) if (node[key] !== undefined) visit(node[key]);
  for (const key of LIST_SCHEMA_KEYWORDS) {
    if (Array.isArray(node[key])) (node[key] as unknown[]).forEach(visit);
  }
  for (const key of MAP_SCHEMA_KEYWORDS) {
    if (isRecord(node[key])) Object.values(node[key] as Record<string, unknown>).forEach(visit);
  }
}

/** Every `$ref` in `node` and its subschemas, without following any. */
function refsIn(node: unknown, found: string[] = []): string[] {
  if (!isRecord(node)) return found;
  let own = node;
  if (typeof node.$ref === "string") {
    found.push(node.$ref);
    // Mirrors Conversion.#buildRef: only the siblings are walked, `nullable` aside.
    const { $ref: _ref, nullable: _nullable, ...siblings } = node;
    own = siblings;
  }
  eachSubschema(normalizeKeywords(own), (child) => refsIn(child, found));
  return found;
}

/**
 * Lookups shared by every schema converted from one document: each `$ref`
 * is resolved, and each component scanned for its `$ref`s, once. The
 * document must not change while they are in use.
 */
class DocumentLookups {
  readonly doc: OpenApiDocument;
  readonly #targets = new Map<string, unknown>();
  readonly #refs = new WeakMap<object, string[]>();

  constructor(doc: OpenApiDocument) {
    this.doc = doc;
  }

  /** What `ref` points at in the document (`undefined` when nothing). */
  resolve(ref: string): unknown {
    if (!this.#targets.has(ref)) this.#targets.set(ref, resolveRef(this.doc, ref));
    return this.#targets.get(ref);
  }

  /** The `$ref`s inside `node`. */
  refsIn(node: unknown): string[] {
    if (!isRecord(node)) return [];
    let refs = this.#refs.get(node);
    if (!refs) this.#refs.set(node, refs = refsIn(node));
    return refs;
  }
}

/** A `$defs` key for a reference: its last segment, as an identifier. */
function defName(ref: string): string {
  const last = ref.split("/").pop() ?? "";
  let decoded = last;
  try {
    decoded = decodeURIComponent(last).replaceAll("~1", "/").replaceAll("~0", "~");
  } catch { /* keep the raw segment */ }
  const name = decoded.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[A-Za-z_]/.test(name) ? name : `Schema_${name}`;
}

class Conversion {
  readonly #lookups: DocumentLookups;
  readonly #direction: SchemaDirection;
  /** Components within the hop limit, with how often they are referenced. */
  readonly #uses = new Map<string, number>();
  readonly #included = new Set<string>();
  readonly #defKeys = new Map<string, string>();
  readonly #defs: Record<string, JsonSchema> = {};
  #inlining = new Set<string>();

  constructor(
    lookups: DocumentLookups,
    direction: SchemaDirection,
    root: unknown,
    maxDepth: number,
  ) {
    this.#lookups = lookups;
    this.#direction = direction;
    const queue: [unknown, number][] = [[root, 0]];
    for (let i = 0; i < queue.length; i++) {
      const [node, depth] = queue[i];
      for (const ref of lookups.refsIn(node)) {
        this.#uses.set(ref, (this.#uses.get(ref) ?? 0) + 1);
        if (this.#included.has(ref) || depth + 1 > maxDepth) continue;
        const target = lookups.resolve(ref);
        if (!isRecord(target) && typeof target !== "boolean") continue;
        this.#included.add(ref);
        queue.push([target, depth + 1]);
      }
    }
  }

  /** The converted root, with `$defs` when some component is shared. */
  run(root: unknown): JsonSchema {
    const schema = this.#build(root);
    if (Object.keys(this.#defs).length === 0) return schema;
    return { ...schema, $defs: this.#defs };
  }

  #build(node: unknown): JsonSchema {
    if (isRecord(node) && typeof node.$ref === "string") return this.#buildRef(node);
    const out = normalizeKeywords(node);
    for (const key of SINGLE_SCHEMA_KEYWORDS) {
      if (isRecord(out[key])) out[key] = this.#build(out[key]);
    }
    for (const key of LIST_SCHEMA_KEYWORDS) {
      if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((c) => this.#build(c));
    }
    for (const key of MAP_SCHEMA_KEYWORDS) {
      if (!isRecord(out[key])) continue;
      const map: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(out[key] as Record<string, unknown>)) {
        map[name] = typeof child === "boolean" ? child : this.#build(child);
      }
      out[key] = map;
    }
    if (Array.isArray(out.required) && isRecord(out.properties)) {
      const properties = out.properties as Record<string, unknown>;
      const hidden = this.#direction === "request" ? "readOnly" : "writeOnly";
      out.required = (out.required as string[]).filter((name) =>
        !this.#isMarked(properties[name], hidden)
      );
    }
    return out;
  }

  /** A `$ref` node: a pointer into `$defs`, the target inlined, or `{}` past the budget. */
  #buildRef(node: Record<string, unknown>): JsonSchema {
    const { $ref: ref, nullable, ...rest } = node as { $ref: string } & Record<string, unknown>;
    let target: JsonSchema;
    if (!this.#included.has(ref)) {
      const reason = this.#lookups.resolve(ref) === undefined
        ? `unresolved reference ${ref}`
        : `not expanded, to keep the schema small`;
      target = { description: `${defName(ref)}: ${reason}` };
    } else if ((this.#uses.get(ref) ?? 0) > 1 || this.#inlining.size >= MAX_INLINE_DEPTH) {
      target = { $ref: `#/$defs/${this.#define(ref)}` };
    } else if (this.#inlining.has(ref)) {
      target = {}; // unreachable: a cycle re-enters through a component used twice
    } else {
      this.#inlining.add(ref);
      target = this.#build(this.#lookups.resolve(ref));
      this.#inlining.delete(ref);
    }
    const siblings = this.#build(rest);
    let result: JsonSchema = target;
    if (Object.keys(siblings).length > 0) {
      const annotations = Object.keys(siblings).every((k) => ANNOTATION_KEYWORDS.has(k));
      result = annotations ? { ...target, ...siblings } : { allOf: [target, siblings] };
    }
    return nullable === true ? { anyOf: [result, { type: "null" }] } : result;
  }

  /** The `$defs` key of a shared component, built the first time it is asked for. */
  #define(ref: string): string {
    let key = this.#defKeys.get(ref);
    if (key !== undefined) return key;
    const base = defName(ref);
    key = base;
    const taken = new Set(this.#defKeys.values());
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
    this.#defKeys.set(ref, key);
    this.#defs[key] = {};
    // A definition is a new root: what it inlines counts from zero.
    const outer = this.#inlining;
    this.#inlining = new Set();
    this.#defs[key] = this.#build(this.#lookups.resolve(ref));
    this.#inlining = outer;
    return key;
  }

  #isMarked(property: unknown, keyword: "readOnly" | "writeOnly"): boolean {
    if (!isRecord(property)) return false;
    if (property[keyword] === true) return true;
    if (typeof property.$ref !== "string") return false;
    const target = this.#lookups.resolve(property.$ref);
    return isRecord(target) && target[keyword] === true;
  }
}

/** Converts schemas of one document; see {@link schemaConverter}. */
export type SchemaConverter = (schema: unknown, direction: SchemaDirection) => JsonSchema;

/**
 * A converter for the schemas of `doc`, sharing `$ref` lookups between
 * calls: what `openApiConnector` uses for all its tools. Each result is a
 * self-contained JSON Schema of at most {@link MAX_SCHEMA_CHARS} characters,
 * unless the schema's own inline text (without its `$ref`s) is larger.
 */
export function schemaConverter(doc: OpenApiDocument): SchemaConverter {
  const lookups = new DocumentLookups(doc);
  const depths = [Infinity];
  for (let depth = MAX_REF_DEPTH; depth > 0; depth = Math.floor(depth / 2)) depths.push(depth);
  depths.push(0);
  return (schema, direction) => {
    let converted: JsonSchema = {};
    for (const depth of depths) {
      converted = new Conversion(lookups, direction, schema, depth).run(schema);
      if (JSON.stringify(converted).length <= MAX_SCHEMA_CHARS) break;
    }
    return converted;
  };
}

/**
 * One schema (part of `doc`) as a self-contained JSON Schema (see
 * {@link schemaConverter}).
 *
 * @example
 * ```ts
 * import { toJsonSchema } from "./schema.ts";
 * const doc = {
 *   openapi: "3.1.0",
 *   paths: {},
 *   components: { schemas: { Node: { type: "object", properties: { next: { $ref: "#/components/schemas/Node" } } } } },
 * };
 * const schema = toJsonSchema({ $ref: "#/components/schemas/Node" }, doc, "response");
 * console.assert(schema.$ref === "#/$defs/Node");
 * ```
 */
export function toJsonSchema(
  schema: unknown,
  doc: OpenApiDocument,
  direction: SchemaDirection,
): JsonSchema {
  return schemaConverter(doc)(schema, direction);
}
