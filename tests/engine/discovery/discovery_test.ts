import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import {
  type Connector,
  createRuntime,
  defineConnector,
  type ExecuteResult,
} from "../../../mod.ts";
import { diagnosticsOf } from "../../_helpers/diagnostics.ts";

function catalogue(addDescription = "Add two numbers"): Connector[] {
  const math = defineConnector({
    name: "math",
    description: "Arithmetic on numbers",
    tools: {
      add: {
        description: addDescription,
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.number(),
        execute: ({ a, b }) => a + b,
      },
      multiplyMatrix: {
        description: "Multiply two matrices",
        input: z.object({
          left: z.array(z.array(z.number())),
          right: z.array(z.array(z.number())),
        }),
        execute: () => [[1]],
      },
    },
  });
  const issues = defineConnector({
    name: "issues",
    description: "The team's issue tracker",
    tools: {
      get_issue: {
        description: "Fetch one issue by number",
        input: z.object({ number: z.number().int() }),
        // No output schema: what it returns is learned from results.
        execute: ({ number }) => ({
          number,
          title: `Issue ${number}`,
          labels: number % 2 ? ["bug"] : [],
          closedAt: number % 2 ? null : "2026-01-01",
        }),
      },
      createIssue: {
        description: "Open a new issue with a title and body",
        input: z.object({ title: z.string(), body: z.string().optional() }),
        execute: ({ title }) => ({ number: 1, title }),
      },
    },
  });
  return [math, issues];
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

Deno.test("types() declares every connector and codemode, with a hash stable across runtimes", async () => {
  const hashes: string[] = [];
  for (const description of ["Add two numbers", "Add two numbers", "Sum of two numbers"]) {
    await using rt = await createRuntime({
      connectors: catalogue(description),
      db: ":memory:",
      pool: { size: 0 },
    });
    const { declarations, declarationHash } = rt.types();
    assert.match(declarations, /declare const math/);
    assert.match(declarations, /declare const issues/);
    assert.match(declarations, /declare const codemode/);
    assert.match(declarations, new RegExp(description));
    assert.equal(rt.capabilities().declarationHash, declarationHash);
    hashes.push(declarationHash);
  }
  assert.equal(hashes[0], hashes[1]);
  assert.notEqual(hashes[1], hashes[2]);
});

Deno.test("search() and describe() find tools; codemode.search/describe do the same inside a script", async () => {
  await using rt = await createRuntime({
    connectors: catalogue(),
    db: ":memory:",
    pool: { size: 0 },
  });
  assert.equal((await rt.search("open an issue")).items[0].path, "issues.createIssue");
  assert.equal((await rt.search("add numbers")).items[0].path, "math.add");
  const d = await rt.describe("math.add");
  assert.match(d.signature, /math\.add\(/);
  assert.match(d.input, /a: number/);
  assert.equal(d.output, "number");
  await assert.rejects(
    rt.describe("math.nope"),
    (e: { code?: string }) => e.code === "tool_not_found",
  );
  const inside = await rt.execute({
    code: `const found = await codemode.search("issue by number", { limit: 2 });
const d = await codemode.describe(found.items[0].path);
let missing;
try { await codemode.describe("nope.nope"); } catch (e) { missing = e.code; }
return { first: found.items[0].path, n: found.items.length, sig: d.signature, missing };`,
  });
  const got = ok(inside) as Record<string, unknown>;
  assert.equal(got.first, "issues.get_issue");
  assert.equal(got.n, 2);
  assert.match(String(got.sig), /issues\.get_issue/);
  assert.equal(got.missing, "tool_not_found");
});

Deno.test("observed output shapes: learned from results, merged, persisted, shown by describe", async () => {
  const dir = await Deno.makeTempDir();
  const db = `file:${join(dir, "c.db")}`;
  {
    await using rt = await createRuntime({ connectors: catalogue(), db, pool: { size: 0 } });
    assert.equal((await rt.describe("issues.get_issue")).observedShape, undefined);
    ok(
      await rt.execute({
        code:
          "return [await issues.get_issue({ number: 1 }), await issues.get_issue({ number: 2 })]",
      }),
    );
    const d = await rt.describe("issues.get_issue");
    assert.match(d.observedShape ?? "", /title: string/);
    assert.match(d.observedShape ?? "", /labels: string\[\]/);
    assert.match(d.observedShape ?? "", /closedAt: (string \| null|null \| string)/);
    assert.doesNotMatch(d.observedShape ?? "", /Issue 1|2026/, "no values, only structure");
    // A tool with an output schema is described by it, not by observation.
    ok(await rt.execute({ code: "return await math.add({ a: 1, b: 2 })" }));
    assert.equal((await rt.describe("math.add")).observedShape, undefined);
  }
  {
    await using rt = await createRuntime({ connectors: catalogue(), db, pool: { size: 0 } });
    assert.match((await rt.describe("issues.get_issue")).observedShape ?? "", /title: string/);
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("typecheck: warn runs and reports, strict blocks before running, off skips", async () => {
  let adds = 0;
  const counted = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add",
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.number(),
        execute: ({ a, b }) => (adds++, a + b),
      },
    },
  });
  await using rt = await createRuntime({
    connectors: [counted],
    db: ":memory:",
    pool: { size: 0 },
  });
  // Line 2, column 30 is the string where a number belongs.
  const code = `const x = 1;\nreturn await math.add({ a: x, b: "2" as unknown as string });`;
  const warned = await rt.execute({ code });
  assert.equal(warned.status, "error", "the tool's own validation still refuses the string");
  const d = warned.diagnostics.find((x) => x.code === "TS2322");
  assert.ok(d, Deno.inspect(warned.diagnostics));
  assert.equal(d.line, 2);
  assert.equal(d.severity, "error");
  assert.equal(adds, 0);

  const runs = await rt.execute({
    code: "const n: number = await math.add({ a: 1, b: 2 });\nconst s: string = n;\nreturn s;",
  });
  assert.equal(ok(runs), 3, "a type error does not stop a warn run");
  // It completed: its findings are in the result, or stored once its check ends.
  const found = await diagnosticsOf(rt, runs);
  assert.ok(found.some((x) => x.code === "TS2322" && x.line === 2), Deno.inspect(found));
  assert.equal(adds, 1);

  const strict = await rt.execute({
    code: "const n: number = await math.add({ a: 1, b: 2 });\nconst s: string = n;\nreturn s;",
    typecheck: "strict",
  });
  assert.equal(strict.status, "error");
  assert.equal((strict as { error: { code: string } }).error.code, "type_error");
  assert.equal(adds, 1, "strict did not run the code");

  const clean = await rt.execute({
    code: "return await math.add({ a: 1, b: 2 })",
    typecheck: "strict",
  });
  assert.equal(ok(clean), 3);
  assert.deepEqual(clean.diagnostics, []);

  const off = await rt.execute({ code: "const s: string = 1;\nreturn s;", typecheck: "off" });
  assert.equal(ok(off), 1);
  assert.deepEqual(off.diagnostics, []);

  const bad = await rt.execute({ code: "return 1", typecheck: "loose" as "off" });
  assert.equal((bad as { error: { code: string } }).error.code, "invalid_request");
});

Deno.test("modelDescription() lists connectors and how to discover, and stays small", async () => {
  const many: Connector[] = [];
  for (let c = 0; c < 20; c++) {
    const tools: Record<string, Parameters<typeof defineConnector>[0]["tools"][string]> = {};
    for (let t = 0; t < 10; t++) {
      tools[`tool${t}`] = {
        description: `Does thing ${t} of connector ${c} with a long explanation of its behaviour`,
        input: z.object({ id: z.string() }),
        execute: () => null,
      };
    }
    many.push(
      defineConnector({
        name: `conn${c}`,
        description: `Connector number ${c}. It has ten tools.`,
        tools,
      }),
    );
  }
  await using rt = await createRuntime({ connectors: many, db: ":memory:", pool: { size: 0 } });
  const text = await rt.modelDescription();
  assert.match(text, /codemode\.search/);
  assert.match(text, /codemode\.describe/);
  assert.match(text, /conn19 \(10\): Connector number 19\./);
  assert.doesNotMatch(text, /tool7/, "tools are discovered, not listed");
  assert.ok(text.length / 4 <= 1000, `${text.length / 4} tokens for 200 tools`);
});
