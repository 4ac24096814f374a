/**
 * Media types of artifacts: checked when given, guessed from the name's
 * extension when not.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/** What bytes are when nothing says otherwise (RFC 2046). */
export const OCTET_STREAM = "application/octet-stream";
/** What a string is when its name says nothing more. */
export const PLAIN_TEXT = "text/plain; charset=utf-8";
/** A media type with its parameters fits a header line comfortably. */
const MAX_MIME_TYPE_CHARS = 255;
/** `type/subtype` in RFC 9110 token characters, then optional `; parameters` without controls. */
const MIME_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;[\x20-\x7e]*)?$/;

/** The common extensions; text types say UTF-8, as Cordon stores strings that way. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: PLAIN_TEXT,
  log: PLAIN_TEXT,
  md: "text/markdown; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  tsv: "text/tab-separated-values; charset=utf-8",
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  ts: "text/typescript; charset=utf-8",
  json: "application/json",
  jsonl: "application/jsonl",
  ndjson: "application/x-ndjson",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/x-icon",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  wasm: "application/wasm",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  webm: "video/webm",
};

/** The media type the extension of `name` suggests, if it is a common one. */
export function mimeTypeOf(name: string): string | undefined {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  const extension = base.slice(dot + 1).toLowerCase();
  // Own keys only: `x.constructor` is not a media type.
  return dot > 0 && Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension] : undefined;
}

/** Returns `mimeType` if it is a plausible media type; throws `invalid_request` otherwise. */
export function checkMimeType(mimeType: unknown): string {
  if (
    typeof mimeType !== "string" || mimeType.length > MAX_MIME_TYPE_CHARS ||
    !MIME_TYPE.test(mimeType)
  ) {
    throw new CordonError(
      "invalid_request",
      `Invalid media type ${
        JSON.stringify(mimeType)?.slice(0, 80)
      }: use type/subtype with optional parameters, like "text/csv; charset=utf-8"`,
    );
  }
  return mimeType;
}
