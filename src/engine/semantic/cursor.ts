/**
 * Cursors of fused rankings: a lexical cursor (an offset bound to the namespace and query) with
 * `~` in front, which base64url never holds, so a cursor of the lexical index (a search made
 * while the embedder was off) is told apart and handed back to it.
 *
 * @module
 */
import { decodeCursor, encodeCursor, hashText } from "../../connectors/search_cursor.ts";

/** What a fused cursor starts with. */
export const FUSED_CURSOR_PREFIX = "~";

/** Binds a cursor to its namespace and query (the lexical cursors' hash). */
export const bindingOf: (text: string) => string = hashText;

/** Whether `cursor` is a fused ranking's (else it is the lexical index's to judge). */
export function isFusedCursor(cursor: unknown): boolean {
  return typeof cursor === "string" && cursor.startsWith(FUSED_CURSOR_PREFIX);
}

/** The cursor of the page at `offset` of the ranking bound to `binding`. */
export function encodeFusedCursor(offset: number, binding: string): string {
  return FUSED_CURSOR_PREFIX + encodeCursor(offset, binding);
}

/** The offset a fused cursor holds; `invalid_request` if it is garbage or another query's. */
export function decodeFusedCursor(cursor: string, binding: string): number {
  return decodeCursor(cursor.slice(FUSED_CURSOR_PREFIX.length), binding);
}
