import assert from "node:assert/strict";
import { z } from "zod";
import {
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type Runtime,
  type Snippet,
} from "../../../mod.ts";

function completed(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

/** A `dev` connector whose `promote` tool saves the code that called it, by default. */
function promoter(runtime: () => Runtime, saved: Snippet[]) {
  return defineConnector({
    name: "dev",
    description: "Developer tools",
    tools: {
      promote: {
        description: "Save the calling script as a snippet",
        input: z.object({ name: z.string() }),
        execute: async ({ name }, ctx) => {
          // Across an await, as a real promotion (a database write first) would be.
          await new Promise((r) => setTimeout(r, 5));
          const s = await runtime().saveSnippet(name, { description: "promoted" });
          saved.push(s);
          return { version: s.version, same: s.sourceExecutionId === ctx.executionId };
        },
      },
    },
  });
}

/** A tool that waits for approval before it sends. */
const gate = defineConnector({
  name: "gate",
  description: "Gated",
  tools: {
    send: {
      description: "Send (needs approval)",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "sent",
    },
  },
});

Deno.test("saveSnippet() from a tool's execute saves the execution that called the tool", async () => {
  const saved: Snippet[] = [];
  const holder: { rt?: Runtime } = {};
  await using runtime = await createRuntime({
    connectors: [promoter(() => holder.rt!, saved)],
    db: ":memory:",
    pool: { size: 0 },
  });
  holder.rt = runtime;
  const code = 'const r = await dev.promote({ name: "mine" });\nreturn r;';
  const r = await runtime.execute({ code });
  assert.deepEqual(completed(r), { version: 1, same: true });
  assert.equal(saved[0].sourceExecutionId, r.executionId);
  assert.equal(saved[0].code, code);
  assert.deepEqual(saved[0].connectors, ["dev"]);
  // Two executions at once: each tool call saves its own caller.
  const [a, b] = await Promise.all([
    runtime.execute({ code: 'return await dev.promote({ name: "a" });' }),
    runtime.execute({ code: '/* b */ return await dev.promote({ name: "b" });' }),
  ]);
  completed(a);
  completed(b);
  const byName = new Map((await runtime.snippets()).map((s) => [s.name, s]));
  assert.equal(byName.get("a")?.sourceExecutionId, a.executionId);
  assert.equal(byName.get("b")?.sourceExecutionId, b.executionId);
  assert.match(byName.get("b")!.code, /\/\* b \*\//);
});

Deno.test("saveSnippet() from a listener told of a call awaiting approval saves that execution", async () => {
  await using runtime = await createRuntime({
    connectors: [gate],
    db: ":memory:",
    pool: { size: 0 },
  });
  const saves: Promise<Snippet>[] = [];
  runtime.subscribe((event) => {
    if (event.type === "call" && event.call.state === "pending" && saves.length === 0) {
      saves.push(runtime.saveSnippet("approved-send"));
    }
  });
  const r = await runtime.execute({ code: "return await gate.send({});" });
  assert.equal(r.status, "paused");
  assert.equal(saves.length, 1);
  const s = await saves[0];
  assert.equal(s.sourceExecutionId, r.executionId);
  assert.equal(s.description, "");
  assert.equal(completed(await runtime.approve(r.executionId)), "sent");
});

Deno.test("saveSnippet() outside any execution says to pass executionId", async () => {
  await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  await assert.rejects(
    runtime.saveSnippet("x"),
    (e: { code?: string; message?: string }) =>
      e.code === "invalid_request" && /pass \{ executionId \}/.test(e.message ?? ""),
  );
  await assert.rejects(runtime.saveSnippet("x", { description: "d" }), { code: "invalid_request" });
  assert.deepEqual(await runtime.snippets(), []);
});

Deno.test("saveSnippet() refuses another execution that has not completed, even from a tool", async () => {
  let paused = "";
  const holder: { rt?: Runtime } = {};
  const dev = defineConnector({
    name: "dev",
    description: "Developer tools",
    tools: {
      save_other: {
        description: "Save another execution",
        input: z.object({}),
        execute: () =>
          holder.rt!.saveSnippet("other", { executionId: paused }).then(
            () => "saved",
            (e) => e.code,
          ),
      },
    },
  });
  await using runtime = await createRuntime({
    connectors: [gate, dev],
    db: ":memory:",
    pool: { size: 0 },
  });
  holder.rt = runtime;
  const p = await runtime.execute({ code: "return await gate.send({});" });
  assert.equal(p.status, "paused");
  paused = p.executionId;
  const r = await runtime.execute({ code: "return await dev.save_other({});" });
  assert.equal(completed(r), "invalid_state");
  await runtime.reject(paused);
});

Deno.test("a listener told that a run paused saves that run by default (an approval card's handler)", async () => {
  const mail = defineConnector({
    name: "mail",
    description: "Mail",
    tools: {
      send: {
        description: "Send a mail",
        input: z.object({ to: z.string() }),
        requiresApproval: true,
        execute: ({ to }) => `sent to ${to}`,
      },
    },
  });
  await using runtime = await createRuntime({
    connectors: [mail],
    db: ":memory:",
    pool: { size: 0 },
  });
  const saved: Promise<Snippet>[] = [];
  const off = runtime.subscribe((event) => {
    if (event.type === "paused") saved.push(runtime.saveSnippet("mail-ada"));
  });
  const paused = await runtime.execute({ code: 'return await mail.send({ to: "ada" });' });
  off();
  assert.equal(paused.status, "paused");
  assert.equal(saved.length, 1);
  const snippet = await saved[0];
  assert.equal(snippet.sourceExecutionId, paused.executionId);
  assert.equal(snippet.code, 'return await mail.send({ to: "ada" });');
  // Outside any execution there is no default, and the error says what to pass.
  await assert.rejects(runtime.saveSnippet("nobody"), /executionId/);
});
