/**
 * Redaction of host secrets from what a connector hands back to a script. A server may echo a
 * request header into its body (debug endpoints do), a redirect may carry a token in its URL,
 * an error may quote a header. Each secret is removed in the forms a response plausibly
 * carries it: as written, JSON-escaped, URL-encoded, and, for `Scheme credential` values such
 * as `Bearer abc…`, the credential alone. Parsed JSON is redacted after parsing too, so a
 * `\u0041`-style escape cannot smuggle a secret through. A server that transforms a secret
 * otherwise (base64, hashing) is not caught: the host gave it the secret and trusts it.
 * Every secret is redacted whatever its length: a very short one mangles ordinary text that
 * contains it, which is the right side to err on.
 *
 * @module
 */

/** What stands in for a secret. */
export const REDACTED = "[redacted]";

/**
 * Shortest credential part of a `Scheme credential` value that is redacted on its own: shorter
 * parts are words ("Basic", a short user name) whose removal would mangle ordinary text.
 */
const MIN_CREDENTIAL_LENGTH = 8;

/** Removes known secrets from strings. */
export class Redactor {
  readonly #fragments: string[];

  constructor(secrets: Iterable<string>) {
    const fragments = new Set<string>();
    for (const secret of secrets) {
      if (!secret) continue;
      const forms = [secret];
      const credential = /^\S+\s+(\S+)$/.exec(secret)?.[1];
      if (credential && credential.length >= MIN_CREDENTIAL_LENGTH) forms.push(credential);
      for (const form of forms) {
        fragments.add(form);
        fragments.add(JSON.stringify(form).slice(1, -1));
        fragments.add(encodeURIComponent(form));
      }
    }
    // Longest first, so a secret goes whole before a part of it is looked for.
    this.#fragments = [...fragments].filter((f) => f.length > 0).sort((a, b) =>
      b.length - a.length
    );
  }

  /** True when there is nothing to redact. */
  get empty(): boolean {
    return this.#fragments.length === 0;
  }

  /** `text` with every secret replaced by {@link REDACTED}. */
  text(text: string): string {
    let out = text;
    for (const f of this.#fragments) if (out.includes(f)) out = out.replaceAll(f, REDACTED);
    return out;
  }

  /**
   * Like {@link Redactor.text}, for text that was cut short: a secret cut by the cut leaves a
   * prefix at the very end, which is removed too.
   */
  truncatedText(text: string): string {
    let out = this.text(text);
    for (const f of this.#fragments) {
      for (let n = Math.min(f.length - 1, out.length); n > 0; n--) {
        if (out.endsWith(f.slice(0, n))) {
          out = out.slice(0, out.length - n);
          break;
        }
      }
    }
    return out;
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
