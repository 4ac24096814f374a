/**
 * Local `$ref` resolution: JSON pointers into the schema being converted
 * (`#`, `#/$defs/Name`, `#/definitions/Name`, any `#/a/b/0`).
 *
 * @module
 */

/** Whether `value` is a plain JSON-like object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The schema `ref` points at inside `root`, or `undefined` when it is remote
 * (`https://…`, `other.json#/x`), an anchor (`#name`) or points nowhere.
 * Only own properties are followed, so `#/__proto__` or `#/constructor`
 * never reach `Object.prototype`.
 */
export function resolveRef(root: unknown, ref: string): unknown {
  if (ref === "#" || ref === "#/") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isRecord(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}
