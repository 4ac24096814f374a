/**
 * Document 001 (Caplets "Code Mode API"): each recipe, as written in the document (the text as
 * captured, line breaks and all), runs against real MCP servers through connectors named as the
 * recipes name them (`osv`, `github`, `docs`), and type-checks against the runtime's generated
 * declarations with no diagnostics.
 */
import assert from "node:assert/strict";
import { createRuntime, type ExecuteResult, type Runtime } from "../../mod.ts";
import { mcpConnector } from "../../src/connectors/mcp/mod.ts";
import { formOf, TypeChecker } from "../../src/engine/typecheck/check.ts";
import {
  everythingStdio,
  FIRST_START_TIMEOUT_MS,
  fixtureServer,
  startEverythingHttp,
} from "../_helpers/mcp_servers.ts";

/** "Guard against unavailable backends before you spend work on discovery". */
const GUARD =
  `const h = caplets.osv;const ready = await h.check();if (!ready.ok) { return { ok: false, reason: ready.error.message };}`;

/** "Discover, describe, and call the best matching tool". */
const DISCOVER =
  `const h = caplets.osv;const tools = await h.searchTools("package version", { limit: 5 });const tool = tools.items[0];if (!tool) return { ok: false, reason: "No matching tool" };
const details = await h.describeTool(tool.name);const result = await h.callTool(tool.name, { ecosystem: "npm", name: "react", version: "18.2.0",});
return { tool: tool.name, callOk: result.ok, evidence: result.ok ? result.data : result.error.message, schemaKnown: details.ok,};`;

/** "Page through larger result sets with nextCursor". */
const PAGE =
  `const h = caplets.github;const repos = [];let cursor: string | undefined;do { const page = await h.tools({ limit: 25, cursor }); repos.push(...page.items.map((item) => item.name)); cursor = page.nextCursor;} while (cursor && repos.length < 100);
return { count: repos.length, repos };`;

/** "Use resources and prompts when a Caplet exposes reusable context". */
const DOCS =
  `const h = caplets.docs;const resources = await h.searchResources("configuration", { limit: 3 });const first = resources.items[0];const content = first?.uri ? await h.readResource(first.uri) : undefined;
const prompts = await h.searchPrompts("review", { limit: 3 });
return { resources: resources.items.map((item) => item.uri), firstResourceOk: content?.ok ?? false, prompts: prompts.items.map((item) => item.name),};`;

/** "Read recovery history only with a recoveryRef that was already returned". */
const RECOVERY =
  `const history = await caplets.debug.readRecovery({ recoveryRef: "code-mode-recovery-ref", limit: 20,});
return { nextCursor: history.nextCursor, setupCandidates: history.entries .filter((entry) => entry.recoveryClassification === "setup_like") .map((entry) => ({ summary: entry.summary, ok: entry.outcome.ok })),};`;

/** "Read execution logs through the generated debug handle when a Caplet returns a log ref". */
const LOGS =
  `const result = await caplets.debug.readLogs({ logRef: "caplet-run-log-ref", limit: 100,});
return { nextCursor: result.nextCursor, errors: result.entries.filter((entry) => entry.level === "error"),};`;

const RECIPES = { GUARD, DISCOVER, PAGE, DOCS, RECOVERY, LOGS };

function completed(r: ExecuteResult): Record<string, unknown> {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 1_200));
  return (r as { result: Record<string, unknown> }).result;
}

/** `osv` and `github`: the recipe-shaped fixture server; `docs`: server-everything. */
async function open(): Promise<Runtime> {
  const fixture = () => fixtureServer("caplets_server.ts");
  return await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    connectors: [
      mcpConnector({
        name: "osv",
        ...fixture(),
        startupTimeoutMs: FIRST_START_TIMEOUT_MS,
        useWhen: "Checking a package version for known vulnerabilities",
        avoidWhen: "Reading source code",
        tags: ["security", "packages"],
      }),
      mcpConnector({ name: "github", ...fixture(), startupTimeoutMs: FIRST_START_TIMEOUT_MS }),
      mcpConnector({ name: "docs", ...fixture(), startupTimeoutMs: FIRST_START_TIMEOUT_MS }),
      mcpConnector({
        name: "everything",
        ...(await everythingStdio()),
        startupTimeoutMs: FIRST_START_TIMEOUT_MS,
      }),
    ],
  });
}

Deno.test("document 001: every recipe type-checks against the generated declarations with no diagnostics", async () => {
  await using rt = await open();
  const checker = new TypeChecker();
  const { declarations, declarationHash } = rt.types();
  for (const [name, code] of Object.entries(RECIPES)) {
    const checked = checker.check({ code, form: formOf(code), declarations, declarationHash });
    assert.deepEqual(checked.declarationErrors ?? [], [], name);
    assert.deepEqual([...checked.syntaxErrors, ...checked.diagnostics], [], name);
  }
  // And they would not if the documented names were wrong.
  const wrong = checker.check({
    code: PAGE.replace("page.nextCursor", "page.next"),
    form: "script",
    declarations,
    declarationHash,
  });
  assert.equal(wrong.diagnostics.length, 1);
  assert.match(declarations, /declare const caplets: \{ readonly debug: DebugApi \} & \{/);
  assert.match(declarations, /readonly osv: CapletHandle<"osv">;/);
  const told = await rt.modelDescription();
  assert.match(told, /caplets\.<connector>/);
  assert.match(told, /caplets\.debug\.readLogs/);
  assert.ok(told.length / 4 < 1_000, `${told.length / 4} tokens`);
});

Deno.test("document 001: discover, describe and call; page through tools; resources and prompts", async () => {
  await using rt = await open();
  const guard = await rt.execute({ typecheck: "strict", code: GUARD });
  assert.equal(completed(guard), undefined, "a ready backend passes the guard");

  const found = completed(await rt.execute({ typecheck: "strict", code: DISCOVER }));
  assert.equal(found.tool, "query_package_version");
  assert.equal(found.callOk, true);
  assert.deepEqual(found.evidence, { package: "npm/react@18.2.0", vulns: [] });
  assert.equal(found.schemaKnown, true);

  const paged = completed(await rt.execute({ typecheck: "strict", code: PAGE }));
  assert.equal(paged.count, 41, "40 repo tools and the lookup, in two pages of 25");
  assert.equal(new Set(paged.repos as string[]).size, 41, "no tool twice");

  const docs = completed(await rt.execute({ typecheck: "strict", code: DOCS }));
  assert.deepEqual(docs, {
    resources: ["docs://guide/configuration.md"],
    firstResourceOk: true,
    prompts: ["code-review"],
  });
});

Deno.test("document 001: the guard recipe stops at a backend that is down", async () => {
  const server = await startEverythingHttp();
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    connectors: [
      mcpConnector({ name: "osv", url: server.url, startupTimeoutMs: FIRST_START_TIMEOUT_MS }),
    ],
  });
  assert.equal(completed(await rt.execute({ code: GUARD })), undefined);
  await server.kill();
  const out = completed(await rt.execute({ typecheck: "strict", code: GUARD }));
  assert.equal(out.ok, false);
  assert.match(String(out.reason), /\S/);
});

Deno.test("document 001: caplets.debug is codemode's readLogs/readRecovery; an unknown ref is a typed error", async () => {
  await using rt = await open();
  const same = await rt.execute({
    code: `return [caplets.debug.readLogs === codemode.readLogs,
  caplets.debug.readRecovery === codemode.readRecovery,
  codemode.connector("osv") === caplets.osv,
  Object.isFrozen(caplets), Object.isFrozen(caplets.debug), Object.isFrozen(caplets.osv)]`,
  });
  assert.deepEqual(completed(same), [true, true, true, true, true, true]);
  for (const code of [LOGS, RECOVERY]) {
    const r = await rt.execute({ typecheck: "strict", code });
    assert.equal(r.status, "error");
    assert.equal((r as { error: { code: string } }).error.code, "not_found");
  }
});

Deno.test("document 001: complete() takes { ref, argument } for prompts and resource templates", async () => {
  await using rt = await open();
  const out = completed(
    await rt.execute({
      typecheck: "strict",
      code: `const h = caplets.everything;
const prompt = await h.complete({ ref: { type: "prompt", name: "completable-prompt" }, argument: { name: "department", value: "Eng" } });
const template = await h.complete({ ref: { type: "resourceTemplate", uri: "demo://resource/dynamic/text/{resourceId}" }, argument: { name: "resourceId", value: "1" } });
const card = await h.inspect();
const described = await h.describeTool("get-sum");
return { prompt, templateOk: template.ok, card: { id: card.id, name: card.name }, described: described.ok ? described.data.callSignature : described.error };`,
    }),
  );
  assert.deepEqual(out.prompt, {
    ok: true,
    data: { values: ["Engineering"], total: 1, hasMore: false },
  });
  assert.equal(out.templateOk, true, "a resource template reference reaches the server");
  assert.deepEqual(out.card, { id: "everything", name: "everything" });
  assert.match(
    String(out.described),
    /^caplets\.everything\.callTool\("get-sum", args: \{ a: number; b: number \}\)/,
  );
});

Deno.test("document 001: inspect() is a CapletCard and tool summaries carry the server's hints", async () => {
  await using rt = await open();
  const out = completed(
    await rt.execute({
      typecheck: "strict",
      code: `const card = await caplets.osv.inspect();
const page = await caplets.osv.searchTools("vulnerabilities", { limit: 1 });
return { card: { ...card, backend: undefined }, summary: page.items[0], id: caplets.osv.id };`,
    }),
  );
  assert.deepEqual(out.card, {
    id: "osv",
    name: "osv",
    description: "caplets-fixture 1.0.0 (MCP server)",
    useWhen: "Checking a package version for known vulnerabilities",
    avoidWhen: "Reading source code",
    tags: ["security", "packages"],
  });
  assert.deepEqual(out.summary, {
    name: "query_package_version",
    title: "Package version lookup",
    description: "Query known vulnerabilities of one package version (ecosystem, name, version)",
    readOnlyHint: true,
  });
  assert.equal(out.id, "osv");
});
