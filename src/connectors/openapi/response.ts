/**
 * Reading a response: bounded in size, JSON parsed when it says it is JSON,
 * and a failed status turned into an error a model can act on.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { isJsonMediaType } from "./operations.ts";

/**
 * The largest response body a tool returns, in bytes. Tool results travel to
 * the script over the sandbox channel and into the call log; API pages are
 * far smaller, and bulk downloads do not belong in a script's memory.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** How much of a failed response's body the error message quotes: enough for an API's reason. */
export const MAX_ERROR_BODY_CHARS = 300;

/** How much of a failed response's body is read at most: the message quotes only its start. */
const MAX_ERROR_READ_BYTES = 64 * 1024;

/** Secrets shorter than this are not redacted: they would mangle ordinary text. */
const MIN_REDACTED_SECRET_CHARS = 4;

/** Replaces each secret in `text` with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_REDACTED_SECRET_CHARS) out = out.replaceAll(secret, "[redacted]");
  }
  return out;
}

/** Reads at most `maxBytes` of `body`; `complete` is false when there was more. */
async function readPrefix(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  if (!body) return { text: "", complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        size = maxBytes;
        complete = false;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { text: new TextDecoder().decode(bytes), complete };
}

/** What a response is about, for messages: `GET /pets/7`. */
export interface ResponseLabel {
  method: string;
  shownPath: string;
  /** Credentials to keep out of messages. */
  secrets: readonly string[];
}

/**
 * The value of a response: `null` when empty, parsed JSON for a JSON media
 * type, else text. A non-2xx status throws `tool_error` with
 * `details.status`; a body over `maxBytes` throws `value_too_large`.
 */
export async function readResponse(
  response: Response,
  label: ResponseLabel,
  maxBytes: number,
): Promise<unknown> {
  const what = `${label.method} ${label.shownPath}`;
  if (!response.ok) {
    const { text, complete } = await readPrefix(response.body, MAX_ERROR_READ_BYTES);
    let quoted = redact(text, label.secrets).replace(/\s+/g, " ").trim();
    if (quoted.length > MAX_ERROR_BODY_CHARS || !complete) {
      quoted = `${quoted.slice(0, MAX_ERROR_BODY_CHARS)}…`;
    }
    throw new CordonError(
      "tool_error",
      `${what} returned ${response.status}: ${quoted || response.statusText || "(empty body)"}`,
      { details: { status: response.status } },
    );
  }
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(what, maxBytes);
  }
  const { text, complete } = await readPrefix(response.body, maxBytes);
  if (!complete) throw tooLarge(what, maxBytes);
  if (text === "") return null;
  if (!isJsonMediaType(response.headers.get("content-type") ?? "")) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new CordonError(
      "tool_error",
      `${what} returned malformed JSON: ${
        redact(text, label.secrets).slice(0, MAX_ERROR_BODY_CHARS)
      }`,
      { details: { status: response.status } },
    );
  }
}

function tooLarge(what: string, maxBytes: number): CordonError {
  return new CordonError(
    "value_too_large",
    `${what} returned more than ${maxBytes} bytes; ask for less (a smaller page, fewer fields)`,
    { details: { limit: maxBytes } },
  );
}
