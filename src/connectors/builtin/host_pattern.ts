/**
 * Host patterns as an operator writes them for the `http` connector: `api.example.com` (any
 * port), `api.example.com:8443` (that port only), `*.example.com` (any subdomain, not
 * `example.com` itself), `127.0.0.1:8080`, `[::1]:8080`. Names are compared after the URL
 * parser's normalization (lower case, punycode, IPv4 in dotted form), the same one the URL of
 * each request goes through, so `EXAMPLE.com` and `exämple.com` match what they should.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { isIpAddress } from "./net_address.ts";

/** One parsed pattern. */
export interface HostPattern {
  /** As the operator wrote it, for messages. */
  source: string;
  /** The normalized host name or address (bracketed for IPv6), without `*.`. */
  host: string;
  /** Matches subdomains of `host` rather than `host` itself. */
  wildcard: boolean;
  /** Only this port; any port when absent. */
  port?: number;
}

const PATTERN = /^(\*\.)?(\[[0-9a-fA-F:.]+\]|[^:\[\]/?#@*\s]+)(?::(\d{1,5}))?$/;

/** Parses one pattern; throws `invalid_request` saying what is wrong. */
export function parseHostPattern(source: string): HostPattern {
  const match = typeof source === "string" ? PATTERN.exec(source.trim()) : null;
  const bad = (why: string) =>
    new CordonError(
      "invalid_request",
      `Cannot use host pattern "${source}": ${why}; write host, host:port or *.domain`,
    );
  if (!match) throw bad("it is not a host name");
  const [, star, name, portText] = match;
  let host: string;
  try {
    host = new URL(`http://${name}`).hostname;
  } catch {
    throw bad("it is not a host name");
  }
  if (star && isIpAddress(host)) throw bad("a wildcard needs a domain name, not an address");
  if (star && !host.includes(".")) throw bad("a wildcard must name a domain below a suffix");
  const pattern: HostPattern = { source, host, wildcard: Boolean(star) };
  if (portText !== undefined) {
    const port = Number(portText);
    if (port < 1 || port > 65_535) throw bad("the port is out of range");
    pattern.port = port;
  }
  return pattern;
}

/** The port a URL connects to, its default port when it names none. */
export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** True when `pattern` covers the host and port of `url`. */
export function matchesHost(pattern: HostPattern, url: URL): boolean {
  if (pattern.port !== undefined && pattern.port !== effectivePort(url)) return false;
  const host = url.hostname;
  return pattern.wildcard ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** How specific a pattern is: a port beats none, an exact name beats a wildcard, longer beats shorter. */
function specificity(p: HostPattern): number {
  return (p.wildcard ? 0 : 1_000_000) + (p.port !== undefined ? 100_000 : 0) + p.host.length;
}

/**
 * The most specific of `patterns` that covers `url`, if any.
 *
 * @example
 * ```ts
 * import { bestHostMatch, parseHostPattern } from "./host_pattern.ts";
 * const patterns = ["*.example.com", "api.example.com:443"].map(parseHostPattern);
 * console.assert(bestHostMatch(patterns, new URL("https://api.example.com/x"))?.port === 443);
 * console.assert(bestHostMatch(patterns, new URL("https://example.com/")) === undefined);
 * ```
 */
export function bestHostMatch<T extends HostPattern>(
  patterns: readonly T[],
  url: URL,
): T | undefined {
  let best: T | undefined;
  for (const p of patterns) {
    if (matchesHost(p, url) && (!best || specificity(p) > specificity(best))) best = p;
  }
  return best;
}
