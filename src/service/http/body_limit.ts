/**
 * The service's bound on request bodies. A body with a `content-length` is judged by it; one
 * without (chunked, or a bodiless POST) is read up to the bound and handed on as bytes.
 *
 * Hono's own `bodyLimit` rebuilds such a request with `new Request(request, …)`, which reads the
 * request's `signal`; Deno 2.9 then prints a warning about its legacy abort behaviour on the
 * service's stderr (once, for the first bodiless POST a README recipe sends). Nothing after this
 * middleware listens to the request's signal (event streams use Hono's `onAbort`, the MCP door
 * builds its own request), so the rebuilt request carries none.
 *
 * @module
 */
import { readAtMost } from "../../bytes.ts";
import type { Context, MiddlewareHandler } from "hono";

/** A middleware refusing bodies over `maxBytes` with `tooLarge()`'s answer. */
export function limitBody(maxBytes: number, tooLarge: () => Response): MiddlewareHandler {
  return async (c: Context, next) => {
    const raw = c.req.raw;
    if (!raw.body) return await next();
    const length = raw.headers.get("content-length");
    if (length !== null && !raw.headers.has("transfer-encoding")) {
      if (Number(length) > maxBytes) {
        await raw.body.cancel().catch(() => {});
        return tooLarge();
      }
      return await next();
    }
    const bytes = await readAtMost(raw.body, maxBytes);
    if (bytes === undefined) return tooLarge();
    c.req.raw = new Request(raw.url, { method: raw.method, headers: raw.headers, body: bytes });
    return await next();
  };
}
