/**
 * Artifact routes: files up and down as raw bytes, by path-like name.
 * `:name{.+}` lets a name carry its `/`s (`/v1/artifacts/reports/q1.csv`);
 * the name pattern itself keeps `..` and leading slashes out. A name's
 * versions are listed under their own path (`/v1/artifact-versions/…`), so
 * no name can collide with a suffix route. A text artifact (a stored result)
 * is also read in pages: `?offset=&limit=` answers 206 with one page.
 *
 * @module
 */
import { z } from "zod";
import { ARTIFACT_NAME, MAX_ARTIFACT_NAME_CHARS } from "../../engine/artifacts/ref.ts";
import type { ArtifactInfo } from "../../engine/artifacts/api.ts";
import { MAX_PAGE } from "../../engine/common/paging.ts";
import { DEFAULT_RESULT_PAGE_BYTES, MAX_RESULT_PAGE_BYTES } from "../../engine/artifacts/pages.ts";
import { CordonError } from "../../errors.ts";
import type { ServiceDeps } from "./deps.ts";
import { fail } from "../http/http.ts";
import { type Route, route } from "./route.ts";
import { runSettings } from "./executions.ts";
import { namespaceFor } from "../access/scope.ts";

const namespace = runSettings.namespace;
const artifactName = z.object({
  name: z.string().max(MAX_ARTIFACT_NAME_CHARS).regex(ARTIFACT_NAME, "an artifact name"),
});
const version = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional()
  .describe("One version (default: the newest)");

function notFound(name: string, v?: number): never {
  fail("not_found", `There is no artifact "${name}"${v === undefined ? "" : ` version ${v}`}`, {
    name,
    ...(v === undefined ? {} : { version: v }),
  });
}

/** Where one version is read. */
function locationOf(info: ArtifactInfo): string {
  return `/v1/artifacts/${info.name}?version=${info.version}`;
}

/** One page of a text artifact (a stored result) as a 206 answer. */
async function textPage(
  runtime: ServiceDeps["runtime"],
  resultRef: string,
  offset: number | undefined,
  limit: number | undefined,
  namespace: string | undefined,
): Promise<Response> {
  let page;
  try {
    page = await runtime.readResult({
      resultRef,
      ...(offset === undefined ? {} : { cursor: String(offset) }),
      ...(limit === undefined ? {} : { limit }),
      namespace,
    });
  } catch (err) {
    // Unknown here is the route's own 404, naming the artifact.
    if (err instanceof CordonError && err.code === "not_found") notFound(resultRef);
    throw err;
  }
  const body = new TextEncoder().encode(page.text);
  const last = page.offset + body.byteLength - 1;
  const headers: Record<string, string> = {
    "content-type": page.mimeType,
    "content-range": body.byteLength === 0
      ? `bytes */${page.totalBytes}`
      : `bytes ${page.offset}-${last}/${page.totalBytes}`,
    "x-artifact-version": page.resultRef.slice(page.resultRef.lastIndexOf("@") + 1),
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
  };
  if (page.nextCursor !== undefined) headers["x-next-offset"] = page.nextCursor;
  return new Response(body, { status: 206, headers });
}

/** The artifact routes. */
export function artifactRoutes(deps: ServiceDeps): Route[] {
  const { runtime } = deps;
  return [
    route({
      method: "get",
      path: "/v1/artifacts",
      summary: "List artifacts",
      tag: "artifacts",
      access: "read",
      query: z.object({
        prefix: z.string().max(MAX_ARTIFACT_NAME_CHARS).optional()
          .describe("Only names starting with this"),
        limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
        // A cursor is a name in base64: 4/3 of MAX_ARTIFACT_NAME_CHARS, with room to spare.
        cursor: z.string().max(400).optional(),
        namespace,
      }).strict(),
      responses: { 200: "The newest version of each artifact, by name, with nextCursor" },
      handle: ({ query, principal }) => {
        const { namespace: ns, ...page } = query;
        return runtime.artifacts({ ...page, namespace: namespaceFor(principal, ns) });
      },
    }),
    route({
      method: "put",
      path: "/v1/artifacts/:name{.+}",
      summary: "Upload an artifact",
      tag: "artifacts",
      access: "execute",
      params: artifactName,
      query: z.object({
        sourceExecutionId: z.string().min(1).max(200).optional()
          .describe("The execution that produced it"),
        namespace,
      }).strict(),
      rawBody: true,
      responses: {
        201: "Saved as the next version; the body's content-type is its media type",
      },
      handle: async ({ params, query, principal, c }) => {
        // The raw bytes: the app's body limit (maxBodyBytes) has already applied.
        const data = new Uint8Array(await c.req.arrayBuffer());
        let info: ArtifactInfo;
        try {
          info = await runtime.saveArtifact({
            name: params.name,
            data,
            mimeType: c.req.header("content-type") || undefined,
            sourceExecutionId: query.sourceExecutionId,
            namespace: namespaceFor(principal, query.namespace),
          });
        } catch (err) {
          // Over the runtime's artifact cap is, here, a body too large.
          if (err instanceof CordonError && err.code === "limit_exceeded") {
            fail("payload_too_large", err.message, err.details);
          }
          throw err;
        }
        return c.json(info, 201, { location: locationOf(info) });
      },
    }),
    route({
      method: "get",
      path: "/v1/artifacts/:name{.+}",
      summary: "Download an artifact",
      tag: "artifacts",
      access: "read",
      params: artifactName,
      query: z.object({
        version,
        offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional()
          .describe("A page of a text artifact from this byte (a stored result's nextCursor)"),
        limit: z.coerce.number().int().min(1).max(MAX_RESULT_PAGE_BYTES).optional()
          .describe(`The page's most bytes (default ${DEFAULT_RESULT_PAGE_BYTES})`),
        namespace,
      }).strict(),
      responses: {
        200: "The bytes, with content-type, etag (the SHA-256) and x-artifact-version",
        206: "With offset or limit: one page of a text artifact, cut between characters, " +
          "with content-range and x-next-offset (absent on the last page)",
        304: "Not modified (if-none-match)",
        404: "No such artifact or version",
      },
      handle: async ({ params, query, principal, c }) => {
        const ref = query.version === undefined ? params.name : `${params.name}@${query.version}`;
        const ns = namespaceFor(principal, query.namespace);
        if (query.offset !== undefined || query.limit !== undefined) {
          return await textPage(runtime, ref, query.offset, query.limit, ns);
        }
        const found = await runtime.artifact(ref, { namespace: ns });
        if (!found) notFound(params.name, query.version);
        const { info, data } = found;
        const headers: Record<string, string> = {
          etag: `"${info.sha256}"`,
          "x-artifact-version": String(info.version),
          // Stored files are data: a browser must not sniff or run them on this origin.
          "x-content-type-options": "nosniff",
          "content-security-policy": "sandbox",
        };
        if (c.req.header("if-none-match") === headers.etag) {
          return new Response(null, { status: 304, headers });
        }
        return new Response(data, {
          status: 200,
          headers: { ...headers, "content-type": info.mimeType },
        });
      },
    }),
    route({
      method: "delete",
      path: "/v1/artifacts/:name{.+}",
      summary: "Delete an artifact (one version, or every version)",
      tag: "artifacts",
      access: "execute",
      params: artifactName,
      query: z.object({ version, namespace }).strict(),
      responses: { 200: "Deleted", 404: "No such artifact or version" },
      handle: async ({ params, query, principal }) => {
        const deleted = await runtime.deleteArtifact(params.name, {
          version: query.version,
          namespace: namespaceFor(principal, query.namespace),
        });
        if (!deleted) notFound(params.name, query.version);
        return { deleted: true };
      },
    }),
    route({
      method: "get",
      path: "/v1/artifact-versions/:name{.+}",
      summary: "List an artifact's versions",
      tag: "artifacts",
      access: "read",
      params: artifactName,
      query: z.object({ namespace }).strict(),
      responses: { 200: "Every version, newest first, without bytes", 404: "No such artifact" },
      handle: async ({ params, query, principal }) => {
        const items = await runtime.artifactVersions(params.name, {
          namespace: namespaceFor(principal, query.namespace),
        });
        if (items.length === 0) notFound(params.name);
        return { items };
      },
    }),
  ];
}
