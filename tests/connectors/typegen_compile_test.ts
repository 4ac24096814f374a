import assert from "node:assert/strict";
import {
  buildDeclarations,
  declareConnector,
  schemaToTs,
  toolSignature,
} from "../../src/connectors/typegen/mod.ts";
import { loadCorpus, type Problem, typeCheck } from "./typegen_helpers.ts";

const DECLARATIONS = "/cordon.d.ts";

/** Code a model could write against the corpus: every line must type-check. */
const GOOD_USAGE = `export {};
const file = await filesystem.read_text_file({ path: "/tmp/notes.txt", head: 10 });
const text: string = file.content;
const media = await filesystem.read_media_file({ path: "/tmp/a.png" });
for (const part of media.content) {
  if (part.type === "resource") {
    const uri: string = part.resource.uri;
  } else {
    const mime: string = part.mimeType;
  }
}
await filesystem.edit_file({ path: "/a", edits: [{ oldText: "a", newText: "b" }], dryRun: true });
const weather = await everything["get-structured-content"]({ location: "Chicago" });
const temperature: number = weather.temperature;
const echoed: unknown = await everything.echo({ message: "hi" });
await everything["get-annotated-message"]({ messageType: "error", includeImage: true });
await everything["get-env"]({});
const issue = await shop.createIssue({ title: "Broken", assignee: null, priority: "high" });
const state: "open" | "closed" = issue.state;
const closedAt: string | null = issue.closedAt;
const found = await shop.searchOrders({ query: "x", filters: { paid: true, total: 3 }, page: { size: 10 } });
const [sku, quantity] = found.orders[0].lines[0];
const skuText: string = sku;
const count: number = quantity;
const carriers: string[] = found.orders.flatMap((o) => o.shipments.flat().map((s) => s.carrier));
const categories = await shop.listCategories({});
const names: string[] = categories.map((c) => c.name);
await shop.sendEvent({ kind: "buy", sku: "a", quantity: 2 });
await shop.addComment({ issue: 1, comment: { author: "a", text: "t", replies: [] } });
await edge["read-file"]({ path: "/x" });
await edge.read_file({ file: "/x" });
await edge["get_file.v2"]({ id: "1" });
await edge["2fa"]({ code: "123456" });
await edge.class({});
await edge.quoting({ "content-type": "text/plain", "x.y": 1, "with space": true });
await edge.tuples({ pair: ["a", 1], legacy: ["a", true, 1, 2], open: ["a", {}] });
await edge.patterns({ name: "n", "x-trace": "abc", n_count: 3 });
await edge.combine({ mode: "fast", id: "x", target: { url: "https://x" }, level: null, mixedEnum: { k: [1, "x"] } });
await edge.refs({ from: { x: 0, y: 0 }, to: { x: 1, y: 1 }, color: "red", escaped: true });
const length: number = await edge.refs({ from: { x: 0, y: 0 }, to: { x: 1, y: 1 } });
await edge.tree({ root: { value: 1, children: [{ anything: true }] } });
await edge.docs({ when: "2025-01-01T00:00:00Z", count: 3 });
await edge.no_output({ whatever: 1 });
await edge.open_object({ id: 1, label: "x", extra: true });
const hits = await codemode.search("read a file", { limit: 5 });
const path: string | undefined = hits.items[0]?.path;
const next: string | undefined = hits.nextCursor;
const described = await codemode.describe("filesystem.read_text_file");
const signature: string = described.signature;
const now: number = await codemode.step("now", () => Date.now());
const later: string = await codemode.step("id", async () => "x");
const out = await codemode.run<{ ok: boolean }>("cleanup", { dryRun: true });
const ok: boolean = out.ok;
const anything: unknown = await codemode.run("cleanup");
`;

/** Each line marked \`// error\` must fail to type-check; no other line may. */
const BAD_USAGE = `export {};
await filesystem.read_text_file({ path: 42 }); // error: wrong type
await filesystem.read_text_file({ head: 3 }); // error: missing required property
await everything["get-sum"]({ a: 1, b: 2, c: 3 }); // error: excess property
await everything["get-annotated-message"]({ messageType: "warning" }); // error: not in the enum
const t: string = (await everything["get-structured-content"]({ location: "Chicago" })).temperature; // error
await everything["get-structured-content"]({ location: "Paris" }); // error: not in the enum
await shop.createIssue({ title: "x", priority: "urgent", assignee: null }); // error
await shop.createIssue({ title: "x", priority: "low" }); // error: nullable is not optional
await shop.sendEvent({ kind: "buy", page: "home" }); // error: wrong union member
await shop.searchOrders({ query: "x", filters: { paid: [] } }); // error: record value type
const n: number = (await shop.searchOrders({ query: "x" })).next; // error: string | null
await edge.tuples({ pair: ["a", "b"] }); // error
await edge.quoting({ "x.y": 1 }); // error: missing "content-type"
await edge.combine({ mode: "slow", id: "x" }); // error
await edge.combine({ mode: "fast" }); // error: allOf requires id
await edge.open_object({ id: 1, extra: [] }); // error: index signature type
await edge.class({ a: 1 }); // error: no arguments allowed
await filesystem.no_such_tool({}); // error
await codemode.describe(42); // error
const s: string = await codemode.step("n", () => 1); // error
await codemode.search("q", { limit: "5" }); // error
`;

function where(problems: Problem[], file: string): Map<number, string[]> {
  const lines = new Map<number, string[]>();
  for (const p of problems.filter((p) => p.file === file)) {
    lines.set(p.line, [...(lines.get(p.line) ?? []), p.message]);
  }
  return lines;
}

let checked: { problems: Problem[]; declarations: string } | undefined;
/** One compile of the corpus declarations with both usage files (the compiler is slow to start). */
function checkCorpus() {
  if (!checked) {
    const { declarations } = buildDeclarations(loadCorpus());
    const problems = typeCheck({
      [DECLARATIONS]: declarations,
      "/good.ts": GOOD_USAGE,
      "/bad.ts": BAD_USAGE,
    });
    checked = { problems, declarations };
  }
  return checked;
}

Deno.test("buildDeclarations() for the real schema corpus compiles under strict TypeScript", () => {
  const { problems, declarations } = checkCorpus();
  const corpus = loadCorpus();
  assert.deepEqual(corpus.map((c) => c.tools.length), [13, 14, 6, 16]);
  for (const c of corpus) {
    for (const t of c.tools) {
      const key = /^[A-Za-z_$][\w$]*$/.test(t.name)
        ? `  ${t.name}(args:`
        : `  ${JSON.stringify(t.name)}(args:`;
      assert.ok(declarations.includes(key), `${c.name}.${t.name} is declared`);
    }
  }
  assert.deepEqual(problems.filter((p) => p.file === DECLARATIONS), []);
  assert.deepEqual(problems.filter((p) => p.file === "/good.ts"), []);
});

Deno.test("buildDeclarations() types reject wrong arguments and misused results", () => {
  const errors = where(checkCorpus().problems, "/bad.ts");
  const lines = BAD_USAGE.split("\n");
  lines.forEach((line, i) => {
    const expected = line.includes("// error");
    assert.equal(
      errors.has(i + 1),
      expected,
      `line ${i + 1} ${expected ? "should" : "should not"} fail: ${line}\n${
        errors.get(i + 1) ?? ""
      }`,
    );
  });
  assert.equal(errors.size, lines.filter((l) => l.includes("// error")).length);
});

Deno.test("schemaToTs() and toolSignature() types compile for every corpus schema", () => {
  const aliases: string[] = [];
  let i = 0;
  for (const c of loadCorpus()) {
    for (const t of c.tools) {
      const sig = toolSignature(c.name, t);
      aliases.push(`type Input${i} = ${sig.input};`, `type Output${i} = ${sig.output};`);
      aliases.push(
        `type Compact${i} = ${schemaToTs(t.inputSchema, { compact: true, maxDepth: 2 })};`,
      );
      assert.doesNotMatch(sig.signature, /\n/, `${c.name}.${t.name} signature is one line`);
      i++;
    }
  }
  assert.deepEqual(typeCheck({ "/aliases.ts": `export {};\n${aliases.join("\n")}\n` }), []);
});

Deno.test("schemaToTs() and declareConnector() output compiles for malformed and hostile input", () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  const inputs: unknown[] = [
    null,
    "x",
    {
      type: "object",
      properties: { "*/": { description: "*/ closes? */" }, "\\n": { const: "\u2028" } },
    },
    { enum: [{ "a b": [null, -0.5, 1e21] }, "\n\t\"'`${x}"] },
    { const: circular },
    {
      type: "array",
      prefixItems: [{ anyOf: [{ type: "string" }, { type: "number" }] }],
      items: { const: -3 },
    },
    { allOf: [{ anyOf: [{ const: 1 }, { const: 2 }] }, { anyOf: [{ const: 2 }, { const: 3 }] }] },
    {
      type: "object",
      patternProperties: { "^(a|b)*/$": { type: "string" } },
      properties: { a: { type: "number" } },
    },
    { properties: { d: { default: { "*/": 1 }, examples: ["*/"], pattern: "a*/b" } } },
  ];
  const types = inputs.map((s, i) => `type Weird${i} = ${schemaToTs(s)};`).join("\n");
  // Names that must be quoted, escaped or left out, in one connector each.
  const connectors = [
    { name: "ok", tools: ["a\u2028b", "*/", "x\ny", "__proto__", "constructor"] },
    { name: "bad\u2028name", tools: ["t"] },
    { name: "delete", tools: ["t"] },
  ].map(({ name, tools }) =>
    declareConnector({
      name,
      description: "*/ ends?",
      tools: tools.map((t) => ({
        name: t,
        description: `${t} */`,
        inputSchema: { type: "object", properties: { [t]: { type: "string", description: t } } },
        annotations: {},
      })),
    })
  ).join("\n");
  const problems = typeCheck({
    "/weird.ts": `export {};\n${types}\n`,
    "/names.d.ts": connectors,
    "/use.ts": 'export {};\nawait ok["a\u2028b"]({});\nawait ok["*/"]({ "*/": "x" });\n',
  });
  assert.deepEqual(problems, [], `${types}\n${connectors}`);
});
