import assert from "node:assert/strict";
import { z } from "zod";
import {
  type Connector,
  createRuntime,
  defineConnector,
  type ExecuteResult,
} from "../../../mod.ts";

function ok(r: ExecuteResult): Record<string, unknown> {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: Record<string, unknown> }).result;
}

/** A zod connector, plus one that also serves resources and prompts from memory. */
function connectors(): Connector[] {
  const tools: Record<string, Parameters<typeof defineConnector>[0]["tools"][string]> = {};
  for (let i = 0; i < 60; i++) {
    tools[`tool${i}`] = {
      description: `Numbered tool ${i}`,
      input: z.object({}),
      execute: () => i,
    };
  }
  tools.add = {
    description: "Add two numbers",
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => a + b,
  };
  const math = defineConnector({ name: "math", description: "Arithmetic", tools });
  const docs: Connector = {
    ...defineConnector({
      name: "docs",
      description: "Documents",
      tools: { ping: { description: "Ping", input: z.object({}), execute: () => "pong" } },
    }),
    handle: {
      check: () =>
        Promise.resolve({ ready: false, problems: [{ code: "auth", message: "token expired" }] }),
      resources: (cursor) =>
        Promise.resolve(
          cursor
            ? {
              items: [{
                uri: "doc://handbook/vacation",
                name: "Vacation policy",
                description: "Days off and holidays",
              }],
            }
            : {
              items: [{
                uri: "doc://handbook/security",
                name: "Security policy",
                description: "Passwords and laptops",
              }],
              nextCursor: "2",
            },
        ),
      readResource: (uri) =>
        uri === "doc://handbook/vacation"
          ? Promise.resolve({ contents: [{ uri, text: "25 days" }] })
          : Promise.reject(new Error(`no resource ${uri}`)),
      prompts: () =>
        Promise.resolve({ items: [{ name: "summarize", description: "Summarize a document" }] }),
    },
  };
  return [math, docs];
}

Deno.test("codemode.connector() gives every connector the same methods, failures as values", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  const out = ok(
    await rt.execute({
      code: `const math = codemode.connector("math");
const first = await math.tools();
const second = await math.tools(first.data.nextCursor);
return {
  inspect: await math.inspect(),
  check: await math.check(),
  pageSizes: [first.data.items.length, second.data.items.length, second.data.nextCursor ?? null],
  found: await math.searchTools("add numbers", { limit: 1 }),
  described: (await math.describeTool("add")).data.signature,
  called: await math.callTool("add", { a: 2, b: 3 }),
  badArgs: await math.callTool("add", { a: "x" }),
  noTool: await math.describeTool("nope"),
  noResources: await math.resources(),
  noConnector: await codemode.connector("nope").inspect(),
};`,
    }),
  );
  assert.equal((out.inspect as { data: { tools: number } }).data.tools, 61);
  assert.deepEqual((out.check as { data: unknown }).data, { ready: true, info: { tools: 61 } });
  assert.deepEqual(out.pageSizes, [50, 11, null]);
  assert.equal((out.found as { data: { items: { name: string }[] } }).data.items[0].name, "add");
  assert.match(String(out.described), /math\.add\(/);
  assert.deepEqual(out.called, { ok: true, data: 5 });
  assert.equal((out.badArgs as { error: { code: string } }).error.code, "invalid_input");
  assert.equal((out.noTool as { error: { code: string } }).error.code, "tool_not_found");
  assert.equal((out.noResources as { error: { code: string } }).error.code, "not_supported");
  assert.equal((out.noConnector as { error: { code: string } }).error.code, "connector_not_found");
});

Deno.test("codemode.connector() reaches resources and prompts, and callTool is journaled", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  const run = await rt.execute({
    code: `const docs = codemode.connector("docs");
return {
  check: await docs.check(),
  supports: (await docs.inspect()).data.supports,
  page: await docs.resources(),
  hits: await docs.searchResources("holidays"),
  read: await docs.readResource("doc://handbook/vacation"),
  missing: await docs.readResource("doc://nope"),
  prompts: await docs.searchPrompts("summary of a document"),
  noTemplates: await docs.resourceTemplates(),
  ping: await docs.callTool("ping", {}),
};`,
  });
  const out = ok(run);
  assert.deepEqual(out.check, {
    ok: true,
    data: { ready: false, problems: [{ code: "auth", message: "token expired" }] },
  });
  assert.ok((out.supports as string[]).includes("readResource"));
  assert.ok(!(out.supports as string[]).includes("getPrompt"));
  assert.equal((out.page as { data: { nextCursor: string } }).data.nextCursor, "2");
  const hits = (out.hits as { data: { items: { uri: string }[]; truncated: boolean } }).data;
  assert.equal(hits.items[0].uri, "doc://handbook/vacation", "found on the second page");
  assert.equal(hits.truncated, false);
  assert.deepEqual((out.read as { data: unknown }).data, {
    contents: [{ uri: "doc://handbook/vacation", text: "25 days" }],
  });
  assert.equal((out.missing as { ok: boolean }).ok, false);
  assert.match((out.missing as { error: { message: string } }).error.message, /no resource/);
  assert.equal(
    (out.prompts as { data: { items: { name: string }[] } }).data.items[0].name,
    "summarize",
  );
  assert.equal((out.noTemplates as { error: { code: string } }).error.code, "not_supported");
  assert.deepEqual(out.ping, { ok: true, data: "pong" });
  assert.deepEqual(run.calls.map((c) => `${c.connector}.${c.tool}`), ["docs.ping"]);
});

Deno.test("codemode.connector() is declared: narrowed use type-checks, misuse does not", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  const good = await rt.execute({
    typecheck: "strict",
    code: `const r = await codemode.connector("math").callTool("add", { a: 1, b: 2 });
if (!r.ok) return r.error.code;
const page = await codemode.connector("docs").resources();
return page.ok ? page.data.items.map((i) => i.uri) : page.error.message;`,
  });
  assert.deepEqual(ok(good) as unknown, ["doc://handbook/security"]);
  const bad = await rt.execute({
    typecheck: "strict",
    code: `const r = await codemode.connector("math").tools();\nreturn r.data.items;`,
  });
  assert.equal((bad as { error: { code: string } }).error.code, "type_error");
  assert.equal(bad.diagnostics[0].line, 2);
});
