import assert from "node:assert/strict";
import { CordonError } from "../../../src/errors.ts";
import { prepareSource } from "../../../src/engine/source/source.ts";

function syntaxError(code: string): CordonError {
  try {
    prepareSource(code);
  } catch (e) {
    assert.ok(e instanceof CordonError);
    return e;
  }
  throw new Error("expected a syntax error");
}

Deno.test("prepareSource() reads a body with return and await as a script", () => {
  const p = prepareSource("const x: number = await Promise.resolve(1);\nreturn x + 1;");
  assert.equal(p.form, "script");
  assert.equal(p.lineOffset, 1);
  assert.ok(!p.module.includes(": number"));
});

Deno.test("prepareSource() reads one async arrow as a function", () => {
  assert.equal(prepareSource("async (input: { a: number }) => input.a * 2").form, "function");
  assert.equal(prepareSource("  async function main(input) { return 1 }").form, "function");
});

Deno.test("prepareSource() reads an arrow followed by statements as a script", () => {
  assert.equal(prepareSource("async () => 1;\nreturn 2").form, "script");
});

Deno.test("prepareSource() reads code with import or export lines as a module", () => {
  assert.equal(
    prepareSource('import x from "file:///etc/hosts" with { type: "text" };\nexport default x')
      .form,
    "module",
  );
  assert.equal(prepareSource("export default 42").form, "module");
});

Deno.test("prepareSource() keeps line numbers, so runtime locations map back", () => {
  const p = prepareSource(
    "interface A {\n  x: number;\n}\nenum E { A }\nthrow new Error('line 5')",
  );
  const lines = p.module.split("\n");
  assert.ok(lines[5 + p.lineOffset - 1].includes("line 5"));
});

Deno.test("prepareSource() reports syntax errors at the user's line and column", () => {
  const e = syntaxError("const a = 1;\nconst b = ;");
  assert.equal(e.code, "syntax_error");
  assert.deepEqual(e.location, { line: 2, column: 11 });
  assert.match(e.message, /line 2, column 11/);
  assert.deepEqual(syntaxError("let x = (;").location, { line: 1, column: 10 });
});

Deno.test("prepareSource() refuses empty and oversized code as invalid_request", () => {
  assert.equal(syntaxError("   ").code, "invalid_request");
  assert.equal(syntaxError("x".repeat(1_000_001)).code, "invalid_request");
});

Deno.test("prepareSource() reads a snippet as written (leading comment, final semicolon) as a function", () => {
  const snippet = `// saved as "list-open-prs"
async (input) => {
  return await github.list_pull_requests({
    owner: input.owner,
    repo: input.repo,
    state: "open"
  });
};`;
  const p = prepareSource(snippet);
  assert.equal(p.form, "function");
  assert.ok(p.module.includes("list_pull_requests"));
  assert.equal(prepareSource("/* no input */\nasync () => { return 1 };").form, "function");
  assert.equal(prepareSource("async () => { return 1 }; // done").form, "function");
  assert.equal(prepareSource('async () => fetch("http://x"); // a // b').form, "function");
  assert.equal(prepareSource("(input) => input.a * 2;").form, "function");
});

Deno.test("prepareSource() reads a function followed by statements as a script", () => {
  assert.equal(prepareSource("async function f() { return 1 }\nreturn await f();").form, "script");
  assert.equal(prepareSource("async () => 1;\nreturn 2;").form, "script");
});

Deno.test("prepareSource() points a syntax error on the last line at that line", () => {
  const one = syntaxError("return (1 +");
  assert.deepEqual(one.location, { line: 1, column: 12 });
  assert.match(one.message, /line 1, column 12/);
  const three = syntaxError("const a = 1;\nconst b = 2;\nreturn [a, b\n\n");
  assert.equal(three.location?.line, 3);
  const fn = syntaxError("async () => { return (1 +");
  assert.equal(fn.location?.line, 1);
});
