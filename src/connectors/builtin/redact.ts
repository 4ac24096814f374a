/**
 * Redaction of host secrets from what a connector hands back to a script. A server may echo a
 * request header into its body (debug endpoints do), a redirect may carry a token in its URL,
 * an error may quote a header. Each secret, and for `Scheme credential` values such as
 * `Bearer abc…` the credential alone, is looked for in the text as it is and in the text read
 * with escapes decoded, one and two levels deep ({@link decodeEscapes}: JSON and JavaScript
 * string escapes such as `\/` and `\u0026`, percent-encoding, HTML character references, in
 * any mix), and where it is found its whole written form is replaced. Its base64 and base64url
 * forms are looked for too, at each of the three byte alignments. Bodies that are bytes go
 * through the same search byte for byte ({@link Redactor.bytes}). A server that transforms a
 * secret otherwise (hashing, encrypting, another encoding) is not caught: the host gave it the
 * secret and trusts it. Every secret is redacted whatever its length: a very short one mangles
 * ordinary text that contains it, which is the right side to err on.
 *
 * @module
 */
import { composeViews, decodeEscapes, type EscapeView, plainView } from "./redact_view.ts";

/** What stands in for a secret. */
export const REDACTED = "[redacted]";

/**
 * Shortest credential part of a `Scheme credential` value that is redacted on its own: shorter
 * parts are words ("Basic", a short user name) whose removal would mangle ordinary text.
 */
const MIN_CREDENTIAL_LENGTH = 8;

/**
 * Shortest base64 run redacted: a shorter one (a secret of a few bytes) is likely to occur in
 * unrelated base64 data, and a secret that short is no secret.
 */
const MIN_BASE64_LENGTH = 8;

/** Escapes decoded in turn: two levels catch a JSON string quoted inside another. */
const ESCAPE_LEVELS = 2;

/** The most source characters one decoded character takes (`%F0%9F%98%80`, 12 for 2 units). */
const MAX_ESCAPE_GROWTH = 12;

/** A trailing escape that a cut left unfinished (`\u00`, `%2`, `&#x2`). */
const UNFINISHED_ESCAPE =
  /(\\(u[0-9a-fA-F]{0,3}|x[0-9a-fA-F]?)?|%[0-9a-fA-F]?|&#?[xX]?[0-9a-zA-Z]{0,7})$/;

const encoder = new TextEncoder();

/** `text` without an unfinished escape at its end; only the end is searched. */
function dropUnfinishedEscape(text: string): string {
  const tailStart = Math.max(0, text.length - 12);
  const m = UNFINISHED_ESCAPE.exec(text.slice(tailStart));
  return m ? text.slice(0, tailStart + m.index) : text;
}

/**
 * Bytes read one character per byte. windows-1252 is a single-byte encoding, so a character's
 * index is its byte's offset; ASCII reads as itself, which is where escapes and secrets live.
 */
const singleByte = new TextDecoder("windows-1252");

/** `bytes` with each range (merged where they overlap) replaced by {@link REDACTED}'s bytes. */
function replaceByteRanges(bytes: Uint8Array, ranges: [number, number][]): Uint8Array<ArrayBuffer> {
  if (ranges.length === 0) return bytes.slice();
  const mark = encoder.encode(REDACTED);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const [from, to] of mergeRanges(ranges)) {
    parts.push(bytes.subarray(at, from), mark);
    at = to;
  }
  parts.push(bytes.subarray(at));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** The base64 runs that stand for `bytes` wherever they fall in a longer encoded value. */
function base64Forms(bytes: Uint8Array): string[] {
  const forms: string[] = [];
  // With k unknown bytes before it, the first characters also encode those bytes.
  const skip = [0, 2, 3];
  for (let k = 0; k < 3; k++) {
    const padded = new Uint8Array(k + bytes.length);
    padded.set(bytes, k);
    let binary = "";
    for (const byte of padded) binary += String.fromCharCode(byte);
    const b64 = btoa(binary);
    const run = b64.slice(skip[k], Math.floor(padded.length / 3) * 4);
    if (run.length < MIN_BASE64_LENGTH) continue;
    forms.push(run, run.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return forms;
}

/** Every source range `[from, to)` in which one of `fragments` was read in `text`, a `view`'s. */
function findIn(
  text: string,
  view: EscapeView | undefined,
  fragments: string[],
  ranges: [number, number][],
): void {
  for (const f of fragments) {
    for (let at = text.indexOf(f); at !== -1; at = text.indexOf(f, at + 1)) {
      ranges.push(view ? [view.from[at], view.to[at + f.length - 1]] : [at, at + f.length]);
    }
  }
}

/** Ranges sorted, overlapping ones merged. */
function mergeRanges(ranges: [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** `text` with each range (merged where they overlap) replaced by {@link REDACTED}. */
function replaceRanges(text: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return text;
  let out = "";
  let at = 0;
  for (const [from, to] of mergeRanges(ranges)) {
    out += text.slice(at, from) + REDACTED;
    at = to;
  }
  return out + text.slice(at);
}

/** Removes known secrets from strings and bytes. */
export class Redactor {
  /** The secrets' plain and base64 forms, as text, longest first. */
  readonly #fragments: string[];
  /** The same, as their UTF-8 bytes one character per byte. */
  readonly #byteFragments: string[];
  /** Written forms that decoding cannot reach (a secret that itself holds `%41` or `\n`). */
  readonly #encoded: string[];

  constructor(secrets: Iterable<string>) {
    const fragments = new Set<string>();
    const encoded = new Set<string>();
    for (const secret of secrets) {
      if (!secret) continue;
      const forms = [secret];
      const credential = /^\S+\s+(\S+)$/.exec(secret)?.[1];
      if (credential && credential.length >= MIN_CREDENTIAL_LENGTH) forms.push(credential);
      for (const form of forms) {
        fragments.add(form);
        for (const b64 of base64Forms(encoder.encode(form))) fragments.add(b64);
        encoded.add(JSON.stringify(form).slice(1, -1));
        encoded.add(encodeURIComponent(form));
        // Form encoding writes a space as `+`, which no decoder here reads back.
        encoded.add(encodeURIComponent(form).replaceAll("%20", "+"));
      }
    }
    const longestFirst = (set: Set<string>) =>
      [...set].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
    this.#fragments = longestFirst(fragments);
    this.#byteFragments = this.#fragments.map((f) => singleByte.decode(encoder.encode(f)));
    this.#encoded = longestFirst(encoded).filter((f) => !fragments.has(f));
  }

  /** True when there is nothing to redact. */
  get empty(): boolean {
    return this.#fragments.length === 0;
  }

  /** `text` with every secret replaced by {@link REDACTED}. */
  text(text: string): string {
    return replaceRanges(text, this.#find(text, this.#fragments));
  }

  /**
   * Like {@link Redactor.text}, for text that was cut short: an escape or a secret cut by the
   * cut leaves a prefix at the very end, which is removed too.
   */
  truncatedText(text: string): string {
    const cut = text.slice(0, this.#cutAt(text, this.#fragments));
    return replaceRanges(cut, this.#find(cut, this.#fragments));
  }

  /** `bytes` with every secret's UTF-8 bytes (as written, escaped, base64) redacted. */
  bytes(bytes: Uint8Array, truncated = false): Uint8Array<ArrayBuffer> {
    if (this.empty) return bytes.slice();
    let text = singleByte.decode(bytes);
    if (truncated) {
      const cut = this.#cutAt(text, this.#byteFragments);
      text = text.slice(0, cut);
      bytes = bytes.subarray(0, cut);
    }
    return replaceByteRanges(bytes, this.#find(text, this.#byteFragments));
  }

  /** Where in `text` a secret is written, in any of the forms searched for. */
  #find(text: string, fragments: string[]): [number, number][] {
    const ranges: [number, number][] = [];
    if (fragments.length === 0) return ranges;
    findIn(text, undefined, fragments, ranges);
    findIn(text, undefined, this.#encoded, ranges);
    let view: EscapeView | undefined;
    for (let level = 0; level < ESCAPE_LEVELS; level++) {
      const read = view?.text ?? text;
      if (!/[\\%&]/.test(read)) break;
      view = view ? composeViews(view, decodeEscapes(read)) : decodeEscapes(read);
      findIn(view.text, view, fragments, ranges);
    }
    return ranges;
  }

  /** Where to cut `text` so no unfinished escape or secret's beginning is left at its end. */
  #cutAt(text: string, fragments: string[]): number {
    const out = dropUnfinishedEscape(text);
    // Only the end can hold a cut secret: as long as the longest one, escaped twice over.
    const longest = fragments.reduce((m, f) => Math.max(m, f.length), 0);
    const start = Math.max(0, out.length - longest * MAX_ESCAPE_GROWTH ** ESCAPE_LEVELS);
    let cut = out.length;
    let view = plainView(out.slice(start));
    for (let level = 0; level <= ESCAPE_LEVELS; level++) {
      if (level > 0) view = composeViews(view, decodeEscapes(view.text));
      for (const f of fragments) {
        for (let n = Math.min(f.length - 1, view.text.length); n > 0; n--) {
          if (view.text.endsWith(f.slice(0, n))) {
            cut = Math.min(cut, start + view.from[view.text.length - n]);
            break;
          }
        }
      }
    }
    return dropUnfinishedEscape(out.slice(0, cut)).length;
  }

  /** A JSON value with secrets removed from every string in it, keys included. */
  value(value: unknown): unknown {
    if (this.empty) return value;
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [this.text(k), this.value(v)]),
      );
    }
    return value;
  }
}
