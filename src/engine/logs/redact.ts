/**
 * Redaction of secrets and personal data from console lines, before they are
 * stored, returned inline, paged by `readLogs` or sent as live events.
 *
 * Two kinds of things are replaced:
 *
 * - **Known values**: secrets the host holds (the `http` built-in's header
 *   values, OpenAPI `auth` values, MCP `headers`/`env` values passed through
 *   `RuntimeOptions.redact.values`), as written, JSON-escaped and URL-encoded,
 *   and for `Scheme credential` values the credential alone. They become
 *   `[redacted:secret]`.
 * - **Shapes**: credentials whose form gives them away (authorization
 *   headers, JWTs, provider API keys, PEM private keys, `password=…`
 *   assignments, passwords in URLs) and e-mail addresses.
 *
 * Every built-in pattern runs in linear time (a 1 MB line takes about 10 ms;
 * see bench/redact_bench.ts): each begins at a literal (`eyJ`, `-----BEGIN`,
 * a key name, the `@` of an address) or behind a guard that no match starts
 * inside a run it would consume, so no two attempts scan the same run, and
 * every repeat is bounded or stops at a character it cannot take. Patterns a
 * caller adds are theirs to keep linear.
 *
 * Left alone on purpose: UUIDs and hex digests (ids and commit hashes, which
 * logs are full of and which are not secrets by shape), URLs without
 * credentials, and `log_…` references (the capability a model is handed to
 * page these very logs; redacting it would break `readLogs` workflows).
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/** A function that returns `text` with what must not be kept replaced. */
export type Redact = (text: string) => string;

/** Options for {@link createRedactor}. */
export interface RedactorOptions {
  /** Secret values the host holds; those shorter than {@link MIN_SECRET_VALUE_LENGTH} are ignored. */
  values?: readonly string[];
  /** More shapes to redact; each match becomes `[redacted:secret]`. Must not match `""`. */
  patterns?: readonly RegExp[];
}

/**
 * Known values shorter than this are not redacted: a 5-character value ("admin", "12345",
 * "token") occurs in ordinary text, so replacing it would mangle logs while protecting a
 * secret too short to be one.
 */
export const MIN_SECRET_VALUE_LENGTH = 6;

const SECRET = "[redacted:secret]";
const TOKEN = "[redacted:token]";
const EMAIL = "[redacted:email]";
const PRIVATE_KEY = "[redacted:private_key]";

/** A token that looks random: has a digit, a base64 sign, or an upper-case letter after a lower. */
const LOOKS_RANDOM = String.raw`(?=[A-Za-z._~-]*(?:[0-9+/=]|[a-z][A-Z]))`;
const TOKEN_CHARS = String.raw`[A-Za-z0-9._~+/-]{8,}=*`;

/**
 * Key names whose value is a secret, in `key=value`, `key: value` and `"key": "value"` forms.
 * Matched where the key ends, so `db_password=` and `X-Api-Key:` count, `tokens=` does not.
 */
const SECRET_KEYS = String.raw`(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|` +
  String.raw`access[_-]?key|private[_-]?key|credentials?)`;

interface Rule {
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

/** Replaces what follows the kept prefix, unless an earlier step already did. */
const keepPrefix = (label: string) => (match: string, prefix: string) =>
  match.startsWith("[redacted", prefix.length) ? match : prefix + label;
const whole = (label: string) => () => label;

/** The built-in shapes, in the order they run: larger structures before the tokens inside. */
const RULES: readonly Rule[] = [
  {
    // A PEM (or PGP) private key block; one cut short (no END line) goes to where it stops. The
    // body stops at any `-----`, so a BEGIN without an END cannot scan into the next block.
    pattern: new RegExp(
      String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[^-]|-(?!----))*` +
        String.raw`(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?`,
      "g",
    ),
    replace: whole(PRIVATE_KEY),
  },
  {
    // The password of a URL's user info: `scheme://user:password@host`.
    pattern: /(:\/\/[^\s/:@]{1,256}:)[^\s/@]{1,256}(?=@)/g,
    replace: keepPrefix(SECRET),
  },
  {
    // An authorization header in any notation (`Authorization: Bearer x`, `"authorization":"x"`):
    // the scheme stays, the credential goes.
    pattern: new RegExp(
      String.raw`((?<![\w-])(?:proxy-)?authorization["']?\s{0,8}[:=]\s{0,8}["']?` +
        String.raw`(?:(?:bearer|basic|token|digest|negotiate|ntlm|apikey)\s{1,8})?)[^\s"',;]+`,
      "gi",
    ),
    replace: keepPrefix(TOKEN),
  },
  {
    // `Bearer x` / `Basic x` outside a header, when x looks random (not "Bearer tokens are …").
    pattern: new RegExp(
      String.raw`((?<![\w-])(?:Bearer|Basic)\s{1,8})${LOOKS_RANDOM}${TOKEN_CHARS}`,
      "g",
    ),
    replace: keepPrefix(TOKEN),
  },
  {
    // A JSON Web Token: `eyJ` (base64url of `{"`) header, payload, optional signature.
    pattern: /(?<![\w-])eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*/g,
    replace: whole(TOKEN),
  },
  {
    // Provider API keys: GitHub, OpenAI/Anthropic-style `sk-…`, Stripe `sk_live_…`, AWS access
    // key ids, Slack, and Cordon's own API tokens (`cordon_` + 43 base64url characters).
    pattern: new RegExp(
      [
        String.raw`(?<![\w-])gh[pousr]_[A-Za-z0-9]{20,}`,
        String.raw`(?<![\w-])github_pat_\w{20,}`,
        String.raw`(?<![\w-])(?:sk|rk)[-_](?=[\w-]*\d)[\w-]{20,}`,
        String.raw`(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])`,
        String.raw`(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}`,
        String.raw`(?<![\w-])cordon_[\w-]{40,}`,
      ].join("|"),
      "g",
    ),
    replace: whole(TOKEN),
  },
  {
    // `password=x`, `api_key: x`, `"client_secret": "x"`: the key stays, the value goes.
    pattern: new RegExp(
      String.raw`(${SECRET_KEYS}["']?\s{0,8}[:=]\s{0,8})` +
        String.raw`("[^"\n]{0,1024}"|'[^'\n]{0,1024}'|[^\s"'&,;<>\[\]{}]+)`,
      "gi",
    ),
    replace: (match, prefix, value) => {
      const quote = value[0] === '"' || value[0] === "'" ? value[0] : "";
      if (value.startsWith("[redacted", quote.length)) return match;
      return `${prefix}${quote}${SECRET}${quote}`;
    },
  },
];

/**
 * An e-mail address, found from its `@` (a pattern that began with the local part would try
 * every word of a line). The lookbehind runs backwards from the `@` over at most 64 characters.
 */
const EMAIL_AT =
  /(?<=(?<![\w.%+-])([\w.%+-]{1,64}))@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}(?![\w-])/g;

/** `text` with e-mail addresses replaced (also the `password@host` of a URL not caught before). */
function redactEmails(text: string): string {
  if (!text.includes("@")) return text;
  let out = "";
  let last = 0;
  for (const m of text.matchAll(EMAIL_AT)) {
    const start = Math.max(m.index - m[1].length, last);
    out += text.slice(last, start) + EMAIL;
    last = m.index + m[0].length;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** The forms a known secret may take in a console line. */
function valueForms(value: string): string[] {
  const forms = [value];
  const credential = /^\S+\s+(\S+)$/.exec(value)?.[1];
  if (credential && credential.length >= MIN_SECRET_VALUE_LENGTH) forms.push(credential);
  return forms.flatMap((f) => [f, JSON.stringify(f).slice(1, -1), encodeURIComponent(f)]);
}

function checkPattern(pattern: RegExp): RegExp {
  if (!(pattern instanceof RegExp)) {
    throw new CordonError("invalid_request", "redact.patterns must be regular expressions");
  }
  const flags = pattern.flags.replace(/[gy]/g, "") + "g";
  const global = new RegExp(pattern.source, flags);
  if (global.test("")) {
    throw new CordonError(
      "invalid_request",
      `Cannot redact with ${pattern}: it matches the empty string`,
    );
  }
  global.lastIndex = 0;
  return global;
}

/**
 * Makes a redactor: known secret values first (longest first, so a secret goes whole before a
 * part of it), then the built-in shapes, then the caller's patterns.
 *
 * @example
 * ```ts
 * import { createRedactor } from "./redact.ts";
 * const redact = createRedactor({ values: ["hunter2-secret"] });
 * console.assert(
 *   redact("login ana@example.com with hunter2-secret") ===
 *     "login [redacted:email] with [redacted:secret]",
 * );
 * ```
 */
export function createRedactor(options: RedactorOptions = {}): Redact {
  const fragments = [
    ...new Set(
      (options.values ?? [])
        .filter((v) => typeof v === "string" && v.length >= MIN_SECRET_VALUE_LENGTH)
        .flatMap(valueForms),
    ),
  ].sort((a, b) => b.length - a.length);
  const extra = (options.patterns ?? []).map(checkPattern);
  return (text) => {
    let out = text;
    for (const f of fragments) if (out.includes(f)) out = out.replaceAll(f, SECRET);
    for (const rule of RULES) {
      out = out.replace(rule.pattern, rule.replace as (m: string, ...g: unknown[]) => string);
    }
    out = redactEmails(out);
    for (const p of extra) out = out.replace(p, SECRET);
    return out;
  };
}

/** The built-in shapes only: what a {@link LogBuffer} uses when it is given no redactor. */
export const redactCredentials: Redact = createRedactor();

/**
 * A JSON-like value with every string in it redacted (object keys are left as they are: two keys
 * redacted alike would collide and lose a value). Values other than strings, plain arrays and
 * plain objects (numbers, `Date`, `Uint8Array`) are returned as they are.
 *
 * @example
 * ```ts
 * import { redactCredentials, redactValue } from "./redact.ts";
 * const out = redactValue({ to: ["ana@example.com"], n: 1 }, redactCredentials);
 * console.assert(JSON.stringify(out) === '{"to":["[redacted:email]"],"n":1}');
 * ```
 */
export function redactValue(value: unknown, redact: Redact): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact));
  const proto = value !== null && typeof value === "object" ? Object.getPrototypeOf(value) : 0;
  if (proto === Object.prototype || proto === null) {
    return Object.fromEntries(
      Object.entries(value as object).map(([k, v]) => [k, redactValue(v, redact)]),
    );
  }
  return value;
}
