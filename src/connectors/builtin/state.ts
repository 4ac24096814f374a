/**
 * The built-in `state` connector: durable key-value working memory that outlives one
 * execution (a cursor into a backlog, what was already processed, a counter), kept in libSQL
 * in the table `cordon_state`, which the connector creates itself on `start()`.
 *
 * Every operation is one SQL statement, so concurrent calls from one process, from several
 * processes on one `file:` database, or from several nodes on one libSQL server never lose an
 * update: `increment` adds in SQL, and the key limit is checked inside the insert.
 *
 * A namespace is a tenant: every key, listing and the key limit belong to the namespace of the
 * execution that calls (`ToolContext.namespace`), so one tenant can neither read, overwrite,
 * list nor crowd out another's keys.
 *
 * @module
 */
import { z } from "zod";
import { CordonError } from "../../errors.ts";
import { defineConnector } from "../define.ts";
import type { Connector, Tool } from "../types.ts";
import { CREATE_TABLE, DELETE, GET, INCREMENT, LIST, TYPE_OF, UPSERT } from "./state_sql.ts";
import {
  DEFAULT_STATE_LIST_LIMIT,
  DEFAULT_STATE_MAX_KEY_LENGTH,
  DEFAULT_STATE_MAX_KEYS,
  DEFAULT_STATE_MAX_VALUE_BYTES,
  MAX_STATE_LIST_LIMIT,
  positiveInteger,
  type StateConnectorOptions,
} from "./state_options.ts";

export {
  DEFAULT_STATE_LIST_LIMIT,
  DEFAULT_STATE_MAX_KEY_LENGTH,
  DEFAULT_STATE_MAX_KEYS,
  DEFAULT_STATE_MAX_VALUE_BYTES,
  MAX_STATE_LIST_LIMIT,
  type StateConnectorOptions,
} from "./state_options.ts";

const encoder = new TextEncoder();

/**
 * Where a calling namespace's keys live in the table: the namespace itself, or `prefix:namespace`
 * under a connector prefix. Calling namespaces never hold a `:` (`NAMESPACE_PATTERN`), so no two
 * (prefix, namespace) pairs share a row key.
 */
export function stateScope(prefix: string | undefined, namespace: string): string {
  return prefix === undefined ? namespace : `${prefix}:${namespace}`;
}

/** A list cursor: the last key of the page, base64url-encoded so it reads as opaque. */
function encodeCursor(key: string): string {
  return btoa(String.fromCharCode(...encoder.encode(key)))
    .replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function decodeCursor(cursor: string): string | undefined {
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The built-in `state` connector on a libSQL database.
 *
 * @example
 * ```ts
 * import { openDb } from "../../store/client.ts";
 * import { ConnectorRegistry } from "../registry.ts";
 * import { stateConnector } from "./state.ts";
 * const db = await openDb(":memory:");
 * const state = stateConnector({ db });
 * await state.start?.();
 * const reg = new ConnectorRegistry([state]);
 * const acme = { executionId: "e1", namespace: "acme" };
 * await reg.call("state", "set", { key: "cursor", value: { page: 2 } }, acme);
 * const got = await reg.call("state", "get", { key: "cursor" }, acme);
 * console.assert(got.ok && (got.value as { page: number }).page === 2);
 * // Another namespace has its own keys.
 * const other = await reg.call("state", "get", { key: "cursor" }, { executionId: "e2", namespace: "globex" });
 * console.assert(other.ok && other.value === null);
 * db.close();
 * ```
 */
export function stateConnector(options: StateConnectorOptions): Connector {
  const { db } = options;
  const scopePrefix = options.namespace;
  if (scopePrefix !== undefined && (typeof scopePrefix !== "string" || scopePrefix.length === 0)) {
    throw new CordonError(
      "invalid_request",
      "stateConnector: namespace must be a non-empty string",
    );
  }
  const maxValueBytes = positiveInteger(
    "maxValueBytes",
    options.maxValueBytes,
    DEFAULT_STATE_MAX_VALUE_BYTES,
  );
  const maxKeys = positiveInteger("maxKeys", options.maxKeys, DEFAULT_STATE_MAX_KEYS);
  const maxKeyLength = positiveInteger(
    "maxKeyLength",
    options.maxKeyLength,
    DEFAULT_STATE_MAX_KEY_LENGTH,
  );
  const now = options.now ?? Date.now;
  const name = options.name ?? "state";

  let created: Promise<unknown> | undefined;
  // Tools also work before `start()`; a failed creation is tried again on the next call.
  const ready = () =>
    created ??= db.execute(CREATE_TABLE).catch((err) => {
      created = undefined;
      throw err;
    });

  const key = z.string().min(1).max(maxKeyLength).describe(
    `A name of 1 to ${maxKeyLength} characters`,
  );
  const tooLarge = (k: string, bytes: number) =>
    new CordonError(
      "value_too_large",
      `The value for "${k}" is ${bytes} bytes of JSON; ${name} keeps at most ${maxValueBytes} per key. Store less: ids, a summary or a cursor instead of whole records, or split it over several keys`,
      { details: { key: k, bytes, limit: maxValueBytes } },
    );
  const full = () =>
    new CordonError(
      "limit_exceeded",
      `${name} already holds ${maxKeys} keys for this namespace, its limit; delete keys you no longer need (list() shows them)`,
      { details: { limit: maxKeys } },
    );

  const connector = defineConnector({
    name,
    description:
      `Durable key-value memory that survives across executions. Values are JSON, at most ${maxValueBytes} bytes each; at most ${maxKeys} keys.`,
    tools: {
      get: {
        description: "The value stored under a key, or null when there is none",
        input: z.object({ key }),
        output: z.json(),
        readOnly: true,
        execute: async ({ key }, { namespace }) => {
          await ready();
          const { rows } = await db.execute({
            sql: GET,
            args: [stateScope(scopePrefix, namespace), key],
          });
          return rows.length === 0 ? null : JSON.parse(String(rows[0].value));
        },
      },
      set: {
        description:
          `Stores a JSON value under a key, replacing any value there (at most ${maxValueBytes} bytes)`,
        input: z.object({ key, value: z.json() }),
        output: z.object({ bytes: z.number().int() }),
        destructive: true,
        execute: async ({ key, value }, { namespace }) => {
          const json = JSON.stringify(value);
          const bytes = encoder.encode(json).length;
          if (bytes > maxValueBytes) throw tooLarge(key, bytes);
          await ready();
          const { rowsAffected } = await db.execute({
            sql: UPSERT,
            args: [stateScope(scopePrefix, namespace), key, json, now(), maxKeys],
          });
          if (rowsAffected === 0) throw full();
          return { bytes };
        },
      },
      delete: {
        description: "Removes a key; true when it was there",
        input: z.object({ key }),
        output: z.boolean(),
        destructive: true,
        execute: async ({ key }, { namespace }) => {
          await ready();
          const { rowsAffected } = await db.execute({
            sql: DELETE,
            args: [stateScope(scopePrefix, namespace), key],
          });
          return rowsAffected > 0;
        },
      },
      list: {
        description: "Keys in order, with their sizes; pass nextCursor back for the next page",
        input: z.object({
          prefix: z.string().max(maxKeyLength).optional(),
          limit: z.number().int().min(1).max(MAX_STATE_LIST_LIMIT).optional(),
          cursor: z.string().refine((c) => decodeCursor(c) !== undefined, {
            message: "is not a cursor list() made; pass nextCursor as it came",
          }).optional(),
        }),
        output: z.object({
          items: z.array(z.object({ key: z.string(), bytes: z.number(), updatedAt: z.string() })),
          nextCursor: z.string().optional(),
        }),
        readOnly: true,
        execute: async ({ prefix, limit, cursor }, { namespace }) => {
          const after = cursor === undefined ? "" : decodeCursor(cursor) ?? "";
          const pageSize = limit ?? DEFAULT_STATE_LIST_LIMIT;
          await ready();
          const { rows } = await db.execute({
            sql: LIST,
            args: [stateScope(scopePrefix, namespace), after, prefix ?? "", pageSize + 1],
          });
          const items = rows.slice(0, pageSize).map((r) => ({
            key: String(r.key),
            bytes: Number(r.bytes),
            updatedAt: new Date(Number(r.updated_at)).toISOString(),
          }));
          const page: { items: typeof items; nextCursor?: string } = { items };
          if (rows.length > pageSize) page.nextCursor = encodeCursor(items[items.length - 1].key);
          return page;
        },
      },
      increment: {
        description:
          "Adds `by` (default 1) to the number under a key, starting from 0, atomically; returns the new number",
        input: z.object({ key, by: z.number().optional() }),
        output: z.number(),
        execute: async ({ key, by }, { namespace }) => {
          const step = by ?? 1;
          // Integers go to SQLite as integers, so counters stay exact and print without ".0".
          const bound = Number.isSafeInteger(step) ? BigInt(step) : step;
          await ready();
          const { rows } = await db.execute({
            sql: INCREMENT,
            args: [stateScope(scopePrefix, namespace), key, bound, now(), maxKeys],
          });
          if (rows.length > 0) return Number(JSON.parse(String(rows[0].value)));
          const { rows: held } = await db.execute({
            sql: TYPE_OF,
            args: [stateScope(scopePrefix, namespace), key],
          });
          if (held.length === 0) throw full();
          throw new CordonError(
            "invalid_input",
            `"${key}" holds a JSON ${
              held[0].type
            }, not a number; set it to a number or use another key`,
          );
        },
      },
    },
  });
  // The size check needs only the arguments, so it runs with input validation and the script
  // sees `value_too_large` itself rather than a failed call.
  const set = connector.tools.find((t) => t.name === "set") as Tool;
  const checkShape = set.validateInput!;
  set.validateInput = (args) => {
    const v = checkShape(args);
    if (!v.ok) return v;
    const { key: k, value } = v.value as { key: string; value: unknown };
    const bytes = encoder.encode(JSON.stringify(value)).length;
    return bytes > maxValueBytes ? { ok: false, error: tooLarge(k, bytes).toInfo() } : v;
  };
  connector.start = async () => {
    await ready();
  };
  return connector;
}
