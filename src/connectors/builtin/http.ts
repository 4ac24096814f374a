/**
 * The built-in `http` connector: one tool, `fetch`, that makes an HTTP request from the host
 * on a script's behalf, so the sandbox itself keeps no network access. The host enforces:
 *
 * - only `http:`/`https:` URLs without credentials, to hosts on the allow list, refused
 *   (`policy_denied`) otherwise, for the first request and for every redirect, which are
 *   followed by hand (`redirect: "manual"`) at most `maxRedirects` times;
 * - no private, loopback, link-local or otherwise non-public address unless
 *   `allowPrivateNetwork`: a literal address is checked as written, a name by resolving it and
 *   checking every address. The check and `fetch`'s own connection resolve the name twice, so
 *   a DNS server that answers differently the second time (DNS rebinding) can still steer the
 *   connection; `fetch` offers no way to connect to a checked address while keeping the name
 *   for TLS. The allow list is the primary defence; this check stops the common mistakes
 *   (a public name pointing at 127.0.0.1, `169.254.169.254`, a redirect to an internal host);
 * - secrets: headers the host adds for a host (an API key) and the script never sees. They
 *   are not in the script's arguments (so not in the call log), a script cannot set or
 *   override them, they are not forwarded on redirects to another host, and they are removed
 *   from everything returned (headers, body text or bytes, URL, error messages), in every
 *   escaped or encoded form `Redactor` knows (see `redact.ts`);
 * - a body that is not text (see `isTextBody`) comes back as `bytes`, a `Uint8Array`, as sent:
 *   a `content-encoding` is undone by fetch as the body is read, so the size limit bounds the
 *   unpacked bytes too; an `application/gzip` file is returned packed;
 * - a bounded response (`maxResponseBytes`, then `truncated: true`) and a deadline
 *   (`timeoutMs`, declared as the tool's `timeoutMs`, so the registry reports `tool_timeout`).
 *
 * Checks that need only the arguments run in `validateInput`, so a refused URL is a
 * `policy_denied` failure of the call itself. Checks that need the network (resolving a name,
 * a redirect) run in `execute`, which throws a `CordonError` with the specific code
 * (`policy_denied`, `limit_exceeded`); the registry passes those codes through.
 *
 * @module
 */
import { z } from "zod";
import { CordonError } from "../../errors.ts";
import { defineConnector } from "../define.ts";
import type { Connector, ToolContext } from "../types.ts";
import { type BoundedBody, decodeBody, isJsonType, isTextBody, readBounded } from "./http_body.ts";
import { HttpPolicy } from "./http_policy.ts";

/**
 * Per-request deadline, redirects and body included. APIs answer in well under a second; 15 s
 * allows a slow report endpoint and stays under the registry's 30 s default for other tools.
 */
export const DEFAULT_HTTP_TIMEOUT_MS = 15_000;

/**
 * Largest body returned, in bytes, text or bytes, after any `content-encoding` is undone (so a
 * compressed bomb is cut here, not unpacked whole: fetch decompresses as the body is read). A
 * result goes into the call log (1,000,000 bytes per value by default) after JSON escaping,
 * which can double text, or as base64, 4/3 of the bytes; a quarter of that cap leaves room.
 */
export const DEFAULT_HTTP_MAX_RESPONSE_BYTES = 262_144;

/** Redirects followed. APIs use one or two; more is a loop or a maze, each hop another check. */
export const DEFAULT_HTTP_MAX_REDIRECTS = 5;

/** Longest URL accepted: about what common servers accept (8 KiB request-line buffers). */
export const MAX_HTTP_URL_LENGTH = 8_192;

/**
 * How much later than `timeoutMs` the tool's own deadline falls. The registry's deadline (the
 * same `timeoutMs`) must fire first so the call reports `tool_timeout`; the tool's own only
 * serves callers that run `execute` without a registry.
 */
const OWN_DEADLINE_GRACE_MS = 250;

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Script headers not carried to another origin on a redirect, as in the Fetch standard. */
const CROSS_ORIGIN_DROPPED = ["authorization", "cookie", "proxy-authorization"];

/** Options for {@link httpConnector}. */
export interface HttpConnectorOptions {
  /** Hosts a script may reach: `host`, `host:port`, `*.example.com`, `127.0.0.1:8080`. */
  allow: string[];
  /** Headers the host adds per host pattern (`{ "api.example.com": { authorization: "Bearer …" } }`). */
  secrets?: Record<string, Record<string, string>>;
  /** Deadline of one call, redirects and body included; {@link DEFAULT_HTTP_TIMEOUT_MS} by default. */
  timeoutMs?: number;
  /** Body bytes returned before `truncated: true`; {@link DEFAULT_HTTP_MAX_RESPONSE_BYTES} by default. */
  maxResponseBytes?: number;
  /** Redirects followed; {@link DEFAULT_HTTP_MAX_REDIRECTS} by default, 0 follows none. */
  maxRedirects?: number;
  /** Lets requests reach private and loopback addresses (local services, tests). Off by default. */
  allowPrivateNetwork?: boolean;
  /** The connector's name (the global a script uses); `http` by default. */
  name?: string;
  /**
   * Resolves a name to its addresses for the private-network check. The default is the system
   * resolver (`node:dns` `lookup`, which reads /etc/hosts), the one `fetch` connects with.
   */
  lookup?: (hostname: string) => Promise<string[]>;
}

const inputSchema = z.object({
  url: z.string().max(MAX_HTTP_URL_LENGTH).describe("An absolute http(s) URL on the allow list"),
  method: z.enum(METHODS).optional().describe("GET when left out"),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional().describe("A text body"),
  json: z.json().optional().describe("A JSON body (sets content-type: application/json)"),
}).refine((i) => i.body === undefined || i.json === undefined, {
  message: "give body or json, not both",
}).refine(
  (i) =>
    (i.method !== "GET" && i.method !== undefined && i.method !== "HEAD") ||
    (i.body === undefined && i.json === undefined),
  { message: "GET and HEAD requests have no body" },
);

type HttpInput = z.output<typeof inputSchema>;

const outputSchema = z.object({
  url: z.string().describe("The URL that answered, after redirects"),
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.string().optional().describe("The body as text, when it is text and not JSON"),
  bytes: z.instanceof(Uint8Array).optional().describe(
    "The body as bytes, when it is not text (images, archives, application/gzip as sent)",
  ),
  json: z.any().optional().describe("The body parsed, for JSON responses"),
  truncated: z.literal(true).optional().describe("The body was cut at the size limit"),
});

type HttpResult = z.input<typeof outputSchema>;

function positive(name: string, value: number | undefined, fallback: number, min = 1): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new CordonError("invalid_request", `httpConnector: ${name} must be an integer ≥ ${min}`);
  }
  return n;
}

/**
 * The built-in `http` connector.
 *
 * @example
 * ```ts
 * import { httpConnector } from "./http.ts";
 * const http = httpConnector({
 *   allow: ["api.github.com"],
 *   secrets: { "api.github.com": { authorization: "Bearer ghp_example" } },
 * });
 * const refused = http.tools[0].validateInput!({ url: "https://example.org/" });
 * console.assert(!refused.ok && refused.error.code === "policy_denied");
 * ```
 */
export function httpConnector(options: HttpConnectorOptions): Connector {
  const name = options.name ?? "http";
  const policy = new HttpPolicy({ ...options, name });
  const { redactor, allowed } = policy;
  const timeoutMs = positive("timeoutMs", options.timeoutMs, DEFAULT_HTTP_TIMEOUT_MS);
  const maxBytes = positive(
    "maxResponseBytes",
    options.maxResponseBytes,
    DEFAULT_HTTP_MAX_RESPONSE_BYTES,
  );
  const maxRedirects = positive(
    "maxRedirects",
    options.maxRedirects,
    DEFAULT_HTTP_MAX_REDIRECTS,
    0,
  );

  async function respond(url: URL, method: string, res: Response): Promise<HttpResult> {
    let read: BoundedBody = { bytes: new Uint8Array(0), truncated: false };
    if (method === "HEAD") await res.body?.cancel();
    else read = await readBounded(res.body, maxBytes);
    const { bytes, truncated } = read;
    const contentType = res.headers.get("content-type");
    const headers: Record<string, string> = {};
    for (const [header, value] of res.headers) {
      if (policy.isSecretHeader(header)) continue;
      const key = redactor.text(header);
      // Repeated headers (set-cookie) arrive one by one; they are joined as HTTP joins them.
      headers[key] = key in headers
        ? `${headers[key]}, ${redactor.text(value)}`
        : redactor.text(value);
    }
    const result: HttpResult = { url: redactor.text(url.href), status: res.status, headers };
    if (!isTextBody(bytes, contentType, truncated)) {
      result.bytes = redactor.bytes(bytes, truncated);
      if (truncated) result.truncated = true;
      return result;
    }
    const text = decodeBody(bytes, contentType);
    if (!truncated && isJsonType(contentType) && text.trim() !== "") {
      try {
        result.json = redactor.value(JSON.parse(text));
        return result;
      } catch {
        // Not JSON after all: returned as text below.
      }
    }
    result.body = truncated ? redactor.truncatedText(text) : redactor.text(text);
    if (truncated) result.truncated = true;
    return result;
  }

  async function run(input: HttpInput, ctx: ToolContext): Promise<HttpResult> {
    let url = policy.checkUrl(input.url);
    const scriptHeaders = policy.checkHeaders(url, input.headers);
    let method: string = input.method ?? "GET";
    let body = input.json !== undefined ? JSON.stringify(input.json) : input.body;
    if (input.json !== undefined && !scriptHeaders.has("content-type")) {
      scriptHeaders.set("content-type", "application/json");
    }
    const ownDeadline = AbortSignal.timeout(timeoutMs + OWN_DEADLINE_GRACE_MS);
    const signal = AbortSignal.any([ctx.signal, ownDeadline]);
    try {
      for (let redirects = 0;; redirects++) {
        await policy.checkAddresses(url, signal);
        const headers = new Headers(scriptHeaders);
        for (const [header, value] of policy.secretsFor(url)) headers.set(header, value);
        const res = await fetch(url, { method, headers, body, redirect: "manual", signal });
        const location = res.headers.get("location");
        if (!REDIRECT_STATUSES.has(res.status) || location === null) {
          return await respond(url, method, res);
        }
        await res.body?.cancel();
        if (redirects >= maxRedirects) {
          throw new CordonError("limit_exceeded", `Stopped after ${maxRedirects} redirects`);
        }
        let next: URL;
        try {
          next = policy.checkUrl(new URL(location, url).href);
        } catch (err) {
          const why = err instanceof CordonError ? err.message : "the Location is not a URL";
          throw new CordonError(
            err instanceof CordonError ? err.code : "tool_error",
            `Refused to follow the redirect from ${url.host}: ${redactor.text(why)}`,
          );
        }
        if (res.status === 303 ? method !== "HEAD" : res.status <= 302 && method === "POST") {
          method = "GET";
          body = undefined;
          scriptHeaders.delete("content-type");
        }
        if (next.origin !== url.origin) {
          for (const h of CROSS_ORIGIN_DROPPED) scriptHeaders.delete(h);
        }
        url = next;
      }
    } catch (err) {
      if (err instanceof CordonError) throw err;
      const timedOut = ownDeadline.aborted ||
        (ctx.signal.aborted && (ctx.signal.reason as Error)?.name === "TimeoutError");
      if (timedOut) {
        throw new CordonError(
          "tool_timeout",
          `${method} ${url.host} did not finish within ${timeoutMs} ms`,
        );
      }
      if (ctx.signal.aborted) {
        throw new CordonError("tool_error", `${method} ${url.host} was cancelled`);
      }
      throw new CordonError(
        "tool_error",
        redactor.text(
          `${method} ${url.origin}${url.pathname} failed: ${(err as Error)?.message ?? err}`,
        ),
      );
    }
  }

  const connector = defineConnector({
    name,
    description:
      `HTTP requests made by the host to ${allowed}. Bodies over ${maxBytes} bytes are cut (truncated: true).`,
    tools: {
      fetch: {
        description:
          `Fetches a URL on the allow list (${allowed}); returns { url, status, headers, body | json | bytes, truncated? }`,
        input: inputSchema,
        output: outputSchema,
        timeoutMs,
        execute: run,
      },
    },
  });
  const tool = connector.tools[0];
  const checkShape = tool.validateInput!;
  tool.validateInput = (args) => {
    const v = checkShape(args);
    if (!v.ok) return v;
    const input = v.value as HttpInput;
    try {
      policy.checkHeaders(policy.checkUrl(input.url), input.headers);
    } catch (err) {
      if (err instanceof CordonError) return { ok: false, error: err.toInfo() };
      throw err;
    }
    return v;
  };
  return connector;
}
