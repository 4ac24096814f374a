import assert from "node:assert/strict";
import { z } from "zod";
import {
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type ExecutionEvent,
  type Runtime,
} from "../../../mod.ts";

const math = defineConnector({
  name: "math",
  description: "Arithmetic",
  tools: {
    add: {
      description: "Add two numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.number(),
      execute: ({ a, b }) => a + b,
    },
    gated: {
      description: "Needs approval",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "done",
    },
  },
});

function open(): Promise<Runtime> {
  return createRuntime({
    connectors: [math],
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
  });
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return (r as { result: unknown }).result;
}

Deno.test("namespaces keep executions and snippets apart", async () => {
  await using rt = await open();
  const a = await rt.execute({ code: "return 1", namespace: "acme" });
  const b = await rt.execute({ code: "return 2", namespace: "globex" });
  const d = await rt.execute({ code: "return 3" });
  ok(a), ok(b), ok(d);
  const acme = await rt.executions({ namespace: "acme" });
  assert.deepEqual(acme.items.map((e) => e.executionId), [a.executionId]);
  assert.equal(acme.items[0].namespace, "acme");
  assert.equal((await rt.executions()).items.length, 3);
  assert.equal((await rt.execution(d.executionId))?.namespace, "default");

  // The same name in two namespaces: two snippets, each run where it belongs.
  await rt.saveSnippet("pick", { executionId: a.executionId, description: "Pick a number" });
  await rt.saveSnippet("pick", { executionId: b.executionId, description: "Pick a number" });
  assert.equal((await rt.snippets({ namespace: "acme" })).length, 1);
  assert.equal((await rt.snippets()).length, 0);
  assert.equal(ok(await rt.runSnippet("pick", undefined, { namespace: "acme" })), 1);
  assert.equal(ok(await rt.runSnippet("pick", undefined, { namespace: "globex" })), 2);
  const missing = await rt.runSnippet("pick");
  assert.equal(missing.status, "error");
  assert.equal((missing as { error: { code: string } }).error.code, "snippet_not_found");

  // Inside a script, codemode sees its own namespace's snippets only.
  const inside = await rt.execute({
    namespace: "globex",
    code: `const hits = await codemode.search("pick");
      return { run: await codemode.run("pick"), hits: hits.items.map((h) => h.path) };`,
  });
  assert.deepEqual(ok(inside), { run: 2, hits: ["snippet:pick"] });
  const other = await rt.execute({ code: `return (await codemode.search("pick")).items.length` });
  assert.equal(ok(other), 0);
  assert.equal((await rt.search("pick", { namespace: "acme" })).items[0].path, "snippet:pick");
  assert.equal((await rt.describe("snippet:pick", { namespace: "acme" })).kind, "snippet");
  await assert.rejects(rt.describe("snippet:pick"), { code: "snippet_not_found" });

  assert.equal(await rt.deleteSnippet("pick", { namespace: "acme" }), true);
  assert.equal((await rt.snippets({ namespace: "globex" })).length, 1);
});

Deno.test("a bad namespace is refused before anything is stored", async () => {
  await using rt = await open();
  for (const namespace of ["", "UPPER", "a/b", "x".repeat(65), "../etc"]) {
    const r = await rt.execute({ code: "return 1", namespace });
    assert.equal(r.status, "error");
    assert.equal((r as { error: { code: string } }).error.code, "invalid_request");
  }
  assert.equal((await rt.executions()).items.length, 0);
  await assert.rejects(rt.snippets({ namespace: "No" }), { code: "invalid_request" });
});

Deno.test("events follow an execution: start, logs, calls, pause, end", async () => {
  await using rt = await open();
  const events: ExecutionEvent[] = [];
  const off = rt.subscribe((e) => events.push(e));
  const paused = await rt.execute({
    code: `console.log("before"); await math.add({ a: 1, b: 2 }); await math.gated({});
      console.log("after"); return "end";`,
  });
  assert.equal(paused.status, "paused");
  const id = paused.executionId;
  const mine = () => events.filter((e) => e.executionId === id).map((e) => e.type);
  assert.deepEqual(mine(), ["started", "log", "call", "call", "call", "paused"]);
  const calls = events.flatMap((e) => e.type === "call" ? [e.call] : []);
  assert.deepEqual(calls.map((c) => `${c.tool}:${c.state}`), [
    "add:executing",
    "add:applied",
    "gated:pending",
  ]);
  ok(await rt.approve(id));
  const last = events.at(-1)!;
  assert.equal(last.type, "done");
  assert.equal(last.type === "done" && last.status, "completed");
  assert.equal(last.type === "done" && last.result, "end");
  assert.ok(events.some((e) => e.type === "log" && e.entry.message === "after"));
  off();
  const before = events.length;
  ok(await rt.execute({ code: "console.log('quiet'); return 1" }));
  assert.equal(events.length, before, "no events after unsubscribing");
});

Deno.test("logs are read by their logRef, paged; a wrong ref is not_found", async () => {
  await using rt = await open();
  const r = await rt.execute({ code: "for (let i = 0; i < 5; i++) console.log('line ' + i);" });
  ok(r);
  const details = await rt.execution(r.executionId);
  const logRef = details!.logRef;
  assert.match(logRef, /^log_[A-Za-z0-9_-]{40,}$/);
  const first = await rt.readLogs({ logRef, limit: 3 });
  assert.deepEqual(first.items.map((l) => l.message), ["line 0", "line 1", "line 2"]);
  assert.equal(first.executionId, r.executionId);
  const rest = await rt.readLogs({ logRef, cursor: first.nextCursor, limit: 3 });
  assert.deepEqual(rest.items.map((l) => l.message), ["line 3", "line 4"]);
  assert.equal(rest.nextCursor, undefined);
  await assert.rejects(rt.readLogs({ logRef: "log_nope" }), { code: "not_found" });
  await assert.rejects(rt.readLogs({ logRef, limit: 0 }), { code: "invalid_request" });
  await assert.rejects(rt.readLogs({ logRef, cursor: "x" }), { code: "invalid_request" });
});

Deno.test("migration 3 keeps snippets and executions saved before namespaces", async () => {
  const { openDb } = await import("../../../src/store/client.ts");
  const { migrate, MIGRATIONS } = await import("../../../src/store/migrations.ts");
  const { SnippetStore } = await import("../../../src/store/snippets.ts");
  const db = await openDb(":memory:");
  try {
    assert.deepEqual(await migrate(db, MIGRATIONS.filter((m) => m.version < 3)), [1, 2]);
    await db.execute(
      `INSERT INTO snippets (name, version, description, code, connectors, declaration_hash, created_at)
        VALUES ('old', 1, 'Saved before', 'return 1', '[]', 'h', 1)`,
    );
    await db.execute(
      `INSERT INTO executions (id, code, status, connectors, declaration_hash, limits, policy,
        created_at, updated_at) VALUES ('exec_old', 'return 1', 'completed', '[]', 'h', '{}', '{}', 1, 1)`,
    );
    const later = MIGRATIONS.filter((m) => m.version >= 3).map((m) => m.version);
    assert.deepEqual(await migrate(db), later);
    const row = await new SnippetStore(db).get("default", "old");
    assert.equal(row?.code, "return 1");
    assert.equal(row?.namespace, "default");
    const ex = await db.execute("SELECT namespace FROM executions WHERE id = 'exec_old'");
    assert.equal(ex.rows[0].namespace, "default");
  } finally {
    db.close();
  }
});
