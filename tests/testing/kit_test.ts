import assert, { AssertionError } from "node:assert/strict";
import { z } from "zod";
import { type Connector, CordonError, defineConnector } from "../../mod.ts";
import {
  checkConnector,
  checkDeclarations,
  checkOutput,
  createTestKit,
  expectCompleted,
  expectError,
  expectPaused,
} from "../../testing.ts";
import { childProcesses } from "../_helpers/processes.ts";
import { assertFails, shop } from "./fixtures.ts";

Deno.test("createTestKit() runs code in a real sandbox with an in-memory store", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  assert.equal(kit.runtime.capabilities().db, ":memory:");
  assert.equal(kit.runtime.capabilities().pool.size, 0);
  const result = await kit.run(
    `
    let read;
    try { Deno.readTextFileSync("/etc/hostname"); read = "read" } catch (e) { read = e.name }
    return { read, order: await shop.find({ id: input.id }) }
  `,
    { id: "o1" },
  );
  assert.deepEqual(expectCompleted(result), {
    read: "NotCapable",
    order: { id: "o1", items: ["tea"], total: 4 },
  });
  assert.equal(result.meta.pooled, false);
});

/**
 * Live sandbox children whose DENO_DIR is `denoDir`: with a DENO_DIR of its own, a kit's
 * children are told apart from those of test files running in parallel in this process.
 */
async function childrenUsing(denoDir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const { pid } of await childProcesses()) {
    try {
      const env = (await Deno.readTextFile(`/proc/${pid}/environ`)).split("\0");
      if (env.includes(`DENO_DIR=${denoDir}`)) pids.push(pid);
    } catch {
      // It ended while we looked.
    }
  }
  return pids;
}

Deno.test("close() closes the runtime and kills the children it holds", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "cordon_kit_test_" });
  try {
    const kit = await createTestKit({ connectors: [shop().connector], sandbox: { denoDir } });
    expectPaused(await kit.run('return await shop.ship({ id: "o1" })'));
    // A paused run's child is held, waiting for the decision.
    assert.equal((await childrenUsing(denoDir)).length, 1);
    await kit.close();
    let left = await childrenUsing(denoDir);
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20)); // a kill's exit is reaped a moment later
      left = await childrenUsing(denoDir);
    }
    assert.deepEqual(left, [], "children outlived close()");
    expectError(await kit.run("return 1"), "runtime_closed");
    await kit.close(); // a second close is harmless
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("approve(), reject() and resolve() continue a paused run and refuse one that is not", async () => {
  const { connector, shipped } = shop();
  await using kit = await createTestKit({ connectors: [connector] });
  const code = 'return await shop.ship({ id: "o9" })';
  const approved = await kit.approve(expectPaused(await kit.run(code)));
  assert.equal(expectCompleted(approved), "shipped o9");
  const rejected = await kit.reject(await kit.run(code), { reason: "out of stock" });
  assert.match(expectError(rejected, "rejected").message, /out of stock/);
  assert.deepEqual(shipped, ["o9"]);

  const asking = expectPaused(
    await kit.run('return (await shop.ask({ question: "Size?" })).answer'),
  );
  assert.equal(asking.pending[0].needs, "value");
  await assert.rejects(
    kit.resolve(asking, asking.pending[0].seq + 5, { answer: "M" }),
    (e: unknown) => e instanceof CordonError && e.code === "invalid_state",
  );
  assert.equal(
    expectCompleted(await kit.resolve(asking, asking.pending[0].seq, { answer: "M" })),
    "M",
  );

  for (
    const decide of [
      () => kit.approve(approved),
      () => kit.reject(approved, "no"),
      () => kit.resolve(approved, 1, 1),
    ]
  ) {
    await assert.rejects(
      decide,
      (e: unknown) => e instanceof AssertionError && /not paused; it completed/.test(e.message),
    );
  }
});

Deno.test("assertOutputMatches() returns a good sample parsed and fails a bad one", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  assert.deepEqual(kit.assertOutputMatches("shop.find", { id: "a", items: [], total: 0 }), {
    id: "a",
    items: [],
    total: 0,
  });
  assertFails(
    () => kit.assertOutputMatches("shop.find", { id: "a", items: [1], total: "0" }),
    /does not match shop\.find's output schema: items\.0: .*expected string.*; total: .*expected number/,
  );
  assert.equal(kit.checkOutput("shop.ship", 5).ok, false);
  assertFails(
    () => kit.assertOutputMatches("shop.nope", 1),
    /no tool "shop\.nope"; the kit has shop\.find, shop\.ship, shop\.ask/,
  );
});

Deno.test("checkOutput() uses a tool's JSON output schema when it has no validator", async () => {
  const hand: Connector = {
    name: "hand",
    description: "Tools written without zod",
    tools: [{
      name: "count",
      description: "Count things",
      inputSchema: { type: "object", properties: {} },
      outputSchema: {
        type: "object",
        properties: { n: { type: "integer", minimum: 0 } },
        required: ["n"],
      },
      annotations: {},
      execute: () => ({ n: 1 }),
    }, {
      name: "free",
      description: "Returns anything",
      inputSchema: { type: "object", properties: {} },
      annotations: {},
      execute: () => 1,
    }],
  };
  await using kit = await createTestKit({ connectors: [hand] });
  assert.deepEqual(kit.assertOutputMatches("hand.count", { n: 3 }), { n: 3 });
  assertFails(() => kit.assertOutputMatches("hand.count", { n: -1 }), /n: must be >= 0/);
  assertFails(() => kit.assertOutputMatches("hand.free", 1), /hand\.free has no output schema/);
  assert.throws(() => checkOutput(kit.tool("hand.free"), 1), TypeError);
  // Conditional keywords (which zod could not read) are checked as the specification says.
  const conditional = {
    ...kit.tool("hand.count"),
    outputSchema: { if: { type: "integer" }, then: { minimum: 5 } },
  };
  assert.equal(checkOutput(conditional, 1).ok, false);
  assert.equal(checkOutput(conditional, 7).ok, true);
  const unresolved = { ...kit.tool("hand.count"), outputSchema: { $ref: "https://example.com/x" } };
  assert.throws(() => checkOutput(unresolved, 1), /Cannot check an output of "count"/);
});

Deno.test("checkDeclarations() reports syntax and type errors located in the declarations", () => {
  assert.deepEqual(checkDeclarations("declare const a: { f(x: string): Promise<Response> };"), []);
  const found = checkDeclarations(
    "declare const a: { f(x: Strng): Promise<number> };\ndeclare const b: {",
  );
  assert.deepEqual(found.map((d) => [d.code, d.line]), [["TS1005", 2], ["TS2552", 1]]);
  assert.match(found[1].message, /Cannot find name 'Strng'/);
});

Deno.test("assertConnectorsValid() passes a sound connector and fails one that shadows a sandbox global", async () => {
  {
    await using kit = await createTestKit({ connectors: [shop().connector] });
    assert.deepEqual(kit.checkConnectors(), []);
    kit.assertConnectorsValid();
  }
  const response = defineConnector({
    name: "Response",
    description: "Named like the fetch Response class",
    tools: { get: { description: "Get", input: z.object({}), execute: () => 1 } },
  });
  await using kit = await createTestKit({ connectors: [response] });
  // The runtime accepts the name; a model's code against it does not type-check.
  assert.match(kit.typecheck("return await Response.get({})")[0]?.message ?? "", /does not exist/);
  assertFails(
    () => kit.assertConnectorsValid(),
    /declarations line \d+: TS2451: Cannot redeclare block-scoped variable 'Response'/,
    /the connector "Response" clashes with a global of the sandbox/,
    /declare const Response/,
  );
});

Deno.test("checkConnector() reports missing descriptions and schemas the model would see as unknown", () => {
  const sloppy = defineConnector({
    name: "events",
    description: "",
    tools: {
      add: {
        description: " ",
        input: z.object({
          at: z.date(),
          tags: z.array(z.bigint()),
          meta: z.unknown().describe("Free-form, passed through"),
          labels: z.record(z.string(), z.unknown()),
        }),
        output: z.object({ when: z.date().nullable() }),
        execute: () => ({ when: null }),
      },
    },
  });
  assert.deepEqual(checkConnector(sloppy).map((p) => p.where), [
    "events",
    "events.add",
    "events.add input.at",
    "events.add input.tags[]",
    "events.add output.when",
  ]);
  const tool = (name: string, inputSchema: Record<string, unknown>) => ({
    name,
    description: name,
    inputSchema,
    annotations: {},
  });
  const handWritten: Connector = {
    name: "hand",
    description: "Hand-written schemas",
    tools: [
      tool("negated", { not: { type: "string" } }),
      tool("looped", { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/a" } } }),
      tool("described", { description: "Anything at all" }),
      tool("plain", { type: "object", properties: { n: { type: "integer" } } }),
    ],
  };
  const problems = checkConnector(handWritten);
  assert.deepEqual(problems.map((p) => p.where), ["hand.negated input", "hand.looped input"]);
  assert.match(problems[0].message, /converts to the TypeScript type `unknown`/);
});

Deno.test("typecheck() checks code against the declarations without running it", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  assert.deepEqual(kit.typecheck('const o = await shop.find({ id: "a" }); return o.total + 1'), []);
  const [wrong] = kit.typecheck('const o = await shop.find({ id: "a" });\nreturn o.totl');
  assert.deepEqual([wrong.code, wrong.line], ["TS2551", 2]);
  const [typed] = kit.typecheck("return Math.round(input.n)", { inputType: "{ n: string }" });
  assert.equal(typed.code, "TS2345");
  assert.deepEqual((await kit.runtime.executions()).items, []);
});

Deno.test({
  name: "runPython() runs a Python block against the connector under test, its calls checked",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using kit = await createTestKit({ connectors: [shop().connector] });
    const result = await kit.runPython(
      "order = await shop.find(id=INPUT['id'])\nprint('found', order['id'])\norder['total'] * 2",
      { id: "o1" },
      { timeoutMs: 60_000 },
    );
    assert.equal(expectCompleted(result), 8);
    assert.equal(result.meta.language, "python");
    assert.deepEqual(result.calls.map((c) => [c.tool, c.args]), [["find", { id: "o1" }]]);
    const failed = await kit.runPython("await shop.find(id=1)", undefined, { timeoutMs: 60_000 });
    assert.equal(expectError(failed).code, "invalid_input");
  },
});
