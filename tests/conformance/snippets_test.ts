/**
 * Document 000 (Cloudflare codemode "Snippets"), run as written: the
 * lifecycle (a run, promoted by the developer, run by name), parameterised
 * and input-less snippets, discovery through `codemode.search`/`describe`,
 * and the connector requirements a snippet carries. The code strings below
 * are the document's own; where the document leaves a name free (`owner`,
 * `repo`) or shows an expression without using its value, the lines added
 * around it say so.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import {
  type Connector,
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type Runtime,
} from "../../mod.ts";

/** A `github` connector with the document's `list_pull_requests`, counting its calls. */
function github(log: unknown[] = []): Connector {
  return defineConnector({
    name: "github",
    description: "GitHub repositories and pull requests",
    tools: {
      list_pull_requests: {
        description: "List pull requests of a repository",
        input: z.object({
          owner: z.string(),
          repo: z.string(),
          state: z.enum(["open", "closed", "all"]),
        }),
        execute: (args) => {
          log.push(args);
          return [{ number: 1, title: `${args.owner}/${args.repo} fix`, state: args.state }];
        },
      },
    },
  });
}

/** The host-side examples run as written: an async function body given `runtime`. */
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (
  ...args: string[]
) => (runtime: Runtime) => Promise<unknown>;

function completed(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

// Lifecycle, step 1: the model's script (one execution).
const STEP_1 = `// 1. The model writes and runs a script (one execution)
const prs = await github.list_pull_requests({ owner, repo, state: "open" });`;

// Lifecycle, step 2: the developer promotes it.
const STEP_2 = `// 2. The developer reviews the run and promotes it — e.g. from a @callable
const runs = await runtime.executions(); // newest first
await runtime.saveSnippet("list-open-prs", {
  executionId: runs[0].id, // defaults to the current execution
  description: "List open pull requests for a repository."
});`;

// Lifecycle, step 3: the model runs it by name.
const STEP_3 = `// 3. The model finds it via codemode.search and runs it by name
const prs = await codemode.run("list-open-prs");`;

const PARAMETERISED = `// saved as "list-open-prs"
async (input) => {
  return await github.list_pull_requests({
    owner: input.owner,
    repo: input.repo,
    state: "open"
  });
};`;

const RUN_IT = `// run it
const prs = await codemode.run("list-open-prs", {
  owner: "cloudflare",
  repo: "agents"
});`;

const DISCOVERY =
  `codemode.search("open pull requests"); // returns methods AND snippets (kind: "snippet")
codemode.describe("list-open-prs"); // returns the snippet's description + source`;

Deno.test("snippets doc: the lifecycle runs as written (run, promote by runs[0].id, run by name)", async () => {
  const calls: unknown[] = [];
  await using runtime = await createRuntime({
    connectors: [github(calls)],
    db: ":memory:",
    pool: { size: 0 },
  });
  // The document leaves owner and repo to the conversation.
  const first = await runtime.execute({
    code: `const owner = "cloudflare", repo = "agents";\n${STEP_1}`,
  });
  assert.equal(completed(first), undefined);
  // No return: the result is undefined, and the envelope says why instead of staying silent.
  assert.deepEqual(first.diagnostics.map((d) => [d.code, d.severity, d.line]), [
    ["no_return", "warning", 3],
  ]);
  assert.deepEqual(calls, [{ owner: "cloudflare", repo: "agents", state: "open" }]);

  await new AsyncFunction("runtime", STEP_2)(runtime);
  const [saved] = await runtime.snippets();
  assert.equal(saved.name, "list-open-prs");
  assert.equal(saved.description, "List open pull requests for a repository.");
  assert.equal(saved.code, `const owner = "cloudflare", repo = "agents";\n${STEP_1}`);
  assert.deepEqual(saved.connectors, ["github"]);
  assert.equal(typeof saved.savedAt, "number");
  assert.ok(Math.abs(saved.savedAt - Date.now()) < 60_000);
  assert.equal(saved.sourceExecutionId, first.executionId);

  const third = await runtime.execute({ code: STEP_3 });
  completed(third);
  assert.equal(calls.length, 2, "the snippet ran its tool call again");
  assert.deepEqual(
    third.calls.filter((c) => c.kind === "tool").map((c) => `${c.connector}.${c.tool}`),
    ["github.list_pull_requests"],
    "the snippet's call joins the running execution's log",
  );
  assert.equal(await runtime.deleteSnippet("list-open-prs"), true);
  assert.deepEqual(await runtime.snippets(), []);
});

Deno.test("snippets doc: a parameterised snippet as written runs as a function, with input", async () => {
  await using runtime = await createRuntime({
    connectors: [github()],
    db: ":memory:",
    pool: { size: 0 },
  });
  const direct = await runtime.execute({
    code: PARAMETERISED,
    input: { owner: "cloudflare", repo: "agents" },
  });
  assert.equal(direct.meta.form, "function");
  assert.deepEqual(completed(direct), [{
    number: 1,
    title: "cloudflare/agents fix",
    state: "open",
  }]);
  assert.deepEqual(direct.diagnostics, []);

  const runs = await runtime.executions();
  const snippet = await runtime.saveSnippet("list-open-prs", {
    executionId: runs[0].id,
    inputSchema: {
      type: "object",
      properties: { owner: { type: "string" }, repo: { type: "string" } },
      required: ["owner", "repo"],
    },
  });
  assert.equal(snippet.code, PARAMETERISED);
  assert.equal(snippet.description, "", "description is optional");
  assert.deepEqual(snippet.connectors, ["github"]);
  assert.deepEqual(snippet.inputSchema?.required, ["owner", "repo"]);

  // The document shows the call; the return line hands its value back.
  const run = await runtime.execute({ code: `${RUN_IT}\nreturn prs;` });
  assert.deepEqual(completed(run), [{ number: 1, title: "cloudflare/agents fix", state: "open" }]);
  const fromHost = await runtime.runSnippet("list-open-prs", { owner: "a", repo: "b" });
  assert.deepEqual(completed(fromHost), [{ number: 1, title: "a/b fix", state: "open" }]);
});

Deno.test("snippets doc: a snippet with no input, async () => { ... }, runs with codemode.run(name)", async () => {
  await using runtime = await createRuntime({
    connectors: [github()],
    db: ":memory:",
    pool: { size: 0 },
  });
  const code = `async () => {
  return await github.list_pull_requests({ owner: "o", repo: "r", state: "open" });
};`;
  const r = await runtime.execute({ code });
  assert.equal(r.meta.form, "function");
  await runtime.saveSnippet("open-prs", { executionId: r.executionId, description: "Open PRs" });
  const run = await runtime.execute({ code: 'return await codemode.run("open-prs");' });
  assert.deepEqual(completed(run), [{ number: 1, title: "o/r fix", state: "open" }]);
});

Deno.test("snippets doc: discovery finds snippets beside methods, and describe(name) gives the source", async () => {
  await using runtime = await createRuntime({
    connectors: [github()],
    db: ":memory:",
    pool: { size: 0 },
  });
  const source = await runtime.execute({ code: PARAMETERISED, input: { owner: "o", repo: "r" } });
  await runtime.saveSnippet("list-open-prs", {
    executionId: source.executionId,
    description: "List open pull requests for a repository.",
  });
  // As written, the two lines run (their values unused); the object returned reads them again.
  const r = await runtime.execute({
    code: `${DISCOVERY}
const found = await codemode.search("open pull requests");
const hits = Array.isArray(found) ? found : found.items;
const d = await codemode.describe("list-open-prs");
return { kinds: hits.map((h) => h.kind), description: d.description, code: d.code, kind: d.kind };`,
  });
  const out = completed(r) as { kinds: string[]; description: string; code: string; kind: string };
  assert.ok(out.kinds.includes("snippet"), Deno.inspect(out));
  assert.ok(out.kinds.includes("tool"), Deno.inspect(out));
  assert.equal(out.kind, "snippet");
  assert.equal(out.description, "List open pull requests for a repository.");
  assert.equal(out.code, PARAMETERISED);
  const d = await runtime.describe("list-open-prs");
  assert.equal(d.code, PARAMETERISED);
  await assert.rejects(runtime.describe("no-such-snippet"), { code: "snippet_not_found" });
});

Deno.test("snippets doc: codemode.run(name) refuses up front, naming the missing connector", async () => {
  const dir = await Deno.makeTempDir();
  const db = `file:${join(dir, "snippets.db")}`;
  const calls: unknown[] = [];
  {
    await using runtime = await createRuntime({ connectors: [github()], db, pool: { size: 0 } });
    const r = await runtime.execute({ code: PARAMETERISED, input: { owner: "o", repo: "r" } });
    await runtime.saveSnippet("list-open-prs", { executionId: r.executionId });
  }
  const other = defineConnector({
    name: "other",
    description: "Something else",
    tools: {
      ping: { description: "Ping", input: z.object({}), execute: () => (calls.push(1), 1) },
    },
  });
  await using runtime = await createRuntime({ connectors: [other], db, pool: { size: 0 } });
  const r = await runtime.execute({
    code: `await other.ping({});\n${RUN_IT}\nreturn prs;`,
  });
  assert.equal(r.status, "error");
  const error = (r as { error: { code: string; message: string } }).error;
  assert.equal(error.code, "snippet_unavailable");
  assert.match(error.message, /github/);
  assert.equal(calls.length, 1, "the script ran up to codemode.run, which refused");
  const host = await runtime.runSnippet("list-open-prs", { owner: "o", repo: "r" });
  assert.equal((host as { error: { code: string } }).error.code, "snippet_unavailable");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("snippets doc: runtime.executions() is newest first and still pages", async () => {
  await using runtime = await createRuntime({
    connectors: [github()],
    db: ":memory:",
    pool: { size: 0 },
  });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await runtime.execute({ code: `return ${i}` })).executionId);
  }
  const runs = await runtime.executions(); // newest first
  assert.ok(Array.isArray(runs));
  assert.deepEqual(runs.map((r) => r.id), [...ids].reverse());
  assert.equal(runs[0].id, runs[0].executionId);
  assert.deepEqual(runs.items.map((r) => r.id), runs.map((r) => r.id));
  const first = await runtime.executions({ limit: 2 });
  assert.equal(first.length, 2);
  assert.ok(first.nextCursor);
  const rest = await runtime.executions({ limit: 2, cursor: first.nextCursor });
  assert.deepEqual(rest.map((r) => r.id), [ids[0]]);
  assert.equal(rest.nextCursor, undefined);
});

Deno.test("model is told: a syntax error on the last line points at that line", async () => {
  await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  const r = await runtime.execute({ code: "return (1 +" });
  assert.equal(r.status, "error");
  assert.deepEqual(r.diagnostics.map((d) => [d.code, d.line, d.column]), [["syntax_error", 1, 12]]);
  assert.match((r as { error: { message: string } }).error.message, /line 1/);
});
