/**
 * Reading a stored result (or any text artifact) in pages: each page is a bounded run of the
 * text's UTF-8 bytes, cut between characters so it decodes on its own, and names where the
 * next one starts. The same pages serve a script (`codemode.readResult`), a library caller
 * (`runtime.readResult`) and HTTP (`GET /v1/artifacts/:name?offset=&limit=`).
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { ArtifactRow, ArtifactStore } from "../../store/artifacts.ts";
import { checkNamespace, type InNamespace } from "../common/namespace.ts";
import { parseArtifactRef } from "./ref.ts";

/**
 * Bytes a page holds when the reader does not say: half the default inline result limit, less
 * a little, so a page a run returns stays inline even if every character needs escaping.
 */
export const DEFAULT_RESULT_PAGE_BYTES = 16_000;
/** The most one page holds: one bounded read of the store and one bounded frame to a child. */
export const MAX_RESULT_PAGE_BYTES = 1024 * 1024;
/** The longest UTF-8 character, in bytes: read past a page's end to find where one starts. */
const MAX_CHAR_BYTES = 4;

/** What {@link readResultPage} takes. */
export interface ReadResultOptions extends InNamespace {
  /** A result's `resultRef` (`results/<id>.json@1`), or any text artifact's reference. */
  resultRef: string;
  /** Where to start, in bytes: a `nextCursor` (absent: the start). */
  cursor?: string;
  /** The most bytes on the page, 1 to 1 MiB (default 16,000). */
  limit?: number;
}

/** One page of a stored result's text. */
export interface ResultPage {
  /** The artifact read, `name@version`. */
  resultRef: string;
  /** Its media type. */
  mimeType: string;
  /** Where this page starts, in bytes from the start of the text. */
  offset: number;
  /** The page's text; the pages in order concatenate to the whole text. */
  text: string;
  /** The whole text's size in bytes. */
  totalBytes: number;
  /** Pass back as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

/** The first `max` UTF-16 units of `text`, never splitting a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** True for a byte that continues a UTF-8 character (it cannot start a page). */
function continues(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Where a page of `data` (read from its start, `limit` asked) ends: between characters. */
export function pageEnd(data: Uint8Array, limit: number, atEnd: boolean): number {
  if (data.byteLength <= limit && atEnd) return data.byteLength;
  let end = Math.min(limit, data.byteLength);
  while (end > 0 && end < data.byteLength && continues(data[end])) end--;
  if (end > 0) return end;
  // One character longer than the page: it comes whole, or a reader would never get past it.
  end = 1;
  while (end < data.byteLength && continues(data[end])) end++;
  return end;
}

/** Text types: `text/*`, JSON, XML, YAML, JavaScript and anything that names a charset. */
export function isTextType(mimeType: string): boolean {
  const t = mimeType.toLowerCase();
  return t.startsWith("text/") || /[/+](json|xml|yaml|javascript|x-ndjson|jsonl)\b/.test(t) ||
    /;\s*charset=/.test(t);
}

function offsetOf(cursor: unknown): number {
  if (cursor === undefined) return 0;
  const offset = typeof cursor === "string" && /^(0|[1-9][0-9]{0,15})$/.test(cursor)
    ? Number(cursor)
    : NaN;
  if (!Number.isSafeInteger(offset)) {
    throw new CordonError(
      "invalid_request",
      `Invalid result cursor ${JSON.stringify(cursor)?.slice(0, 40)}: pass a nextCursor back`,
    );
  }
  return offset;
}

/** `limit` checked (default {@link DEFAULT_RESULT_PAGE_BYTES}). */
export function pageBytes(limit: unknown): number {
  if (limit === undefined) return DEFAULT_RESULT_PAGE_BYTES;
  if (
    !Number.isSafeInteger(limit) || (limit as number) < 1 ||
    (limit as number) > MAX_RESULT_PAGE_BYTES
  ) {
    throw new CordonError(
      "invalid_request",
      `A result page limit is a whole number of bytes from 1 to ${MAX_RESULT_PAGE_BYTES}; got ${
        String(limit).slice(0, 40)
      }`,
    );
  }
  return limit as number;
}

/**
 * Reads one page of a stored result's text in `namespace`. A reference of another namespace
 * reads as `not_found`, exactly like one that does not exist; a cursor inside a character or
 * past the end, and an artifact that is not text, are `invalid_request`.
 */
export async function readResultPage(
  store: ArtifactStore,
  o: ReadResultOptions,
): Promise<ResultPage> {
  const namespace = checkNamespace(o?.namespace);
  if (typeof o?.resultRef !== "string" || o.resultRef === "") {
    throw new CordonError("invalid_request", "readResult() needs the resultRef of a result");
  }
  const { name, version } = parseArtifactRef(o.resultRef);
  const offset = offsetOf(o.cursor);
  const limit = pageBytes(o.limit);
  const found = await store.slice(namespace, name, version, offset, limit + MAX_CHAR_BYTES);
  if (!found) {
    throw new CordonError("not_found", `There is no stored result under "${o.resultRef}"`);
  }
  const { row, data } = found;
  checkPage(row, offset, data);
  const end = pageEnd(data, limit, offset + data.byteLength >= row.size);
  const page: ResultPage = {
    resultRef: `${row.name}@${row.version}`,
    mimeType: row.mimeType,
    offset,
    text: new TextDecoder().decode(data.subarray(0, end)),
    totalBytes: row.size,
  };
  if (offset + end < row.size) page.nextCursor = String(offset + end);
  return page;
}

function checkPage(row: ArtifactRow, offset: number, data: Uint8Array): void {
  if (!isTextType(row.mimeType)) {
    throw new CordonError(
      "invalid_request",
      `Artifact ${row.name}@${row.version} is ${row.mimeType}, not text: download it whole`,
    );
  }
  if (offset > row.size) {
    throw new CordonError(
      "invalid_request",
      `The cursor ${offset} is past the end of ${row.name}@${row.version} (${row.size} bytes)`,
    );
  }
  if (data.byteLength > 0 && continues(data[0])) {
    throw new CordonError(
      "invalid_request",
      `The cursor ${offset} is inside a character of ${row.name}@${row.version}; pass a nextCursor back`,
    );
  }
}
