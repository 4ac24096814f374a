/**
 * Results too large to return inline: the value's exact JSON text (Cordon's tagged encoding)
 * is stored as an artifact of the execution's namespace, `results/<executionId>.json`, and the
 * outcome carries a {@link ResultReference} instead: the reference, the size, a preview of the
 * text and of the value's structure, and where the pages continue.
 *
 * Writing is idempotent: a pass that stores the same bytes again (a run replayed or finished a
 * second time) gets the version already there, never a second copy.
 *
 * @module
 */
import { sha256Hex } from "../../hash.ts";
import { encodeValue } from "../../rpc/codec.ts";
import { type ArtifactStore, resultArtifactName } from "../../store/artifacts.ts";
import { type ErrorInfo, errorInfo } from "../../errors.ts";
import { cutChars, DEFAULT_RESULT_PAGE_BYTES } from "./pages.ts";

/** The media type of a stored result: its JSON text. */
export const RESULT_MIME_TYPE = "application/json";
/**
 * Characters of the JSON text a reference shows: enough to see what the value is (its first
 * records, its field names) for a small part of what the inline limit saves.
 */
export const RESULT_PREVIEW_CHARS = 2_000;
/** The JSON of an array's first items in a reference stays within this many characters. */
export const RESULT_HEAD_CHARS = 2_000;
/** At most this many first items of an array, and this many keys of an object, are shown. */
export const RESULT_HEAD_ITEMS = 10;
/** Keys of an object a reference lists. */
export const RESULT_KEYS = 50;

/** The structure of a stored value, in a few words. */
export type ResultShape =
  | {
    /** An array: its length and its first items (as many as fit the preview's budget). */
    type: "array";
    length: number;
    head: unknown[];
  }
  | {
    /** A plain object: its first keys, in order, and how many it has. */
    type: "object";
    keys: string[];
    keyCount: number;
  }
  | {
    /** A string, a `Map`, a `Set` or bytes: how long it is. */
    type: "string" | "map" | "set" | "bytes";
    length: number;
  }
  | {
    /** Anything else (a number cannot be large): its type. */
    type: string;
  };

/**
 * What an outcome's `result` is when the value was over `inlineResultBytes`: the value is
 * stored whole, and this says where and what it looks like. Concatenating the pages from
 * offset 0 (or `preview` and the pages from `nextCursor`) gives the exact JSON text.
 */
export interface ResultReference {
  /** Always true: the value is not all here (the Code Mode API's word for a cut page). */
  truncated: true;
  /** The artifact holding the JSON text, `results/<executionId>.json@<version>`. */
  resultRef: string;
  /** `application/json`. */
  mimeType: string;
  /** The size of the JSON text in bytes (UTF-8). */
  totalBytes: number;
  /** The text's first characters (up to {@link RESULT_PREVIEW_CHARS}), cut between characters. */
  preview: string;
  /** The value's structure: an array's length and first items, an object's keys. */
  shape: ResultShape;
  /** Where the text goes on after the preview: pass it as `cursor` to read the next page. */
  nextCursor: string;
  /** The default page size in bytes (a page may ask for up to 1 MiB). */
  pageBytes: number;
  /** How to read the rest from a script. */
  read: string;
}

function shapeOf(value: unknown): ResultShape {
  if (Array.isArray(value)) {
    const head: unknown[] = [];
    let bytes = 0;
    for (const item of value.slice(0, RESULT_HEAD_ITEMS)) {
      bytes += JSON.stringify(encodeValue(item))?.length ?? 0;
      if (bytes > RESULT_HEAD_CHARS) break;
      head.push(item);
    }
    return { type: "array", length: value.length, head };
  }
  if (typeof value === "string") return { type: "string", length: value.length };
  if (value instanceof Map) return { type: "map", length: value.size };
  if (value instanceof Set) return { type: "set", length: value.size };
  if (value instanceof Uint8Array) return { type: "bytes", length: value.byteLength };
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    return { type: "object", keys: keys.slice(0, RESULT_KEYS), keyCount: keys.length };
  }
  return { type: value === null ? "null" : typeof value };
}

/** The reference to a stored result, from its artifact ref, value, JSON text and its size. */
export function resultReference(
  resultRef: string,
  value: unknown,
  json: string,
  totalBytes: number,
): ResultReference {
  const preview = cutChars(json, RESULT_PREVIEW_CHARS);
  const nextCursor = String(new TextEncoder().encode(preview).byteLength);
  return {
    truncated: true,
    resultRef,
    mimeType: RESULT_MIME_TYPE,
    totalBytes,
    preview,
    shape: shapeOf(value),
    nextCursor,
    pageBytes: DEFAULT_RESULT_PAGE_BYTES,
    read: `await codemode.readResult({ resultRef: ${
      JSON.stringify(resultRef)
    }, cursor: "${nextCursor}" }) gives { text, nextCursor }; repeat with nextCursor until it is absent`,
  };
}

/** What storing a result needs. */
export interface StoreResultOptions {
  /** The execution's namespace: the only one that can read the result. */
  namespace: string;
  executionId: string;
  /** The value, for the structural preview. */
  value: unknown;
  /** Its JSON text in Cordon's tagged encoding (what is stored). */
  json: string;
  /** That text's UTF-8 bytes, if the caller has them already (they are not made again). */
  data?: Uint8Array<ArrayBuffer>;
  /** The most one artifact version may hold (`artifacts.maxBytes`). */
  maxBytes: number;
}

/**
 * Stores a result as `results/<executionId>.json` and returns its reference; the same bytes
 * stored again reuse the newest version. A result over the artifact cap is `result_too_large`.
 */
export async function storeResult(
  store: ArtifactStore,
  o: StoreResultOptions,
): Promise<{ ok: true; reference: ResultReference } | { ok: false; error: ErrorInfo }> {
  const data = o.data ?? new TextEncoder().encode(o.json);
  if (data.byteLength > o.maxBytes) {
    return {
      ok: false,
      error: errorInfo(
        "result_too_large",
        `The result is ${data.byteLength} bytes, over the ${o.maxBytes}-byte artifact limit it is stored under; return a smaller value`,
        { bytes: data.byteLength, limit: o.maxBytes },
      ),
    };
  }
  const name = resultArtifactName(o.executionId);
  const sha256 = await sha256Hex(data);
  const newest = (await store.versions(o.namespace, name))[0];
  const row = newest?.sha256 === sha256 && newest.size === data.byteLength
    ? newest
    : await store.save({
      namespace: o.namespace,
      name,
      mimeType: RESULT_MIME_TYPE,
      size: data.byteLength,
      sha256,
      sourceExecutionId: o.executionId,
      createdAt: Date.now(),
    }, data);
  const ref = `${name}@${row.version}`;
  return { ok: true, reference: resultReference(ref, o.value, o.json, data.byteLength) };
}
