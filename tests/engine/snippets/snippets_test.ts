import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import {
  type Connector,
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type Runtime,
} from "../../../mod.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";
import { STALL_BOUND_MS, withLag } from "../../_helpers/lag.ts";

/** `math.add` (its input names change with `names`) and a gated `notes.write`, both counted. */
function world(names: [string, string] = ["a", "b"]) {
  const counts = { add: 0, write: 0 };
  const [x, y] = names;
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ [x]: z.number(), [y]: z.number() }),
        output: z.number(),
        execute: (args: Record<string, number>) => (counts.add++, args[x] + args[y]),
      },
    },
  });
  const notes = defineConnector({
    name: "notes",
    description: "Notes a person must approve",
    tools: {
      write: {
        description: "Write a note (needs approval)",
        input: z.object({ text: z.string() }),
        requiresApproval: true,
        execute: ({ text }) => (counts.write++, `noted:${text}`),
      },
    },
  });
  return { connectors: [math, notes] as Connector[], counts };
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

const SUM_SCHEMA = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
  additionalProperties: false,
};

async function open(path: string, connectors: Connector[], holdMs = 60_000): Promise<Runtime> {
  return await createRuntime({
    connectors,
    db: `file:${path}`,
    pool: { size: 0 },
    durability: { holdMs },
  });
}

/** Saves `sum` from a real completed run. */
async function saveSum(rt: Runtime): Promise<void> {
  const run = await rt.execute({
    code: "return await math.add({ a: input.a, b: input.b })",
    input: { a: 1, b: 2 },
  });
  assert.equal(ok(run), 3);
  const saved = await rt.saveSnippet("sum", {
    executionId: run.executionId,
    description: "Adds a and b with the math connector",
    inputSchema: SUM_SCHEMA,
  });
  assert.deepEqual(saved.connectors, ["math"]);
}

Deno.test("snippets: save, run by name, validate input, version, delete", async () => {
  const dir = await Deno.makeTempDir();
  const { connectors, counts } = world();
  {
    await using rt = await open(join(dir, "c.db"), connectors);
    await saveSum(rt);
    const run = await rt.runSnippet("sum", { a: 20, b: 22 });
    assert.equal(ok(run), 42);
    assert.deepEqual(run.meta.snippet, { name: "sum", version: 1, stale: false });
    assert.equal(counts.add, 2);

    const before = (await rt.executions()).items.length;
    const bad = await rt.runSnippet("sum", { a: "x", b: 1 });
    assert.equal(bad.status, "error");
    assert.equal((bad as { error: { code: string } }).error.code, "invalid_input");
    assert.match((bad as { error: { message: string } }).error.message, /a:/);
    assert.equal((await rt.executions()).items.length, before, "nothing ran, nothing recorded");
    assert.equal(counts.add, 2);

    // Saving over the name keeps the previous version.
    const again = await rt.execute({
      code: "return await math.add({ a: input.a, b: input.b * 10 })",
      input: { a: 1, b: 1 },
    });
    const v2 = await rt.saveSnippet("sum", {
      executionId: again.executionId,
      description: "Adds a and ten b",
    });
    assert.equal(v2.version, 2);
    const details = await rt.snippet("sum");
    assert.deepEqual(details?.versions, [2, 1]);
    assert.equal(ok(await rt.runSnippet("sum", { a: 1, b: 2 })), 21);

    const listed = await rt.snippets();
    assert.deepEqual(listed.map((s) => [s.name, s.version]), [["sum", 2]]);
    assert.equal(await rt.deleteSnippet("sum"), true);
    assert.equal(await rt.deleteSnippet("sum"), false);
    const gone = await rt.runSnippet("sum", { a: 1, b: 2 });
    assert.equal((gone as { error: { code: string } }).error.code, "snippet_not_found");
  }
  await Deno.remove(dir, { recursive: true });
  await assertNoSandboxChildren();
});

Deno.test("saveSnippet() refuses bad names, unknown and unfinished executions, bad schemas", async () => {
  const { connectors } = world();
  await using rt = await createRuntime({ connectors, db: ":memory:", pool: { size: 0 } });
  const done = await rt.execute({ code: "return 1" });
  const failed = await rt.execute({ code: "throw new Error('no')" });
  const cases: [string, Parameters<Runtime["saveSnippet"]>[1], string][] = [
    ["bad name!", { executionId: done.executionId, description: "d" }, "invalid_request"],
    ["", { executionId: done.executionId, description: "d" }, "invalid_request"],
    // description is optional (documented), but a string when given.
    [
      "ok",
      { executionId: done.executionId, description: 7 as unknown as string },
      "invalid_request",
    ],
    // No executionId outside any execution: there is no current one to default to.
    ["ok", { description: "d" }, "invalid_request"],
    ["ok", undefined, "invalid_request"],
    ["ok", { executionId: 5 as unknown as string }, "invalid_request"],
    ["ok", { executionId: "exec_nope", description: "d" }, "execution_not_found"],
    ["ok", { executionId: failed.executionId, description: "d" }, "invalid_state"],
    ["ok", {
      executionId: done.executionId,
      description: "d",
      inputSchema: "not a schema" as unknown as Record<string, unknown>,
    }, "invalid_request"],
  ];
  for (const [name, options, code] of cases) {
    await assert.rejects(rt.saveSnippet(name, options), (e: { code?: string }) => e.code === code);
  }
  assert.deepEqual(await rt.snippets(), [], "nothing half-saved");
});

Deno.test("runSnippet() refuses, before any code runs, when a connector it needs is missing", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "c.db");
  {
    await using rt = await open(path, world().connectors);
    await saveSum(rt);
  }
  {
    // The same database, a runtime without `math`.
    await using rt = await open(path, [world().connectors[1]]);
    const before = (await rt.executions()).items.length;
    const r = await rt.runSnippet("sum", { a: 1, b: 2 });
    assert.equal(r.status, "error");
    const error = (r as { error: { code: string; message: string } }).error;
    assert.equal(error.code, "snippet_unavailable");
    assert.match(error.message, /math/);
    assert.equal((await rt.executions()).items.length, before);
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a snippet whose declarations changed is checked again and marked stale", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "c.db");
  {
    await using rt = await open(path, world().connectors);
    await saveSum(rt);
  }
  {
    // Same names: the declarations hash is the same, nothing to re-check.
    await using rt = await open(path, world().connectors);
    const r = await rt.runSnippet("sum", { a: 1, b: 2 });
    assert.equal(ok(r), 3);
    assert.equal(r.meta.snippet?.stale, false);
  }
  {
    // math.add now takes { x, y }: the saved code no longer type-checks.
    await using rt = await open(path, world(["x", "y"]).connectors);
    const r = await rt.runSnippet("sum", { a: 1, b: 2 });
    assert.equal(r.meta.snippet?.stale, true);
    assert.ok(
      r.diagnostics.some((d) => d.code.startsWith("TS") && d.line === 1),
      Deno.inspect(r.diagnostics),
    );
    assert.equal((await rt.snippets())[0].stale, true);
    assert.equal((await rt.describe("snippet:sum")).stale, true);
  }
  await Deno.remove(dir, { recursive: true });
});

for (const mode of ["live", "replay"] as const) {
  Deno.test(`codemode.run() nested in a run that pauses for approval and resumes (${mode})`, async () => {
    const dir = await Deno.makeTempDir();
    const { connectors, counts } = world();
    {
      await using rt = await open(join(dir, "c.db"), connectors, mode === "live" ? 60_000 : 1);
      await saveSum(rt);
      const addsBefore = counts.add;
      const first = await rt.execute({
        code: `const s = await codemode.run("sum", { a: 2, b: 3 });
const note = await notes.write({ text: String(s) });
return { s, note };`,
      });
      assert.equal(first.status, "paused", Deno.inspect(first).slice(0, 600));
      if (mode === "replay") {
        // Wait for the hold to release the child, so approve must replay.
        for (
          let i = 0;
          i < 100 && (await rt.execution(first.executionId))?.status !== "paused";
          i++
        ) {
          await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => setTimeout(r, 30));
      }
      const done = await rt.approve(first.executionId);
      assert.deepEqual(ok(done), { s: 5, note: "noted:5" });
      assert.equal(done.meta.replayed, mode === "replay");
      // The snippet's call joined the caller's log, and ran once.
      assert.equal(counts.add - addsBefore, 1);
      assert.equal(counts.write, 1);
      const log = (await rt.execution(first.executionId))!.calls.map((c) =>
        `${c.connector}.${c.tool}`
      );
      assert.deepEqual(log, ["codemode.step", "math.add", "notes.write"]);
      // A bad input fails inside the script as a catchable error.
      const caught = await rt.execute({
        code:
          `try { await codemode.run("sum", { a: "no" }); return "ran"; } catch (e) { return e.code; }`,
      });
      assert.equal(ok(caught), "invalid_input");
    }
    await Deno.remove(dir, { recursive: true });
    await assertNoSandboxChildren();
  });
}

Deno.test("snippets: input schemas validate on a linear-time engine, with every keyword", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
  });
  const done = await rt.execute({ code: "return input ?? null" });
  // Both keywords made z.fromJSONSchema throw, so such a schema could not be saved at all.
  await rt.saveSnippet("conditional", {
    executionId: done.executionId,
    description: "Echoes its input",
    inputSchema: {
      type: "object",
      properties: { kind: { type: "string" }, id: { type: "string", pattern: "^(a+)+$" } },
      if: { properties: { kind: { const: "card" } }, required: ["kind"] },
      then: { required: ["number"] },
      dependentRequired: { id: ["kind"] },
    },
  });
  const code = (r: ExecuteResult) => (r as { error?: { code: string } }).error?.code;
  assert.deepEqual(ok(await rt.runSnippet("conditional", { kind: "cash" })), { kind: "cash" });
  assert.equal(code(await rt.runSnippet("conditional", { kind: "card" })), "invalid_input");
  assert.equal(code(await rt.runSnippet("conditional", { id: "aaa" })), "invalid_input");
  assert.deepEqual(ok(await rt.runSnippet("conditional", { id: "aaa", kind: "x" })), {
    id: "aaa",
    kind: "x",
  });
  // `^(a+)+$` against this took the host 5 s on V8's backtracking engine.
  const { value: hostile, lagMs } = await withLag(async () => {
    await rt.runSnippet("conditional", { kind: "x", id: "a".repeat(26) + "!" });
    return await rt.runSnippet("conditional", { kind: "x", id: "a".repeat(100_000) + "!" });
  });
  assert.equal(code(hostile), "invalid_input");
  assert.match((hostile as { error: { message: string } }).error.message, /id: must match/);
  assert.ok(lagMs < STALL_BOUND_MS, `the event loop stalled ${Math.round(lagMs)} ms`);
  // A schema that would take Ajv seconds to compile is refused by size before it compiles.
  const wide: Record<string, unknown> = {};
  for (let i = 0; i < 1000; i++) wide[`field${i}`] = { type: "string", minLength: i };
  const { value: refused, lagMs: compileLag } = await withLag(() =>
    rt.saveSnippet("wide", {
      executionId: done.executionId,
      description: "A schema with thousands of fields",
      inputSchema: { type: "object", properties: wide },
    }).then(() => undefined, (err: Error & { code?: string }) => err)
  );
  assert.equal(refused?.code, "invalid_request");
  assert.match(refused?.message ?? "", /more than 200 objects and arrays/);
  assert.ok(compileLag < STALL_BOUND_MS, `the event loop stalled ${Math.round(compileLag)} ms`);
  // A pattern the linear-time engine cannot run is refused when saved, with the reason.
  await assert.rejects(
    rt.saveSnippet("lookahead", {
      executionId: done.executionId,
      description: "Uses a lookahead",
      inputSchema: { type: "string", pattern: "^(?=a)\\w+$" },
    }),
    (err: Error & { code?: string }) =>
      err.code === "invalid_request" && /linear-time engine/.test(err.message),
  );
});
