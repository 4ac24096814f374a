/**
 * Sending one request from the host: under the call's signal and a time
 * limit, following redirects without carrying the host's credentials to
 * another origin, with network failures reported as `connector_unavailable`.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { BuiltRequest, HostAuth } from "./request.ts";
import { readResponse, redact } from "./response.ts";

/** Per-request time limit when none is given; the registry's default call deadline. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/** Redirects followed per call: real APIs use one or two; more is a loop. */
export const MAX_REDIRECTS = 5;

/** How one request is sent. */
export interface SendOptions {
  /** Upper case. */
  method: string;
  signal: AbortSignal;
  timeoutMs: number;
  maxResponseBytes: number;
  auth: HostAuth;
}

/** The credential values, to keep out of every message. */
export function authSecrets(auth: HostAuth): string[] {
  return [...Object.values(auth.headers ?? {}), ...Object.values(auth.query ?? {})];
}

/** Why a fetch failed, from its error and causes, without URLs (they carry query credentials). */
function failureReason(err: unknown, secrets: readonly string[]): string {
  const messages: string[] = [];
  for (let e: unknown = err; e !== undefined && messages.length < 3; e = (e as Error).cause) {
    messages.push(e instanceof Error ? e.message : String(e));
    if (!(e instanceof Error)) break;
  }
  const text = messages.join(": ").replace(/\s*\(?\bhttps?:\/\/[^\s)]*\)?/g, "");
  return redact(text, secrets);
}

/** The request without the host's credentials, for a redirect to another origin. */
function withoutAuth(url: URL, headers: Headers, auth: HostAuth): { url: URL; headers: Headers } {
  const bare = new Headers(headers);
  for (const name of Object.keys(auth.headers ?? {})) bare.delete(name);
  const cleanUrl = new URL(url);
  for (const name of Object.keys(auth.query ?? {})) cleanUrl.searchParams.delete(name);
  return { url: cleanUrl, headers: bare };
}

/** Sends `request` and reads its response (see `readResponse`). */
export async function sendRequest(request: BuiltRequest, options: SendOptions): Promise<unknown> {
  const { signal, timeoutMs, auth } = options;
  const secrets = authSecrets(auth);
  const what = `${options.method} ${request.shownPath}`;
  if (signal.aborted) throw new CordonError("tool_error", `${what} was cancelled`);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`${what} timed out`, "TimeoutError"));
  }, timeoutMs);
  let { url, headers } = request;
  let method = options.method;
  let body = request.body;
  try {
    for (let redirects = 0;; redirects++) {
      const response = await fetch(url, {
        method,
        headers,
        body,
        signal: controller.signal,
        redirect: "manual",
      });
      const location = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || location === null) {
        return await readResponse(response, {
          method: options.method,
          shownPath: request.shownPath,
          secrets,
        }, options.maxResponseBytes);
      }
      await response.body?.cancel();
      if (redirects >= MAX_REDIRECTS) {
        throw new CordonError("tool_error", `${what} redirected more than ${MAX_REDIRECTS} times`, {
          details: { status: response.status },
        });
      }
      const next = new URL(location, url);
      if (next.origin !== url.origin) ({ url, headers } = withoutAuth(next, headers, auth));
      else url = next;
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === "POST")
      ) {
        method = "GET";
        body = undefined;
        headers = new Headers(headers);
        headers.delete("content-type");
      }
    }
  } catch (err) {
    if (err instanceof CordonError) throw err;
    if (timedOut) {
      throw new CordonError("tool_timeout", `${what} did not answer within ${timeoutMs} ms`);
    }
    if (signal.aborted) throw new CordonError("tool_error", `${what} was cancelled`);
    throw new CordonError(
      "connector_unavailable",
      `${what} could not reach ${request.url.host}: ${failureReason(err, secrets)}`,
    );
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}
