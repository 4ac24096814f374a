/**
 * A decoded reading of text that remembers where each decoded character came from, so a
 * secret written with escapes (`\/`, `\u0026`, `%2F`, `&#x2F;`, or any mix of them) is found
 * in the reading and redacted in the original. JSON and JavaScript string escapes,
 * percent-encoding (UTF-8 sequences included) and HTML character references are decoded;
 * everything else stands for itself. Linear in the length of the text.
 *
 * @module
 */

/** Decoded text; character `i` came from `text.slice(from[i], to[i])` of the source. */
export interface EscapeView {
  text: string;
  from: Int32Array;
  to: Int32Array;
}

const SIMPLE: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  "'": "'",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "0": "\0",
};

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  sol: "/",
  colon: ":",
  equals: "=",
  plus: "+",
  percnt: "%",
  num: "#",
  quest: "?",
};

/** The value of `count` hex digits at `at`, or -1 when they are not all hex digits. */
function hexAt(text: string, at: number, count: number): number {
  if (at + count > text.length) return -1;
  let value = 0;
  for (let k = 0; k < count; k++) {
    const c = text.charCodeAt(at + k);
    const d = c >= 48 && c <= 57
      ? c - 48
      : c >= 97 && c <= 102
      ? c - 87
      : c >= 65 && c <= 70
      ? c - 55
      : -1;
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}
const ENTITY = /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/y;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes a UTF-8 sequence has, from its lead byte; 0 for a byte that cannot lead one. */
function utf8Length(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Decodes `%XX` sequences at `at` as one UTF-8 character; its text and source length. */
function percentAt(text: string, at: number): [string, number] | undefined {
  const lead = hexAt(text, at + 1, 2);
  if (lead < 0) return undefined;
  if (lead < 0x80) return [String.fromCharCode(lead), 3];
  const n = utf8Length(lead);
  if (n === 0) return undefined;
  const bytes = new Uint8Array(n);
  bytes[0] = lead;
  for (let k = 1; k < n; k++) {
    const p = at + 3 * k;
    const b = hexAt(text, p + 1, 2);
    if (text[p] !== "%" || b < 0) return undefined;
    bytes[k] = b;
  }
  try {
    return [utf8.decode(bytes), 3 * n];
  } catch {
    return undefined;
  }
}

/** The escape at `at` (which holds `\`, `%` or `&`): its decoded text and source length. */
function escapeAt(text: string, at: number): [string, number] | undefined {
  const c = text[at];
  if (c === "\\") {
    const next = text[at + 1];
    if (next === undefined) return undefined;
    if (next === "u") {
      const code = hexAt(text, at + 2, 4);
      return code < 0 ? undefined : [String.fromCharCode(code), 6];
    }
    if (next === "x") {
      const code = hexAt(text, at + 2, 2);
      return code < 0 ? undefined : [String.fromCharCode(code), 4];
    }
    return next in SIMPLE ? [SIMPLE[next], 2] : undefined;
  }
  if (c === "%") return percentAt(text, at);
  if (c === "&") {
    ENTITY.lastIndex = at;
    const m = ENTITY.exec(text);
    if (!m) return undefined;
    const name = m[1];
    let code: number | undefined;
    if (name[0] === "#") {
      code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : parseInt(name.slice(1), 10);
    }
    if (code !== undefined) {
      return code <= 0x10ffff ? [String.fromCodePoint(code), m[0].length] : undefined;
    }
    const named = NAMED[name.toLowerCase()];
    return named === undefined ? undefined : [named, m[0].length];
  }
  return undefined;
}

const ESCAPE_START = /[\\%&]/g;

/** Reads `source` with one level of escapes decoded. */
export function decodeEscapes(source: string): EscapeView {
  const parts: string[] = [];
  // Every escape is at least as long as what it decodes to, so the reading is never longer.
  const from = new Int32Array(source.length);
  const to = new Int32Array(source.length);
  let n = 0;
  let i = 0;
  const copyTo = (end: number) => {
    if (end <= i) return;
    parts.push(source.slice(i, end));
    for (let k = i; k < end; k++, n++) {
      from[n] = k;
      to[n] = k + 1;
    }
    i = end;
  };
  const starts = new RegExp(ESCAPE_START);
  for (let m = starts.exec(source); m !== null; m = starts.exec(source)) {
    if (m.index < i) {
      starts.lastIndex = i;
      continue;
    }
    const esc = escapeAt(source, m.index);
    if (!esc) continue;
    copyTo(m.index);
    const [decoded, length] = esc;
    parts.push(decoded);
    // A character outside the BMP decodes to two UTF-16 units; both map to the escape.
    for (let u = 0; u < decoded.length; u++, n++) {
      from[n] = i;
      to[n] = i + length;
    }
    i += length;
    starts.lastIndex = i;
  }
  copyTo(source.length);
  return { text: parts.join(""), from: from.subarray(0, n), to: to.subarray(0, n) };
}

/** A view of a view, mapped back to the first one's source. */
export function composeViews(outer: EscapeView, inner: EscapeView): EscapeView {
  return {
    text: inner.text,
    from: inner.from.map((f) => outer.from[f]),
    to: inner.to.map((t) => outer.to[t - 1]),
  };
}

/** The identity view of `source`. */
export function plainView(source: string): EscapeView {
  const from = new Int32Array(source.length);
  const to = new Int32Array(source.length);
  for (let i = 0; i < source.length; i++) {
    from[i] = i;
    to[i] = i + 1;
  }
  return { text: source, from, to };
}
