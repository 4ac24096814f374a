import assert from "node:assert/strict";
import { z } from "zod";
import {
  createRuntime,
  defineConnector,
  executeCode,
  extractCodeBlocks,
  type Runtime,
} from "../../../mod.ts";

const ANSWER = [
  "Sure. First I'll add the numbers with the math tool:",
  "",
  "```ts",
  "const sum = await math.add({ a: 2, b: 3 });",
  'console.log("sum is", sum);',
  "return { sum };",
  "```",
  "",
  "If you prefer Python, this would be:",
  "",
  "```python",
  "print(2 + 3)",
  "```",
  "",
  "And a JavaScript check:",
  "",
  "~~~js",
  "console.log(`template ${'with'} backticks`);",
  "return [1, 2n];",
  "~~~",
  "",
  "That's all.",
].join("\n");

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
  },
});

function open(): Promise<Runtime> {
  return createRuntime({ db: ":memory:", pool: { size: 0 }, connectors: [math] });
}

Deno.test("extractCodeBlocks() finds fenced blocks of a model answer in order", () => {
  const blocks = extractCodeBlocks(ANSWER);
  assert.deepEqual(blocks.map((b) => b.language), ["ts", "python", "js"]);
  assert.equal(
    blocks[0].code,
    'const sum = await math.add({ a: 2, b: 3 });\nconsole.log("sum is", sum);\nreturn { sum };',
  );
  assert.equal(blocks[2].code, "console.log(`template ${'with'} backticks`);\nreturn [1, 2n];");
});

Deno.test("extractCodeBlocks() reads info strings, CRLF, long fences and indented fences", () => {
  const text = [
    '```TypeScript title="x.ts" {1,3}',
    "return 1;",
    "```",
    "````md",
    "```ts",
    "nested",
    "```",
    "````",
    "1. A step:",
    "   ```js",
    "   if (x) {",
    "     y();",
    "   }",
    "   ```",
    "```",
    "no language",
    "```",
    "Inline ```ts not a block``` here.",
  ].join("\r\n");
  assert.deepEqual(extractCodeBlocks(text), [
    { language: "typescript", code: "return 1;" },
    { language: "md", code: "```ts\nnested\n```" },
    { language: "js", code: "if (x) {\n  y();\n}" },
    { language: "", code: "no language" },
  ]);
  assert.equal(extractCodeBlocks("```\nx\n```", { language: "ts" })[0].language, "ts");
});

Deno.test("extractCodeBlocks() drops an unterminated block", () => {
  assert.deepEqual(extractCodeBlocks("```ts\nreturn 1;\n```\n```ts\nreturn 2;"), [
    { language: "ts", code: "return 1;" },
  ]);
  assert.deepEqual(extractCodeBlocks("~~~ts\nx\n```"), []);
});

Deno.test("extractCodeBlocks() uses custom start and end markers", () => {
  const text =
    "Thought: add.\n<execute>\nreturn 1 + 1;\n</execute>\nthen <execute>return 3</execute>" +
    " and <execute>cut";
  assert.deepEqual(extractCodeBlocks(text, { start: "<execute>", end: "</execute>" }), [
    { language: "", code: "return 1 + 1;" },
    { language: "", code: "return 3" },
  ]);
  const typed = extractCodeBlocks(text, { start: "<execute>", end: "</execute>", language: "ts" });
  assert.deepEqual(typed.map((b) => b.language), ["ts", "ts"]);
  assert.throws(() => extractCodeBlocks(text, { start: "<execute>" }), {
    code: "invalid_request",
  });
});

Deno.test("executeCode() runs ts and js blocks in order and joins their output", async () => {
  await using rt = await open();
  const blocks = extractCodeBlocks(ANSWER).filter((b) => b.language !== "python");
  const out = await rt.executeCode({ codeBlocks: blocks });
  assert.equal(out.exitCode, 0);
  assert.equal(out.output, 'sum is 5\n{"sum":5}\ntemplate with backticks\n[1,"2n"]');
  assert.deepEqual(out.outputFiles, []);
  assert.equal(out.executionIds.length, 2);
  for (const id of out.executionIds) assert.equal((await rt.execution(id))?.status, "completed");
});

Deno.test("executeCode() runs Python and bash blocks too, each in its own run", async () => {
  await using rt = await open();
  const out = await rt.executeCode({
    codeBlocks: [
      ...extractCodeBlocks(ANSWER),
      { language: "python", code: "x = await math.add(a=1, b=1)\nx * 10" },
      { language: "sh", code: "echo from bash; echo $((6 * 7))" },
    ],
  });
  assert.equal(out.exitCode, 0, out.output);
  assert.equal(
    out.output,
    'sum is 5\n{"sum":5}\n5\ntemplate with backticks\n[1,"2n"]\n20\nfrom bash\n42',
  );
  assert.equal(out.executionIds.length, 5);
  const failing = await rt.executeCode({
    codeBlocks: [{ language: "bash", code: "echo a; exit 4" }],
  });
  assert.deepEqual([failing.exitCode, failing.output], [
    1,
    "a\nscript_error: bash exited with status 4",
  ]);
});

Deno.test("executeCode() refuses another language before running anything", async () => {
  await using rt = await open();
  const blocks = [...extractCodeBlocks(ANSWER), { language: "ruby", code: "puts 1" }];
  await assert.rejects(rt.executeCode({ codeBlocks: blocks }), (err: Error & { code?: string }) => {
    assert.equal(err.code, "unsupported_language");
    assert.match(err.message, /block 4 is ruby/);
    assert.match(err.message, /ts, typescript, js, javascript, python, py, python3, bash, sh/);
    return true;
  });
  assert.equal((await rt.executions()).items.length, 0, "nothing ran");
  await assert.rejects(
    rt.executeCode({ codeBlocks: [{ language: "", code: "return 1" }] }),
    { code: "unsupported_language" },
  );
  await assert.rejects(rt.executeCode({ codeBlocks: [] }), { code: "invalid_request" });
  await assert.rejects(
    rt.executeCode({ codeBlocks: [{ language: "ts", code: "1" }], executionId: "" }),
    { code: "invalid_request" },
  );
});

Deno.test("executeCode() stops at the first failing block and reports its error", async () => {
  await using rt = await open();
  const out = await executeCode(rt, {
    executionId: "agent-turn-7",
    codeBlocks: [
      { language: "javascript", code: "console.log('first');" },
      { language: "TS", code: "console.log('second');\nthrow new Error('boom');" },
      { language: "ts", code: "console.log('never');" },
    ],
  });
  assert.equal(out.exitCode, 1);
  assert.equal(out.executionIds.length, 2);
  const lines = out.output.split("\n");
  assert.deepEqual(lines.slice(0, 2), ["first", "second"]);
  assert.match(lines[2], /^script_error: .*boom.*\(line 2, column \d+\)$/);
  assert.equal(out.output.includes("never"), false);
});

Deno.test("executeCode() passes timeoutMs to each block", async () => {
  await using rt = await open();
  const out = await rt.executeCode({
    timeoutMs: 200,
    codeBlocks: [{ language: "ts", code: "while (true) {}" }],
  });
  assert.equal(out.exitCode, 1);
  assert.match(out.output, /^sandbox_timeout: /);
});

Deno.test("executeCode() blocks share a session, and an executionId keeps it across calls", async () => {
  const { createRuntime } = await import("../../../mod.ts");
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 1 }, typecheck: "off" });
  const one = await rt.executeCode({
    codeBlocks: [
      { language: "ts", code: "const base: number = 40;" },
      { language: "js", code: "return base + 2;" },
    ],
  });
  assert.equal(one.exitCode, 0, one.output);
  assert.match(one.output, /42/);
  assert.equal(rt.sessions().length, 0, "a call without executionId closes its session");
  const first = await rt.executeCode({
    executionId: "chat-1",
    codeBlocks: [{ language: "ts", code: "let turns = 1; return turns" }],
  });
  assert.equal(first.exitCode, 0);
  const second = await rt.executeCode({
    executionId: "chat-1",
    codeBlocks: [{ language: "ts", code: "turns++; return turns" }],
  });
  assert.match(second.output, /^2$/m);
  const other = await rt.executeCode({
    executionId: "chat-2",
    codeBlocks: [{ language: "ts", code: "return typeof turns" }],
  });
  assert.match(other.output, /undefined/);
});

Deno.test("executeCode() returns the files its blocks wrote as outputFiles", async () => {
  const { createRuntime } = await import("../../../mod.ts");
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 1 }, typecheck: "off" });
  const out = await rt.executeCode({
    codeBlocks: [
      { language: "ts", code: "await workspace.writeText('out/a.txt', 'A');" },
      { language: "ts", code: "await workspace.writeText('out/b.txt', 'B'); return 'done'" },
    ],
    workspace: { outputs: { globs: ["out/*"], saveAs: { prefix: "exec/" } } },
  });
  assert.equal(out.exitCode, 0, out.output);
  assert.deepEqual(out.outputFiles, [
    { path: "out/a.txt", ref: "exec/out/a.txt@1" },
    { path: "out/b.txt", ref: "exec/out/b.txt@1" },
  ]);
});
