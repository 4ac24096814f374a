/**
 * The schemas of Vercel AI SDK tools, made into what a Cordon `Tool` needs: a JSON Schema
 * and a checker that answers with a `Validation`. An AI SDK schema may be a zod (v4)
 * schema, the SDK's own `jsonSchema()` object (JSON Schema plus an optional `validate`), a lazy
 * function returning one, or any Standard Schema that can produce JSON Schema.
 *
 * Only types are imported from `ai`: loading the SDK at run time costs startup for every user of
 * the connectors module, and the few facts needed here (the schema marker symbol, the shape of a
 * validation result) are part of its public contract.
 *
 * @module
 */
import { z } from "zod";
import { CordonError, type ErrorCode, errorInfo } from "../errors.ts";
import type { JsonSchema, Validation } from "./types.ts";
import { type CompiledSchema, compileJsonSchema } from "./json_schema.ts";

/** How the AI SDK marks its own schema objects (`Symbol.for("vercel.ai.schema")` in provider-utils). */
const AI_SCHEMA_MARKER = Symbol.for("vercel.ai.schema");

/** Issues named in one failure message; the rest are counted, and all are in `details`. */
const MAX_ISSUES_IN_MESSAGE = 5;

/** What failed, for messages and codes. */
export interface SchemaRole {
  /** `invalid_input` for arguments, `invalid_output` for results. */
  code: Extract<ErrorCode, "invalid_input" | "invalid_output">;
  /** The start of a failure message, e.g. `Invalid input for weather.forecast`. */
  label: string;
}

/** An AI SDK schema, adapted. */
export interface AdaptedSchema {
  /** The JSON Schema; `{}` until `ready` settles when the SDK schema gave a promise of one. */
  readonly json: JsonSchema;
  /** Settles once `json` is final; rejects when the schema's promise does. */
  readonly ready: Promise<void>;
  /** Checks a value. A promise only when the schema's own validator answers with one. */
  check(value: unknown): Validation | Promise<Validation>;
}

interface AiSchemaLike {
  readonly jsonSchema: unknown;
  readonly validate?: (value: unknown) => unknown;
}

interface StandardSchemaLike {
  readonly "~standard": {
    vendor?: string;
    validate(value: unknown): unknown;
    jsonSchema?: {
      input(options: { target: string }): unknown;
      output(options: { target: string }): unknown;
    };
  };
}

/** True for a promise or any other thenable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/** A failure value with the first issues in its message and all of them in `details`. */
function failure(
  role: SchemaRole,
  issues: { path: string; message: string }[],
): Validation {
  const summary = issues
    .slice(0, MAX_ISSUES_IN_MESSAGE)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join("; ");
  const extra = issues.length - MAX_ISSUES_IN_MESSAGE;
  const more = extra > 0 ? ` (and ${extra} more)` : "";
  return { ok: false, error: errorInfo(role.code, `${role.label}: ${summary}${more}`, { issues }) };
}

/** Issues from a zod error, a Standard Schema issue list, or any other error. */
function issuesOf(error: unknown): { path: string; message: string }[] {
  const list = Array.isArray((error as { issues?: unknown })?.issues)
    ? (error as { issues: unknown[] }).issues
    : Array.isArray((error as { cause?: unknown })?.cause)
    ? (error as { cause: unknown[] }).cause
    : Array.isArray(error)
    ? error
    : undefined;
  if (!list) {
    return [{ path: "", message: error instanceof Error ? error.message : String(error) }];
  }
  return list.map((issue) => {
    const { path, message } = issue as { path?: unknown[]; message?: unknown };
    const segments = Array.isArray(path)
      ? path.map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p))
      : [];
    return { path: segments.map(String).join("."), message: String(message ?? "is invalid") };
  });
}

/** Maps whatever a validator answered (or threw) to a {@link Validation}. */
function settle(answer: () => unknown, map: (result: unknown) => Validation, role: SchemaRole) {
  let result: unknown;
  try {
    result = answer();
  } catch (err) {
    return failure(role, issuesOf(err));
  }
  if (!isThenable(result)) return map(result);
  return Promise.resolve(result).then(map, (err) => failure(role, issuesOf(err)));
}

function fromZod(schema: z.ZodType, io: "input" | "output", role: SchemaRole): AdaptedSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  const map = (r: unknown): Validation => {
    const parsed = r as z.ZodSafeParseResult<unknown>;
    return parsed.success
      ? { ok: true, value: parsed.data }
      : failure(role, issuesOf(parsed.error));
  };
  return {
    json,
    ready: Promise.resolve(),
    check(value) {
      try {
        return map(z.safeParse(schema, value));
      } catch (err) {
        // A schema with async refinements cannot parse synchronously; zod says so by throwing.
        if (!(err instanceof z.core.$ZodAsyncError)) return failure(role, issuesOf(err));
        return settle(() => z.safeParseAsync(schema, value), map, role);
      }
    },
  };
}

/**
 * Compiles a JSON Schema with the one validator for schemas from outside (linear-time patterns),
 * or `null` when it cannot be compiled (a `$ref` it cannot resolve, a keyword value it refuses):
 * such values are then accepted as they are, which is what the AI SDK itself does for a
 * `jsonSchema()` without `validate`.
 */
function compileToolJsonSchema(json: JsonSchema): CompiledSchema | null {
  try {
    return compileJsonSchema(json);
  } catch {
    return null;
  }
}

function fromAiSchema(schema: AiSchemaLike, role: SchemaRole): AdaptedSchema {
  let json: JsonSchema = {};
  let compiled: CompiledSchema | null | undefined;
  const take = (raw: unknown) => {
    json = (raw ?? {}) as JsonSchema;
    if (!schema.validate) compiled = compileToolJsonSchema(json);
  };
  const raw = schema.jsonSchema;
  const ready = isThenable(raw) ? Promise.resolve(raw).then(take) : Promise.resolve(take(raw));
  // Whoever needs the schema awaits `ready` and sees its failure; this copy only keeps an early
  // rejection from being reported as unhandled.
  ready.catch(() => {});
  const mapAi = (r: unknown): Validation => {
    const result = r as { success?: boolean; value?: unknown; error?: unknown };
    return result?.success === true
      ? { ok: true, value: result.value }
      : failure(role, issuesOf(result?.error ?? "is invalid"));
  };
  const adapted: AdaptedSchema = {
    get json() {
      return json;
    },
    ready,
    check(value) {
      if (schema.validate) return settle(() => schema.validate!(value), mapAi, role);
      if (compiled === undefined) return ready.then(() => adapted.check(value));
      if (compiled === null) return { ok: true, value };
      const issues = compiled.check(value);
      return issues.length === 0 ? { ok: true, value } : failure(role, issues);
    },
  };
  return adapted;
}

function fromStandard(
  schema: StandardSchemaLike,
  io: "input" | "output",
  role: SchemaRole,
): AdaptedSchema {
  const std = schema["~standard"];
  if (!std.jsonSchema) {
    throw new CordonError(
      "invalid_request",
      `${role.label}: a ${
        std.vendor ?? "Standard Schema"
      } schema that cannot produce JSON Schema; wrap it with jsonSchema() from "ai"`,
    );
  }
  const json = std.jsonSchema[io]({ target: "draft-2020-12" }) as JsonSchema;
  const map = (r: unknown): Validation => {
    const result = r as { value?: unknown; issues?: unknown[] };
    return result.issues
      ? failure(role, issuesOf(result.issues))
      : { ok: true, value: result.value };
  };
  return {
    json,
    ready: Promise.resolve(),
    check: (value) => settle(() => std.validate(value), map, role),
  };
}

/**
 * Adapts one AI SDK schema. Throws `invalid_request` for something that is not a schema.
 *
 * @example
 * ```ts
 * import { jsonSchema } from "ai";
 * import { adaptSchema } from "./toolset_schema.ts";
 * const s = adaptSchema(jsonSchema({ type: "object", properties: { n: { type: "number" } } }), "input", {
 *   code: "invalid_input",
 *   label: "Invalid input for demo.count",
 * });
 * console.assert(s.json.type === "object");
 * const v = s.check({ n: "three" });
 * console.assert(!(v instanceof Promise) && !v.ok && v.error.code === "invalid_input");
 * ```
 */
export function adaptSchema(
  schema: unknown,
  io: "input" | "output",
  role: SchemaRole,
): AdaptedSchema {
  if (typeof schema === "function") return adaptSchema(schema(), io, role); // lazySchema()
  if (typeof schema !== "object" || schema === null) {
    throw new CordonError("invalid_request", `${role.label}: the ${io} schema is missing`);
  }
  if ("_zod" in schema) return fromZod(schema as z.ZodType, io, role);
  if (AI_SCHEMA_MARKER in schema) return fromAiSchema(schema as unknown as AiSchemaLike, role);
  if ("~standard" in schema) return fromStandard(schema as StandardSchemaLike, io, role);
  throw new CordonError(
    "invalid_request",
    `${role.label}: the ${io} schema is not a zod schema, jsonSchema() or a Standard Schema`,
  );
}
