/**
 * Tool names for operations. A name is a JavaScript identifier of at most
 * 64 characters (`^[A-Za-z_][A-Za-z0-9_]{0,63}$`): stricter than the
 * registry's tool names (which allow `-` and `.`), so a script writes
 * `pets.listAll()` rather than `pets["pets.list-all"]()`.
 *
 * 1. from `operationId` when the operation has one: every run of characters
 *    other than letters, digits and `_` becomes one `_` (`pets.list-all` →
 *    `pets_list_all`), leading and trailing `_` are dropped, a leading digit
 *    gets `op_` in front, and `constructor` becomes `constructor_`;
 * 2. otherwise (or when nothing is left) from the method and the path, the
 *    same way: `GET /pets/{petId}` → `get_pets_petId`, `GET /` → `get`;
 * 3. cut to 64 characters; a name already taken gets `_2`, `_3`, … (cut
 *    further to fit), in document order, so the first keeps the plain name.
 *
 * @module
 */
import type { OpenApiOperation } from "./operations.ts";

/** The longest tool name made: long enough for real operationIds, short enough to read. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Names the registry refuses for a tool even when they match its pattern. */
const FORBIDDEN_NAMES = new Set(["constructor", "__proto__"]);

function sanitize(text: string): string {
  let name = text.replace(/[^A-Za-z0-9_]+/g, "_").replace(/_+/g, "_").replace(/^_+|_+$/g, "");
  if (/^[0-9]/.test(name)) name = `op_${name}`;
  if (FORBIDDEN_NAMES.has(name)) name = `${name}_`;
  return name.slice(0, MAX_TOOL_NAME_LENGTH);
}

/**
 * The name an operation asks for, before duplicates are told apart.
 *
 * @example
 * ```ts
 * import { baseToolName } from "./names.ts";
 * console.assert(baseToolName({ method: "get", path: "/pets/{petId}" }) === "get_pets_petId");
 * console.assert(baseToolName({ method: "get", path: "/x", operationId: "pets.list" }) === "pets_list");
 * ```
 */
export function baseToolName(
  op: Pick<OpenApiOperation, "method" | "path" | "operationId">,
): string {
  const fromId = op.operationId === undefined ? "" : sanitize(op.operationId);
  return fromId || sanitize(`${op.method}_${op.path}`) || op.method;
}

/** One unique tool name per operation, in the order given. */
export function assignToolNames(
  ops: readonly Pick<OpenApiOperation, "method" | "path" | "operationId">[],
): string[] {
  const taken = new Set<string>();
  return ops.map((op) => {
    const base = baseToolName(op);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  });
}
