/**
 * Reading a response body without trusting its size: at most a given number of bytes are
 * read, the rest of the stream is cancelled, and the text is decoded by its declared charset.
 *
 * @module
 */

/** A body as read: its first bytes, and whether there were more. */
export interface BoundedBody {
  bytes: Uint8Array;
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of `body`, then cancels the stream (a server may send forever).
 *
 * @example
 * ```ts
 * import { readBounded } from "./http_body.ts";
 * const body = await readBounded(new Response("abcdef").body, 4);
 * console.assert(body.truncated && new TextDecoder().decode(body.bytes) === "abcd");
 * ```
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<BoundedBody> {
  if (!body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } finally {
    // Stops the transfer when cut short or failed; a no-op on a finished stream.
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.length;
  }
  return { bytes, truncated };
}

/** Decodes a body by the charset of its `content-type`, UTF-8 when none or unknown. */
export function decodeBody(bytes: Uint8Array, contentType: string | null): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? "utf-8");
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(bytes);
}

/** True for JSON media types: `application/json`, `application/problem+json`, `text/json`. */
export function isJsonType(contentType: string | null): boolean {
  const media = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return /^(application|text)\/([\w.-]+\+)?json$/.test(media);
}

/** Media types that are bytes whatever they hold: compressed, archived, media, documents. */
const BINARY_TYPE =
  /^(image|audio|video|font|model)\/|^application\/(octet-stream|(x-)?gzip|zip|zstd|x-(tar|bzip2|xz|7z-compressed)|pdf|wasm|x-protobuf|protobuf|msgpack|x-msgpack|cbor|vnd\.[\w.-]+\+zip)$/;

/** C0 controls other than tab, line feed, form feed, carriage return and escape, and DEL. */
// deno-lint-ignore no-control-regex -- finding control characters is the point.
const CONTROL = /[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]/;

/**
 * Whether a body reads as text. A declared binary type is bytes; a declared charset other than
 * UTF-8 is text (decoded by it); anything else is text when it is UTF-8 without control
 * characters (a body cut short may end inside a character). Bytes that are not text would
 * otherwise come back as replacement characters and `\u0000` escapes, six times their size.
 */
export function isTextBody(
  bytes: Uint8Array,
  contentType: string | null,
  truncated: boolean,
): boolean {
  const media = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (BINARY_TYPE.test(media)) return false;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase();
  if (charset && charset !== "utf-8" && charset !== "utf8") return true;
  let text: string;
  try {
    // A decoder per body: streaming keeps a cut character's bytes for a next call.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: truncated });
  } catch {
    return false;
  }
  return !CONTROL.test(text);
}
