import assert from "node:assert/strict";
import { prepareSource } from "../../../src/engine/source/source.ts";
import {
  type CheckForm,
  type CheckRequest,
  type CheckResult,
  formOf,
  TypeChecker,
  type TypeDiagnostic,
} from "../../../src/engine/typecheck/check.ts";

const DECLARATIONS = `/** Arithmetic. */
declare const math: {
  /** Adds two numbers. */
  add(args: { a: number; b: number }): Promise<number>;
};
declare const codemode: {
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
};`;

/** A checker shared by the tests that do not count parses (lib files are per process anyway). */
const shared = new TypeChecker();

function check(code: string, extra: Partial<CheckRequest> = {}): CheckResult {
  return shared.check({
    code,
    form: formOf(code),
    declarations: DECLARATIONS,
    declarationHash: "v1",
    ...extra,
  });
}

/** 1-based column of `needle` on 1-based `line` of `code`. */
function columnOf(code: string, line: number, needle: string): number {
  const index = code.split("\n")[line - 1].indexOf(needle);
  assert.ok(index >= 0, `"${needle}" is not on line ${line}`);
  return index + 1;
}

function assertInCode(code: string, list: TypeDiagnostic[]): void {
  const lines = code.split("\n");
  for (const d of list) {
    assert.ok(d.line >= 1 && d.line <= lines.length, `line ${d.line} is outside the code`);
    assert.ok(d.column >= 1 && d.column <= lines[d.line - 1].length + 1, `column ${d.column}`);
  }
}

Deno.test("TypeChecker.check() finds nothing wrong in a correct script calling a tool", () => {
  const result = check(
    "const sum = await math.add({ a: 1, b: 2 });\nconsole.log(sum.toFixed(2));\nreturn sum;",
  );
  assert.deepEqual(result.syntaxErrors, []);
  assert.deepEqual(result.diagnostics, []);
  assert.ok(result.ms > 0);
});

Deno.test("TypeChecker.check() reports a wrong argument type where it is, in every form", () => {
  const call = 'const r = await math.add({ a: 1, b: "2" });';
  const samples: Record<CheckForm, string> = {
    script: `const x = 1;\nconst y = 2;\n${call}\nreturn r;`,
    function: `async (input) => {\n  const y = 2;\n  ${call}\n  return r;\n}`,
    module: `export default async function main(input: unknown) {\n  const y = 2;\n  ${call}\n}`,
  };
  for (const [form, code] of Object.entries(samples) as [CheckForm, string][]) {
    assert.equal(formOf(code), form);
    const { diagnostics, syntaxErrors } = check(code);
    assert.deepEqual(syntaxErrors, [], form);
    assert.equal(diagnostics.length, 1, `${form}: ${JSON.stringify(diagnostics)}`);
    const [d] = diagnostics;
    assert.equal(d.code, 2322, form);
    assert.equal(d.category, "error");
    assert.equal(d.line, 3, form);
    assert.equal(d.column, columnOf(code, 3, "b:"), form);
    assert.match(d.message, /'string' is not assignable to type 'number'/);
  }
});

Deno.test("TypeChecker.check() reports misspelled tools and unknown globals where they are", () => {
  const code =
    "const a = 1;\nconst s = await math.ad({ a, b: 2 });\nawait maht.add({ a, b: 2 });\nfooBar();";
  const { diagnostics } = check(code);
  const at = (line: number) => diagnostics.find((d) => d.line === line);
  assert.ok([2339, 2551].includes(at(2)?.code ?? 0), JSON.stringify(diagnostics));
  assert.equal(at(2)?.column, columnOf(code, 2, "ad("));
  assert.ok([2304, 2552].includes(at(3)?.code ?? 0), JSON.stringify(diagnostics));
  assert.equal(at(3)?.column, columnOf(code, 3, "maht"));
  assert.equal(at(4)?.code, 2304);
  assert.equal(at(4)?.column, 1);
  assert.match(at(4)!.message, /fooBar/);
});

Deno.test("TypeChecker.check() puts a syntax error in syntaxErrors with its line", () => {
  const code = "const a = 1;\nconst b = 2;\nconst c = await math.add({ a, b };\nreturn c;";
  const { syntaxErrors, diagnostics } = check(code);
  assert.ok(syntaxErrors.length >= 1);
  assert.equal(syntaxErrors[0].line, 3);
  assert.equal(syntaxErrors[0].column, columnOf(code, 3, "};") + 1);
  assert.deepEqual(diagnostics, [], "type errors are not reported beside syntax errors");
  assertInCode(code, syntaxErrors);
});

Deno.test("TypeChecker.check() accepts top-level await and return in a script", () => {
  const code =
    "const n = await Promise.resolve(2);\nif (n > 1) return n;\nreturn math.add({ a: n, b: n });";
  assert.equal(formOf(code), "script");
  const result = check(code);
  assert.deepEqual([...result.syntaxErrors, ...result.diagnostics], []);
});

Deno.test("TypeChecker.check() types input as any by default and as inputType when given", () => {
  assert.deepEqual(check("return input.m.anything;").diagnostics, []);
  const typed = check("const ok: number = input.n;\nreturn input.m;", {
    inputType: "{ n: number }",
  });
  assert.equal(typed.diagnostics.length, 1, JSON.stringify(typed.diagnostics));
  assert.equal(typed.diagnostics[0].code, 2339);
  assert.equal(typed.diagnostics[0].line, 2);
  assert.equal(typed.diagnostics[0].column, columnOf("return input.m;", 1, "m;"));
  // The function form takes an unannotated input's type from inputType too.
  const fn = check("async (input) =>\n  input.m", { inputType: "{ n: number }" });
  assert.deepEqual(fn.diagnostics.map((d) => [d.code, d.line]), [[2339, 2]]);
  // A type over several lines moves no line numbers.
  const multi = check("return input.m;", { inputType: "{\n  // the count\n  n: number;\n}" });
  assert.deepEqual(multi.diagnostics.map((d) => [d.code, d.line, d.column]), [[2339, 1, 14]]);
});

Deno.test("TypeChecker.check() parses declarations once per hash and picks up a new hash", () => {
  using checker = new TypeChecker({ maxCachedDeclarations: 2 });
  const v2 = DECLARATIONS.replace(
    "};",
    "  mul(args: { a: number; b: number }): Promise<number>;\n};",
  );
  const code = "return await math.mul({ a: 2, b: 3 });";
  const run = (declarations: string, declarationHash: string) =>
    checker.check({ code, form: "script", declarations, declarationHash }).diagnostics;

  assert.equal(run(DECLARATIONS, "v1")[0]?.code, 2339);
  assert.equal(checker.stats.declarationParses, 1);
  assert.deepEqual(run(v2, "v2"), [], "the new catalogue has mul");
  assert.equal(checker.stats.declarationParses, 2);
  // Same hash: the parsed file is reused, even if the caller (wrongly) sent other text.
  assert.equal(run(v2, "v1")[0]?.code, 2339);
  assert.deepEqual(run(v2, "v2"), []);
  assert.equal(checker.stats.declarationParses, 2);
  assert.equal(checker.stats.checks, 4);
  // A third hash evicts the least recently used one (v1); v1 is then parsed again.
  run(DECLARATIONS, "v3");
  run(DECLARATIONS, "v1");
  assert.equal(checker.stats.declarationParses, 4);
});

Deno.test("TypeChecker.check() reads lib files once per process, not per checker or check", () => {
  check("return [1, 2].map((n) => n * 2);");
  const before = shared.stats.libParses;
  assert.ok(before > 10, "the ES lib is many files");
  using other = new TypeChecker();
  const result = other.check({
    code: "return new Map([[1, 'a']]).get(1)?.toUpperCase();",
    form: "script",
    declarations: DECLARATIONS,
    declarationHash: "v1",
  });
  assert.deepEqual(result.diagnostics, []);
  assert.equal(other.stats.libParses, before);
});

Deno.test("TypeChecker.check() never points into the wrapper or the declarations", () => {
  const samples = [
    "const a = await math.add({ a: 1, b: 2 });\nif (a > 1) {\n  return a;\n",
    "async (input) => {\n  return input +",
    "return 1 /* not closed",
    "const s = 'not closed\nreturn s",
    "",
    "\n\n",
    "\u0000 )))) ]]] {{{",
    "export default async function () {\n  return missing;\n",
  ];
  for (const code of samples) {
    const result = check(code);
    assertInCode(code, result.syntaxErrors);
    assertInCode(code, result.diagnostics);
  }
  // The unclosed brace is reported at the end of the user's code, not in the wrapper's tail.
  const unclosed = check(samples[0]).syntaxErrors;
  assert.deepEqual(unclosed.map((d) => [d.code, d.line]), [[1005, 4]]);

  // A problem wholly in the wrapper (here, the caller's inputType) is not the user's.
  assert.deepEqual(check("return input;", { inputType: "NoSuchType" }).diagnostics, []);

  const broken = "declare const math: {\n  add(args: { a: number }: Promise<number>;\n";
  const result = check("return 1;\n", { declarations: broken, declarationHash: "broken" });
  assert.deepEqual(result.syntaxErrors, []);
  assert.deepEqual(result.diagnostics, []);
  assert.ok(result.declarationErrors?.length, "declaration errors are reported separately");
  assert.equal(result.declarationErrors![0].line, 2);
  const module = check("return 1;", { declarations: "export {};", declarationHash: "module" });
  assert.match(module.declarationErrors?.[0].message ?? "", /are a module/);
});

Deno.test("TypeChecker.check() does not throw on empty, odd or huge input", () => {
  assert.deepEqual(check("").diagnostics, []);
  const odd = shared.check({
    code: "return 1",
    form: "nonsense" as CheckForm,
    declarations: "",
    declarationHash: "",
  });
  assert.deepEqual(odd.syntaxErrors, []);
  const lines = Array.from({ length: 5_000 }, (_, i) => `const v${i}: number = ${i};`);
  const big = check(`${lines.join("\n")}\nconst bad: string = v1;`);
  assert.deepEqual(big.diagnostics.map((d) => [d.code, d.line]), [[2322, 5_001]]);
});

Deno.test("TypeChecker.check() bounds the number and length of diagnostics", () => {
  const code = Array.from({ length: 60 }, (_, i) => `missing${i}();`).join("\n");
  const { diagnostics } = check(code);
  assert.equal(diagnostics.length, 20);
  assert.equal(diagnostics[19].line, 20);
  const props = Array.from({ length: 400 }, (_, i) => `p${i}: number`).join("; ");
  const long = check(`const x: { ${props} } = { p0: 1 };`);
  assert.equal(long.diagnostics.length, 1);
  assert.ok(long.diagnostics[0].message.length <= 600, `${long.diagnostics[0].message.length}`);
});

Deno.test("TypeChecker.check() knows the sandbox's web globals and not the DOM", () => {
  const code = `const url = new URL("https://example.com/a?b=1");
url.searchParams.set("c", "2");
const controller = new AbortController();
const timer = setTimeout(() => controller.abort(), 1_000);
const headers = { accept: "application/json" };
const response = await fetch(url, { headers, signal: controller.signal });
clearTimeout(timer);
const body: { id: string } = await response.json();
const bytes = new TextEncoder().encode(body.id + response.headers.get("etag"));
console.info(new TextDecoder().decode(bytes), btoa("x"), atob("eA=="), crypto.randomUUID());
const random = crypto.getRandomValues(new Uint8Array(4));
queueMicrotask(() => console.debug(structuredClone({ random })));
try { await codemode.step("now", () => Date.now()); } catch (e) { console.error(e.message); }
return [1, 2, 3].toSorted((a, b) => b - a).at(0);`;
  const result = check(code);
  assert.deepEqual([...result.syntaxErrors, ...result.diagnostics], []);
  const dom = check("document.title = 'x';\nreturn window.location.href;");
  // 2584 is 2304 with a hint to add the DOM lib.
  assert.deepEqual(dom.diagnostics.map((d) => [d.code === 2584 ? 2304 : d.code, d.line]), [
    [2304, 1],
    [2304, 2],
  ]);
});

Deno.test("TypeChecker.check() types an import it cannot resolve as any instead of failing", () => {
  const code =
    'import { thing } from "npm:some-package";\nexport default async () => thing.anything(1);';
  const result = check(code);
  assert.deepEqual([...result.syntaxErrors, ...result.diagnostics], []);
});

Deno.test("formOf() reads code in the same form as prepareSource()", () => {
  const samples = [
    "return 1",
    "const x: number = await Promise.resolve(1);\nreturn x;",
    "async (input: { a: number }) => input.a * 2",
    "  async function main(input) { return 1 }",
    "async () => 1;\nreturn 2",
    "export default 42",
    'import x from "npm:x";\nexport default x',
    "async x => x",
  ];
  for (const code of samples) assert.equal(formOf(code), prepareSource(code).form, code);
});

Deno.test("TypeChecker[Symbol.dispose]() frees the parsed declarations", () => {
  const checker = new TypeChecker();
  const request = {
    code: "return 1;",
    form: "script" as const,
    declarations: "",
    declarationHash: "x",
  };
  checker.check(request);
  checker[Symbol.dispose]();
  checker.check(request);
  assert.equal(checker.stats.declarationParses, 2);
});
