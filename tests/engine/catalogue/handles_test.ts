import assert from "node:assert/strict";
import { z } from "zod";
import {
  type Connector,
  createRuntime,
  defineConnector,
  type ExecuteResult,
} from "../../../mod.ts";

const HANDLE_BASICS = ["inspect", "check", "tools", "searchTools", "describeTool", "callTool"];

function ok(r: ExecuteResult): Record<string, unknown> {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: Record<string, unknown> }).result;
}

/** Every cursor the in-memory backend was asked for, in order. */
const backendCursors: (string | undefined)[] = [];

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
  tools.add.useWhen = "Adding two numbers";
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    useWhen: "Sums and products",
    tags: ["numbers"],
    tools,
  });
  const docs: Connector = {
    ...defineConnector({
      name: "docs",
      description: "Documents",
      tools: { ping: { description: "Ping", input: z.object({}), execute: () => "pong" } },
    }),
    handle: {
      check: () =>
        Promise.resolve({ ready: false, problems: [{ code: "auth", message: "token expired" }] }),
      resources: (cursor) => {
        backendCursors.push(cursor);
        return Promise.resolve(
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
        );
      },
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

Deno.test("caplets.<id> gives every connector the same methods: pages bare, failures as values", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  const out = ok(
    await rt.execute({
      code: `const math = caplets.math;
const first = await math.tools();
const second = await math.tools({ cursor: first.nextCursor });
const small = await math.tools({ limit: 7, cursor: first.nextCursor });
let noConnector;
try { await codemode.connector("nope").inspect(); } catch (err) { noConnector = err.code; }
let badLimit;
try { await math.tools({ limit: -1 }); } catch (err) { badLimit = err.code; }
return {
  same: codemode.connector("math") === math && Object.isFrozen(math) && math.id === "math",
  inspect: await math.inspect(),
  check: await math.check(),
  pageSizes: [first.items.length, second.items.length, second.nextCursor ?? null],
  small: [small.items.length, small.nextCursor],
  found: await math.searchTools("numbered tool", { limit: 3 }),
  described: await math.describeTool("add"),
  called: await math.callTool("add", { a: 2, b: 3 }),
  badArgs: await math.callTool("add", { a: "x" }),
  noTool: await math.describeTool("nope"),
  noResources: await math.resources(),
  noConnector,
  badLimit,
  missingCheck: await codemode.connector("nope").check(),
};`,
    }),
  );
  assert.equal(out.same, true);
  assert.deepEqual(out.inspect, {
    id: "math",
    name: "math",
    description: "Arithmetic",
    useWhen: "Sums and products",
    tags: ["numbers"],
    backend: { tools: 61, supports: HANDLE_BASICS },
  });
  assert.deepEqual(out.check, { ok: true, data: { ready: true, info: { tools: 61 } } });
  assert.deepEqual(out.pageSizes, [50, 11, null]);
  assert.deepEqual(out.small, [7, "57"]);
  const found = out.found as { items: { name: string }[]; nextCursor?: string };
  assert.equal(found.items.length, 3, "limit is honored");
  assert.ok(found.nextCursor, "more hits follow");
  const described = (out.described as { data: Record<string, unknown> }).data;
  assert.equal(described.id, "math.add");
  assert.equal(
    described.callSignature,
    'caplets.math.callTool("add", args: { a: number; b: number }): Promise<CapletsResult<unknown>>',
  );
  assert.match(String(described.inputTypeScript), /a: number/);
  assert.equal(described.outputTypeScript, "unknown");
  assert.equal((described.inputSchema as { type: string }).type, "object");
  assert.equal((described.tool as { useWhen: string }).useWhen, "Adding two numbers");
  assert.deepEqual(out.called, { ok: true, data: 5 });
  assert.equal((out.badArgs as { error: { code: string } }).error.code, "invalid_input");
  assert.equal((out.noTool as { error: { code: string } }).error.code, "tool_not_found");
  assert.deepEqual(out.noResources, { items: [] }, "an empty page where a backend has none");
  assert.equal(out.noConnector, "connector_not_found");
  assert.equal(out.badLimit, "invalid_input");
  assert.equal((out.missingCheck as { error: { code: string } }).error.code, "connector_not_found");
});

Deno.test("caplets.<id> reaches resources and prompts, check() is ok:false when not ready", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  const run = await rt.execute({
    code: `const docs = caplets.docs;
const one = await docs.resources({ limit: 1 });
return {
  check: await docs.check(),
  supports: (await docs.inspect()).backend.supports,
  page: await docs.resources(),
  one,
  next: await docs.resources({ limit: 1, cursor: one.nextCursor }),
  hits: await docs.searchResources("holidays"),
  read: await docs.readResource("doc://handbook/vacation"),
  missing: await docs.readResource("doc://nope"),
  prompts: await docs.searchPrompts("summary of a document", { limit: 1 }),
  noTemplates: await docs.resourceTemplates(),
  noGetPrompt: await docs.getPrompt("summarize"),
  ping: await docs.callTool("ping", {}),
};`,
  });
  const out = ok(run);
  assert.deepEqual(out.check, {
    ok: false,
    error: {
      code: "auth",
      message: "token expired",
      details: { ready: false, problems: [{ code: "auth", message: "token expired" }] },
    },
  });
  assert.ok((out.supports as string[]).includes("readResource"));
  assert.ok(!(out.supports as string[]).includes("getPrompt"));
  const page = out.page as { items: { uri: string }[]; nextCursor?: string };
  assert.deepEqual(page.items.map((i) => i.uri), [
    "doc://handbook/security",
    "doc://handbook/vacation",
  ], "a page fills from the backend's next page");
  assert.equal(page.nextCursor, undefined);
  const one = out.one as { items: { uri: string }[]; nextCursor: string };
  assert.deepEqual(one.items.map((i) => i.uri), ["doc://handbook/security"]);
  assert.deepEqual((out.next as { items: { uri: string }[] }).items.map((i) => i.uri), [
    "doc://handbook/vacation",
  ]);
  assert.deepEqual(
    backendCursors,
    [undefined, undefined, "2", "2", undefined, "2"],
    "the server only ever gets its own cursors",
  );
  const hits = out.hits as { items: { uri: string }[]; truncated?: boolean };
  assert.equal(hits.items[0].uri, "doc://handbook/vacation", "found on the second page");
  assert.equal(hits.truncated, undefined);
  assert.deepEqual((out.read as { data: unknown }).data, {
    contents: [{ uri: "doc://handbook/vacation", text: "25 days" }],
  });
  assert.equal((out.missing as { ok: boolean }).ok, false);
  assert.match((out.missing as { error: { message: string } }).error.message, /no resource/);
  assert.deepEqual((out.prompts as { items: { name: string }[] }).items.map((p) => p.name), [
    "summarize",
  ]);
  assert.deepEqual(out.noTemplates, { items: [] });
  assert.equal((out.noGetPrompt as { error: { code: string } }).error.code, "not_supported");
  assert.deepEqual(out.ping, { ok: true, data: "pong" });
  assert.deepEqual(run.calls.map((c) => `${c.connector}.${c.tool}`), ["docs.ping"]);
});

Deno.test("caplets is declared: documented use type-checks, misuse does not", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  const good = await rt.execute({
    typecheck: "strict",
    code: `const r = await caplets.math.callTool("add", { a: 1, b: 2 });
if (!r.ok) return r.error.code;
const id: "math" = codemode.connector("math").id;
const page = await caplets.docs.resources({ limit: 1 });
return [id, ...page.items.map((i) => i.uri)];`,
  });
  assert.deepEqual(ok(good) as unknown, ["math", "doc://handbook/security"]);
  const bad = await rt.execute({
    typecheck: "strict",
    code: `const r = await caplets.math.tools();\nreturn r.data.items;`,
  });
  assert.equal((bad as { error: { code: string } }).error.code, "type_error");
  assert.equal(bad.diagnostics[0].line, 2);
  const unknownCaplet = await rt.execute({ typecheck: "strict", code: `return caplets.nope.id;` });
  assert.equal((unknownCaplet as { error: { code: string } }).error.code, "type_error");
});

Deno.test("describeTool() gives the observed output shape as the documented JsonShape tree", async () => {
  let n = 0;
  const crm = defineConnector({
    name: "crm",
    description: "Customers",
    tools: {
      lookup: {
        description: "Look up a customer",
        input: z.object({}),
        execute: () => (++n === 1
          ? { id: 1, name: "Ada", tags: ["vip"], note: null }
          : { id: 2, name: "Bob", tags: [], note: "late" }),
      },
    },
  });
  await using rt = await createRuntime({ connectors: [crm], db: ":memory:", pool: { size: 0 } });
  const before = Date.now();
  const out = ok(
    await rt.execute({
      typecheck: "strict",
      code: `const none = await caplets.crm.describeTool("lookup");
await crm.lookup({});
await caplets.crm.callTool("lookup", {});
const seen = await caplets.crm.describeTool("lookup");
if (!none.ok || !seen.ok) throw new Error("describeTool failed");
return { before: none.data.observedOutputShape ?? null, after: seen.data.observedOutputShape ?? null };`,
    }),
  );
  assert.equal(out.before, null);
  const shape = out.after as Record<string, unknown>;
  const at = Date.parse(String(shape.observedAt));
  assert.ok(at >= before - 1000 && at <= Date.now(), String(shape.observedAt));
  assert.deepEqual({ ...shape, observedAt: "" }, {
    version: 1,
    source: "observed",
    observedAt: "",
    sampleCount: 2,
    typeScript: "{ id: number; name: string; tags: string[]; note: string | null }",
    jsonShape: {
      kind: "object",
      fields: {
        id: { optional: false, shape: { kind: "number" } },
        name: { optional: false, shape: { kind: "string" } },
        tags: { optional: false, shape: { kind: "array", element: { kind: "string" } } },
        note: {
          optional: false,
          shape: { kind: "union", variants: [{ kind: "string" }, { kind: "null" }] },
        },
      },
    },
    truncated: false,
  });
});

Deno.test("caplets.<id> refuses hostile inputs with typed errors, and sends the backend nothing", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  backendCursors.length = 0;
  const out = ok(
    await rt.execute({
      code: `const h = codemode.connector("docs");
const codes = [];
for (const input of [{ limit: 0 }, { limit: 1.5 }, { limit: "3" }, { cursor: 5 }, { cursor: "garbage" }, { cursor: "[-1]" }, [1], 42]) {
  try { await h.resources(input); codes.push("passed"); } catch (err) { codes.push(err.code); }
}
try { await caplets.math.tools({ cursor: "1e3" }); codes.push("passed"); } catch (err) { codes.push(err.code); }
const completions = [
  await h.complete({ ref: { type: "tool", name: "x" }, argument: { name: "a", value: "" } }),
  await h.complete({ ref: { type: "prompt", name: "p" } }),
  await h.complete(null),
].map((r) => r.ok ? "passed" : r.error.code);
const prompt = await h.getPrompt("summarize", { nested: { a: 1 } });
return { codes, completions, prompt: prompt.ok ? "passed" : prompt.error.code };`,
    }),
  );
  assert.deepEqual(out.codes, Array(9).fill("invalid_input"));
  assert.deepEqual(out.completions, ["invalid_input", "invalid_input", "invalid_input"]);
  assert.equal(out.prompt, "invalid_input");
  assert.deepEqual(backendCursors, [], "no bad input reached the backend");
});

Deno.test("caplets in a session: a later execution holds the same frozen handles and they work", async () => {
  await using rt = await createRuntime({
    connectors: connectors(),
    db: ":memory:",
    pool: { size: 0 },
  });
  const first = await rt.execute({ session: true, code: "const kept = caplets.math; return 1" });
  const sessionId = first.meta.sessionId!;
  const later = ok(
    await rt.execute({
      sessionId,
      code: `const page = await caplets.math.tools({ limit: 2 });
return [kept === caplets.math, kept === codemode.connector("math"), page.items.map((t) => t.name)];`,
    }),
  );
  assert.deepEqual(later, [true, true, ["tool0", "tool1"]]);
  const tamper = ok(
    await rt.execute({
      sessionId,
      code: `"use strict";
const tries = [];
for (const f of [() => { caplets.math = 1; }, () => { caplets.math.tools = null; }, () => { caplets.debug.readLogs = null; }, () => { globalThis.caplets = {}; }]) {
  try { f(); tries.push("changed"); } catch { tries.push("refused"); }
}
return [tries, typeof caplets.math.tools];`,
    }),
  );
  assert.deepEqual(tamper, [["refused", "refused", "refused", "refused"], "function"]);
});
