/**
 * Cross-site refusal. The service may run without keys on loopback, where
 * any web page the user opens can aim requests at it; a browser says where
 * a request comes from (`Sec-Fetch-Site`, `Origin`), so a request another
 * site started is refused before it reaches a route. Requests with a body
 * also need a JSON content type (checked where bodies are read): a page
 * cannot send one cross-site without a CORS preflight, which this server
 * never grants.
 *
 * @module
 */
import type { Context } from "hono";
import { CordonError } from "../../errors.ts";

/** `Sec-Fetch-Site` values of requests another site (or a sibling subdomain) started. */
const FOREIGN_FETCH_SITES = new Set(["cross-site", "same-site"]);

/** The origin this request was addressed to, as a browser writes it in `Origin`. */
function ownOrigin(c: Context): string | undefined {
  const host = c.req.header("host");
  if (!host) return undefined;
  return `${new URL(c.req.url).protocol}//${host}`.toLowerCase();
}

/**
 * True for a person following a link from another site to `page`: a top-level GET navigation
 * (`Sec-Fetch-Mode: navigate`, `Sec-Fetch-Dest: document`). Such a request carries no key and
 * changes nothing, and a page that refuses framing may open from anywhere; what it then fetches
 * is its own origin's.
 */
export function isTopLevelNavigation(c: Context, page: string): boolean {
  return (c.req.method === "GET" || c.req.method === "HEAD") && c.req.path === page &&
    c.req.header("sec-fetch-mode") === "navigate" && c.req.header("sec-fetch-dest") === "document";
}

/**
 * Throws `forbidden` when a browser says the request came from another site:
 * `Sec-Fetch-Site: cross-site|same-site`, or an `Origin` (including `null`)
 * that is not this server's own. Clients that are not browsers send neither.
 */
export function refuseCrossSite(c: Context): void {
  const site = c.req.header("sec-fetch-site")?.toLowerCase();
  if (site !== undefined && FOREIGN_FETCH_SITES.has(site)) {
    throw new CordonError(
      "forbidden",
      `Requests started by another site are refused (Sec-Fetch-Site: ${site})`,
    );
  }
  const origin = c.req.header("origin");
  if (origin !== undefined && origin.toLowerCase() !== ownOrigin(c)) {
    throw new CordonError(
      "forbidden",
      "Requests from another origin are refused: call this server from a program, not a web page",
      { details: { origin: origin.slice(0, 200) } },
    );
  }
}
