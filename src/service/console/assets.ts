/**
 * The operator console's files: one HTML page at `/` and its scripts and
 * styles under `/console/`, plain files beside this module (no build step),
 * read once through `fetch(new URL(…, import.meta.url))` so they load the
 * same from a checkout and from a published package. They hold no data and
 * need no key; everything the page shows comes from the HTTP API with the
 * operator's key.
 *
 * Every answer carries a strict Content-Security-Policy (scripts, styles
 * and connections to this origin only, no inline script, no framing), an
 * ETag to revalidate by, and `Cache-Control: no-cache`, so a new version
 * is picked up at the next load without stale mixes of files.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { sha256Hex } from "../../hash.ts";

/** The console's files (under `static/`) and their media types. */
export const CONSOLE_FILES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
  "parts.css": "text/css; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "api.js": "text/javascript; charset=utf-8",
  "dom.js": "text/javascript; charset=utf-8",
  "highlight.js": "text/javascript; charset=utf-8",
  "schema.js": "text/javascript; charset=utf-8",
  "executions.js": "text/javascript; charset=utf-8",
  "execution.js": "text/javascript; charset=utf-8",
  "result.js": "text/javascript; charset=utf-8",
  "pending.js": "text/javascript; charset=utf-8",
  "snippets.js": "text/javascript; charset=utf-8",
  "connectors.js": "text/javascript; charset=utf-8",
  "admin.js": "text/javascript; charset=utf-8",
};

/** Where the page is served, and the prefix of its other files. */
export const CONSOLE_PAGE = "/";
/** The path prefix of the console's scripts and styles. */
export const CONSOLE_PREFIX = "/console/";

/**
 * The policy of every console answer: only this origin's scripts, styles and connections; no
 * inline script or style, no plugins, no `<base>`, no form posts, never inside a frame.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The security headers of every console answer. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

/** Reads every console file once, the first time one is asked for. */
export class ConsoleAssets {
  readonly #base: URL;
  #loaded?: Promise<Map<string, Asset>>;

  /** `base`: the folder holding the files (default: `static/` beside this module). */
  constructor(base: URL = new URL("./static/", import.meta.url)) {
    this.#base = base;
  }

  #load(): Promise<Map<string, Asset>> {
    this.#loaded ??= (async () => {
      const out = new Map<string, Asset>();
      for (const [name, type] of Object.entries(CONSOLE_FILES)) {
        const res = await fetch(new URL(name, this.#base));
        if (!res.ok) {
          await res.body?.cancel();
          throw new Error(`console file ${name}: ${res.status}`);
        }
        const body = new Uint8Array(await res.arrayBuffer());
        out.set(name, { body, type, etag: `"${(await sha256Hex(body)).slice(0, 32)}"` });
      }
      return out;
    })();
    // A failed read is tried again at the next request, not remembered.
    this.#loaded.catch(() => this.#loaded = undefined);
    return this.#loaded;
  }

  /** Bytes of every file together (the console's whole weight). */
  async size(): Promise<number> {
    let n = 0;
    for (const a of (await this.#load()).values()) n += a.body.length;
    return n;
  }

  /** The answer for the console file `name` (`index.html` for the page); `not_found` if none. */
  async serve(request: Request, name: string): Promise<Response> {
    if (!Object.hasOwn(CONSOLE_FILES, name)) {
      throw new CordonError("not_found", `The console has no file ${name.slice(0, 100)}`);
    }
    const asset = (await this.#load()).get(name)!;
    const headers = {
      ...CONSOLE_HEADERS,
      etag: asset.etag,
      "cache-control": "no-cache",
    };
    if (request.headers.get("if-none-match") === asset.etag) {
      return new Response(null, { status: 304, headers });
    }
    const body = request.method === "HEAD" ? null : asset.body;
    return new Response(body, {
      status: 200,
      headers: { ...headers, "content-type": asset.type },
    });
  }
}
