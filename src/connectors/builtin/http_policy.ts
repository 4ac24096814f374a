/**
 * What the `http` connector lets a script reach and send: the allow list, the host's secret
 * headers, headers a script may not set, and the private-network check. Every refusal is a
 * `CordonError` with code `policy_denied` and a message with the secrets redacted.
 *
 * @module
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { CordonError } from "../../errors.ts";
import { bestHostMatch, type HostPattern, parseHostPattern } from "./host_pattern.ts";
import { bareAddress, isIpAddress, isPublicAddress } from "./net_address.ts";
import { Redactor } from "./redact.ts";

/** Headers the HTTP client owns (framing, connections): set by a script they invite smuggling. */
export const CLIENT_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
]);

/** What {@link HttpPolicy} is built from. */
export interface HttpPolicyOptions {
  /** The connector's name, for messages. */
  name: string;
  allow: readonly string[];
  secrets?: Record<string, Record<string, string>>;
  allowPrivateNetwork?: boolean;
  lookup?: (hostname: string) => Promise<string[]>;
}

interface SecretPattern extends HostPattern {
  headers: [string, string][];
}

/** The system resolver (reads /etc/hosts), the one `fetch` connects with. */
async function systemLookup(hostname: string): Promise<string[]> {
  return (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
}

/** Waits for `promise` unless `signal` aborts first (a DNS lookup cannot itself be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function parseSecrets(secrets: HttpPolicyOptions["secrets"]): SecretPattern[] {
  return Object.entries(secrets ?? {}).map(([pattern, headers]) => {
    let pairs: [string, string][];
    try {
      pairs = [...new Headers(headers)];
    } catch (err) {
      throw new CordonError(
        "invalid_request",
        `httpConnector: secrets for "${pattern}" are not valid headers: ${(err as Error).message}`,
      );
    }
    const owned = pairs.find(([name]) => CLIENT_HEADERS.has(name));
    if (owned) {
      throw new CordonError("invalid_request", `httpConnector: ${owned[0]} cannot be a secret`);
    }
    return { ...parseHostPattern(pattern), headers: pairs };
  });
}

/**
 * The rules of one `http` connector. Throws `invalid_request` for a bad pattern or secret.
 *
 * @example
 * ```ts
 * import { HttpPolicy } from "./http_policy.ts";
 * const policy = new HttpPolicy({ name: "http", allow: ["*.example.com"] });
 * console.assert(policy.checkUrl("https://api.example.com/v1").host === "api.example.com");
 * ```
 */
export class HttpPolicy {
  /** Removes every configured secret from text and values. */
  readonly redactor: Redactor;
  /** The allow list as configured, for messages and descriptions. */
  readonly allowed: string;
  readonly #name: string;
  readonly #allow: HostPattern[];
  readonly #secrets: SecretPattern[];
  readonly #secretNames: Set<string>;
  readonly #privateOk: boolean;
  readonly #lookup: (hostname: string) => Promise<string[]>;

  constructor(options: HttpPolicyOptions) {
    if (!Array.isArray(options.allow) || options.allow.length === 0) {
      throw new CordonError("invalid_request", "httpConnector: allow must list at least one host");
    }
    this.#name = options.name;
    this.#allow = options.allow.map(parseHostPattern);
    this.#secrets = parseSecrets(options.secrets);
    this.#secretNames = new Set(this.#secrets.flatMap((s) => s.headers.map(([n]) => n)));
    this.#privateOk = options.allowPrivateNetwork === true;
    this.#lookup = options.lookup ?? systemLookup;
    this.redactor = new Redactor(this.#secrets.flatMap((s) => s.headers.map(([, v]) => v)));
    this.allowed = this.#allow.map((p) => p.source).join(", ");
  }

  #deny(message: string): CordonError {
    return new CordonError("policy_denied", this.redactor.text(message));
  }

  /** The secret headers the host adds for `url`: those of the most specific matching pattern. */
  secretsFor(url: URL): readonly [string, string][] {
    return bestHostMatch(this.#secrets, url)?.headers ?? [];
  }

  /** True for a header name that carries a secret for some host (kept out of results). */
  isSecretHeader(name: string): boolean {
    return this.#secretNames.has(name.toLowerCase());
  }

  /** The checks one URL needs no network for: scheme, credentials, allow list, literal address. */
  checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new CordonError("invalid_input", this.redactor.text(`"${raw}" is not an absolute URL`));
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw this.#deny(`Only http and https URLs can be fetched, not ${url.protocol}`);
    }
    if (url.username || url.password) {
      throw this.#deny("URLs with credentials in them are refused; the host adds credentials");
    }
    if (!bestHostMatch(this.#allow, url)) {
      throw this.#deny(`${url.host} is not on the allow list of ${this.#name} (${this.allowed})`);
    }
    if (!this.#privateOk && isIpAddress(url.hostname) && !isPublicAddress(url.hostname)) {
      throw this.#deny(`${url.host} is a private or loopback address; ${this.#publicOnly()}`);
    }
    return url;
  }

  /** The script's headers for a request to `url`, refused when they take a client or secret header. */
  checkHeaders(url: URL, raw: Record<string, string> | undefined): Headers {
    let headers: Headers;
    try {
      headers = new Headers(raw ?? {});
    } catch (err) {
      throw new CordonError("invalid_input", `Invalid header: ${(err as Error).message}`);
    }
    for (const header of headers.keys()) {
      if (CLIENT_HEADERS.has(header)) {
        throw this.#deny(`The ${header} header is set by the HTTP client`);
      }
    }
    const taken = this.secretsFor(url).find(([header]) => headers.has(header));
    if (taken) {
      throw this.#deny(
        `The ${taken[0]} header for ${url.host} is supplied by the host; leave it out`,
      );
    }
    return headers;
  }

  /**
   * Resolves the host of `url` and refuses it when any address is not public (unless private
   * networks are allowed). `fetch` resolves the name again when it connects; see the module
   * docs of `http.ts` on that window.
   */
  async checkAddresses(url: URL, signal: AbortSignal): Promise<void> {
    if (this.#privateOk || isIpAddress(url.hostname)) return; // literals: checked in checkUrl
    const host = bareAddress(url.hostname);
    let addresses: string[];
    try {
      addresses = await untilAborted(this.#lookup(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new CordonError("tool_error", `Cannot resolve ${host}: ${(err as Error).message}`);
    }
    if (addresses.length === 0) throw new CordonError("tool_error", `${host} has no address`);
    if (!addresses.every(isPublicAddress)) {
      throw this.#deny(
        `${url.host} resolves to a private or loopback address; ${this.#publicOnly()}`,
      );
    }
  }

  #publicOnly(): string {
    return `${this.#name} reaches public addresses only`;
  }
}
