/**
 * Cursors of fused rankings: an offset bound to the namespace and query. They start with `~`,
 * which base64url never holds, so a cursor of the lexical index (a search made while the
 * embedder was off) is told apart and handed back to it.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { hashText } from "../../connectors/search_cursor.ts";

/** What a fused cursor starts with. */
export const FUSED_CURSOR_PREFIX = "~";
/** Our cursors are about 40 characters; a longer one is garbage, refused before decoding. */
const MAX_CURSOR_LENGTH = 256;

/** Binds a cursor to its namespace and query (the lexical cursors' hash). */
export const bindingOf: (text: string) => string = hashText;

/** Whether `cursor` is a fused ranking's (else it is the lexical index's to judge). */
export function isFusedCursor(cursor: unknown): boolean {
  return typeof cursor === "string" && cursor.startsWith(FUSED_CURSOR_PREFIX);
}

/** The cursor of the page at `offset` of the ranking bound to `binding`. */
export function encodeFusedCursor(offset: number, binding: string): string {
  const json = JSON.stringify({ o: offset, q: binding });
  return FUSED_CURSOR_PREFIX +
    btoa(json).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function badCursor(reason: string): CordonError {
  return new CordonError(
    "invalid_request",
    `Cannot use cursor: ${reason}; pass the nextCursor of the same query, or omit it to start over`,
  );
}

/** The offset a fused cursor holds; `invalid_request` if it is garbage or another query's. */
export function decodeFusedCursor(cursor: string, binding: string): number {
  if (cursor.length > MAX_CURSOR_LENGTH) throw badCursor("it is not a cursor this search returned");
  let parsed: unknown;
  try {
    const b64 = cursor.slice(FUSED_CURSOR_PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
    parsed = JSON.parse(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)));
  } catch {
    throw badCursor("it is not a cursor this search returned");
  }
  const { o, q } = (parsed ?? {}) as { o?: unknown; q?: unknown };
  if (!Number.isSafeInteger(o) || (o as number) < 0 || typeof q !== "string") {
    throw badCursor("it is not a cursor this search returned");
  }
  if (q !== binding) throw badCursor("it belongs to a different query");
  return o as number;
}
