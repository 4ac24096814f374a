/**
 * Pages for `caplets.<id>` listings: the documented `PageInput` (`{ limit, cursor }`) read and
 * checked, pages cut from a list held in memory (tools, search hits), and pages of a backend's
 * own listing (an MCP server's resources or prompts) cut to `limit` with a cursor that carries
 * the server's cursor and the place in its page, so nothing is skipped or sent twice and the
 * server only ever receives its own cursors.
 *
 * @module
 */
import { SearchIndex } from "../../connectors/search.ts";
import type { Page } from "../../connectors/types.ts";
import { CordonError } from "../../errors.ts";

/** Items per page when `limit` is not given. */
export const HANDLE_PAGE_SIZE = 50;
/** The largest `limit` a page takes: what one model turn can read. */
export const MAX_HANDLE_PAGE_SIZE = 100;
/** Default hits of `searchTools` / `searchResources` / `searchPrompts`. */
export const DEFAULT_HANDLE_HITS = 10;
/** Pages read from a backend to search or fill a page; enough for real servers. */
export const MAX_SEARCH_PAGES = 20;
/** Longest cursor accepted back: ours are short; a longer one is not ours. */
const MAX_CURSOR_CHARS = 2_048;

/** `PageInput`, checked. */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

/**
 * Reads a `PageInput` (`{ limit?, cursor? }`). A bare string is taken as the cursor (the older
 * `tools(cursor)` form). Bad values are `invalid_input`, never ignored.
 */
export function pageInput(input: unknown, defaultLimit = HANDLE_PAGE_SIZE): PageRequest {
  if (input === undefined || input === null) return { limit: defaultLimit };
  if (typeof input === "string") return { limit: defaultLimit, cursor: checkCursor(input) };
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new CordonError("invalid_input", "A page input is { limit?: number, cursor?: string }");
  }
  const { limit, cursor } = input as { limit?: unknown; cursor?: unknown };
  const out: PageRequest = { limit: defaultLimit };
  if (limit !== undefined) {
    if (!Number.isSafeInteger(limit) || (limit as number) < 1) {
      throw new CordonError(
        "invalid_input",
        `limit must be a whole number from 1 to ${MAX_HANDLE_PAGE_SIZE}, not ${String(limit)}`,
      );
    }
    out.limit = Math.min(limit as number, MAX_HANDLE_PAGE_SIZE);
  }
  if (cursor !== undefined && cursor !== null) out.cursor = checkCursor(cursor);
  return out;
}

function checkCursor(cursor: unknown): string {
  if (typeof cursor !== "string" || cursor === "" || cursor.length > MAX_CURSOR_CHARS) {
    throw new CordonError("invalid_input", "Unknown cursor; pass back a nextCursor you were given");
  }
  return cursor;
}

function badCursor(): CordonError {
  return new CordonError("invalid_input", "Unknown cursor; pass back a nextCursor you were given");
}

/** One page of `all`, the cursor being an offset into it. */
export function pageOf<T>(all: readonly T[], request: PageRequest): Page<T> {
  const start = request.cursor === undefined ? 0 : Number(request.cursor);
  if (!Number.isSafeInteger(start) || start < 0 || String(start) !== (request.cursor ?? "0")) {
    throw badCursor();
  }
  const end = start + request.limit;
  const items = all.slice(start, end);
  return end < all.length ? { items, nextCursor: String(end) } : { items };
}

/** A backend listing one page at a time, by its own cursors. */
export type BackendList<T> = (cursor?: string) => Promise<Page<T>>;

/** Our cursor over a backend: its page's cursor (absent: the first) and how far into it we are. */
function encode(serverCursor: string | undefined, offset: number): string {
  return JSON.stringify(serverCursor === undefined ? [offset] : [offset, serverCursor]);
}

function decode(cursor: string | undefined): { server?: string; offset: number } {
  if (cursor === undefined) return { offset: 0 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(cursor);
  } catch {
    throw badCursor();
  }
  if (
    !Array.isArray(parsed) || parsed.length < 1 || parsed.length > 2 ||
    !Number.isSafeInteger(parsed[0]) || parsed[0] < 0 ||
    (parsed.length === 2 && typeof parsed[1] !== "string")
  ) {
    throw badCursor();
  }
  return parsed.length === 2 ? { offset: parsed[0], server: parsed[1] } : { offset: parsed[0] };
}

/**
 * Up to `limit` items of a backend listing from `cursor`, reading as many of its pages as that
 * takes (at most {@link MAX_SEARCH_PAGES}).
 */
export async function backendPage<T>(list: BackendList<T>, request: PageRequest): Promise<Page<T>> {
  let { server, offset } = decode(request.cursor);
  const items: T[] = [];
  for (let i = 0; i < MAX_SEARCH_PAGES; i++) {
    const page = await list(server);
    const rest = page.items.slice(offset);
    const room = request.limit - items.length;
    items.push(...rest.slice(0, room));
    if (rest.length > room) return { items, nextCursor: encode(server, offset + room) };
    if (!page.nextCursor) return { items };
    server = page.nextCursor;
    offset = 0;
    if (items.length === request.limit) return { items, nextCursor: encode(server, 0) };
  }
  return { items, nextCursor: encode(server, offset) };
}

/** Every item of a backend listing, up to {@link MAX_SEARCH_PAGES} of its pages. */
export async function collect<T>(list: BackendList<T>): Promise<Page<T>> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_SEARCH_PAGES; i++) {
    const page = await list(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return { items };
  }
  return { items, truncated: true };
}

/** Ranks listed items (resources, prompts) for a query with the same engine as tool search. */
export function rank<T extends { name?: string; title?: string; description?: string }>(
  items: readonly T[],
  query: string,
  key: (item: T) => string,
): T[] {
  const index = new SearchIndex(items.map((item) => ({
    kind: "tool" as const,
    path: key(item),
    name: item.name ?? key(item),
    description: `${item.title ?? ""} ${item.description ?? ""} ${key(item)}`,
  })));
  const byKey = new Map(items.map((item) => [key(item), item]));
  return index.search(query, { limit: MAX_HANDLE_PAGE_SIZE }).items.map((h) => byKey.get(h.path)!);
}
