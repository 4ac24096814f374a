/**
 * Search cursors: an offset and a hash of what the ranking read of the query, base64url, so a
 * cursor from another query is refused instead of paging the wrong results.
 *
 * @module
 */
import { CordonError } from "../errors.ts";

/** Our own cursors are ~40 characters; a longer one is garbage, refused before decoding. */
const MAX_CURSOR_LENGTH = 256;

/** FNV-1a, 32 bits: binds a cursor to its query. Not a secret; cursors grant nothing. */
export function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** The cursor of the page starting at `offset` of the query hashed `queryHash`. */
export function encodeCursor(offset: number, queryHash: string): string {
  const json = JSON.stringify({ o: offset, q: queryHash });
  return btoa(json).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function badCursor(reason: string): CordonError {
  return new CordonError(
    "invalid_request",
    `Cannot use cursor: ${reason}; pass the nextCursor of the same query, or omit it to start over`,
  );
}

/** The offset a cursor of the query hashed `queryHash` points at; `invalid_request` otherwise. */
export function decodeCursor(cursor: string, queryHash: string): number {
  if (typeof cursor !== "string" || cursor === "" || cursor.length > MAX_CURSOR_LENGTH) {
    throw badCursor("it is not a cursor this search returned");
  }
  let parsed: unknown;
  try {
    const b64 = cursor.replace(/-/g, "+").replace(/_/g, "/");
    parsed = JSON.parse(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)));
  } catch {
    throw badCursor("it is not a cursor this search returned");
  }
  const { o, q } = (parsed ?? {}) as { o?: unknown; q?: unknown };
  if (!Number.isSafeInteger(o) || (o as number) < 0 || typeof q !== "string") {
    throw badCursor("it is not a cursor this search returned");
  }
  if (q !== queryHash) throw badCursor("it belongs to a different query");
  return o as number;
}
