/**
 * Code blocks and programs over HTTP (seed 002's executor): run a model's
 * code blocks, run a program of a workspace to its end, or start one and
 * poll, write to, kill and close its session. Program sessions are
 * node-local, like sessions.
 *
 * @module
 */
import { z } from "zod";
import { extractCodeBlock } from "../../engine/code/delimited.ts";
import { extractCodeBlocks } from "../../engine/code/code_blocks.ts";
import type { ServiceDeps } from "./deps.ts";
import { type Route, route } from "./route.ts";
import { workspaceBody } from "./workspace_schema.ts";
import { isAdmin, namespaceFor } from "../access/scope.ts";
import type { Principal } from "../access/keys.ts";
import { fail } from "../http/http.ts";

const namespace = z.string().max(64).optional()
  .describe("Admin keys: act in this namespace (default: the key's own)");
const block = z.object({ language: z.string().max(32), code: z.string().max(1_000_000) }).strict();
const delimiter = z.object({ start: z.string().min(1).max(64), end: z.string().min(1).max(64) })
  .strict();

const spec = {
  cmd: z.string().min(1).max(4_096).describe("python3, bash, deno … or a workspace script"),
  args: z.array(z.string().max(256 * 1024)).max(1_024).optional(),
  env: z.record(z.string().max(128), z.string().max(64 * 1024)).optional(),
  cwd: z.string().max(1_000).optional().describe("Workspace-relative working directory"),
  stdin: z.string().max(4 * 1024 * 1024).optional(),
  timeoutMs: z.number().int().positive().optional(),
  limits: z.object({
    cpuPercent: z.number().int().positive().optional(),
    memoryMB: z.number().int().positive().optional(),
    maxPIDs: z.number().int().positive().optional(),
  }).strict().optional(),
  workspace: workspaceBody.optional()
    .describe("The workspace it runs in (default: a new one, removed after)"),
  namespace,
};
const id = z.object({ id: z.string().min(1).max(200) });

/** The namespace a program session is looked up in for this caller (admins: any). */
function sessionNamespace(p: Principal): string | undefined {
  return isAdmin(p) ? undefined : p.namespace;
}

/** The program and code-block routes. */
export function programRoutes(deps: ServiceDeps): Route[] {
  const { runtime, gate } = deps;
  return [
    route({
      method: "post",
      path: "/v1/code",
      summary: "Run the code blocks of a model's answer (ts/js, python, bash) in order",
      tag: "programs",
      access: "execute",
      body: z.object({
        codeBlocks: z.array(block).min(1).max(50).optional(),
        text: z.string().max(1_000_000).optional()
          .describe(
            "A model's answer: its blocks are extracted (with delimiter, as the document does)",
          ),
        delimiter: delimiter.optional(),
        executionId: z.string().min(1).max(200).optional(),
        timeoutMs: z.number().int().positive().optional(),
        workspace: workspaceBody.optional(),
        namespace,
      }).strict(),
      responses: { 200: "{ output, exitCode, executionIds, outputFiles }" },
      handle: ({ body, principal }) => {
        const { text, delimiter: d, namespace: ns, ...rest } = body;
        const codeBlocks = rest.codeBlocks ??
          (text === undefined ? [] : d ? extractCodeBlock(text, d) : extractCodeBlocks(text));
        if (codeBlocks.length === 0) {
          fail("invalid_request", "Give codeBlocks, or text with code blocks");
        }
        const n = namespaceFor(principal, ns);
        return gate.run(
          () => runtime.executeCode({ ...rest, codeBlocks, namespace: n }),
          n ?? principal.namespace,
        );
      },
    }),
    route({
      method: "get",
      path: "/v1/code/delimiter",
      summary: "The code block delimiter (the document's CodeBlockDelimiter)",
      tag: "programs",
      access: "read",
      responses: { 200: "{ start, end }" },
      handle: () => runtime.codeBlockDelimiter(),
    }),
    route({
      method: "post",
      path: "/v1/programs/run",
      summary: "Run a program of a workspace to its end",
      tag: "programs",
      access: "execute",
      body: z.object(spec).strict(),
      responses: { 200: "{ stdout, stderr, exitCode, durationMs, timedOut, executionId }" },
      handle: ({ body, principal }) => {
        const { workspace, namespace: ns, ...s } = body;
        const n = namespaceFor(principal, ns);
        return gate.run(
          () => runtime.runProgram(workspace ?? {}, s, { namespace: n }),
          n ?? principal.namespace,
        );
      },
    }),
    route({
      method: "post",
      path: "/v1/programs",
      summary: "Start an interactive program; poll, write to and kill it by its id",
      tag: "programs",
      access: "execute",
      body: z.object(spec).strict(),
      responses: { 200: "{ id, executionId, state }", 400: "Too many programs run here" },
      handle: async ({ body, principal }) => {
        const { workspace, namespace: ns, ...s } = body;
        const session = await runtime.startProgram(workspace ?? {}, s, {
          namespace: namespaceFor(principal, ns),
        });
        return { id: session.id, executionId: session.executionId, state: session.state() };
      },
    }),
    route({
      method: "get",
      path: "/v1/programs",
      summary: "List this node's program sessions",
      tag: "programs",
      access: "read",
      query: z.object({ namespace }).strict(),
      responses: { 200: "{ items }" },
      handle: ({ query, principal }) => ({
        items: runtime.programSessions({
          namespace: namespaceFor(principal, query.namespace, true),
        }),
      }),
    }),
    route({
      method: "get",
      path: "/v1/programs/:id",
      summary: "A program session's state, and its result once it exited",
      tag: "programs",
      access: "read",
      params: id,
      responses: { 200: "{ id, executionId, state, result? }", 404: "Not held by this node" },
      handle: ({ params, principal }) => {
        const s = runtime.programSession(params.id, { namespace: sessionNamespace(principal) });
        const result = s.result();
        return {
          id: s.id,
          executionId: s.executionId,
          state: s.state(),
          ...(result ? { result } : {}),
        };
      },
    }),
    route({
      method: "get",
      path: "/v1/programs/:id/poll",
      summary: "Output since the last poll (advances the cursor)",
      tag: "programs",
      access: "read",
      params: id,
      query: z.object({ limit: z.coerce.number().int().min(1).max(20_000).optional() }).strict(),
      responses: { 200: "{ status, output, offset, nextOffset, exitCode? }" },
      handle: ({ params, query, principal }) =>
        runtime.programSession(params.id, { namespace: sessionNamespace(principal) }).poll(
          query.limit,
        ),
    }),
    route({
      method: "get",
      path: "/v1/programs/:id/log",
      summary: "Output from an offset (the cursor stays)",
      tag: "programs",
      access: "read",
      params: id,
      query: z.object({
        offset: z.coerce.number().int().min(0).optional(),
        limit: z.coerce.number().int().min(1).max(20_000).optional(),
      }).strict(),
      responses: { 200: "{ output, offset, nextOffset }" },
      handle: ({ params, query, principal }) =>
        runtime.programSession(params.id, { namespace: sessionNamespace(principal) })
          .log(query.offset, query.limit),
    }),
    route({
      method: "post",
      path: "/v1/programs/:id/input",
      summary: "Write to a program's standard input",
      tag: "programs",
      access: "execute",
      params: id,
      body: z.object({
        data: z.string().max(1024 * 1024),
        newline: z.boolean().optional(),
      }).strict(),
      responses: { 200: "{ written: true }", 409: "The program is not running" },
      handle: async ({ params, body, principal }) => {
        const s = runtime.programSession(params.id, { namespace: sessionNamespace(principal) });
        await s.write(body.data, body.newline ?? false);
        return { written: true };
      },
    }),
    route({
      method: "post",
      path: "/v1/programs/:id/kill",
      summary: "Stop a program (its result says exit -1)",
      tag: "programs",
      access: "execute",
      params: id,
      body: z.object({ graceMs: z.number().int().min(0).max(60_000).optional() }).strict(),
      responses: { 200: "{ state }" },
      handle: async ({ params, body, principal }) => {
        const s = runtime.programSession(params.id, { namespace: sessionNamespace(principal) });
        await s.kill(body.graceMs);
        return { state: s.state() };
      },
    }),
    route({
      method: "delete",
      path: "/v1/programs/:id",
      summary: "Close a program session (killed if it still runs)",
      tag: "programs",
      access: "execute",
      params: id,
      responses: { 200: "{ closed: true }", 404: "Not held by this node" },
      handle: async ({ params, principal }) => {
        await runtime.closeProgram(params.id, { namespace: sessionNamespace(principal) });
        return { closed: true };
      },
    }),
  ];
}
