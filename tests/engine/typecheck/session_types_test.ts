import assert from "node:assert/strict";
import { formOf, TypeChecker } from "../../../src/engine/typecheck/check.ts";
import { SessionDeclarations } from "../../../src/engine/typecheck/session_declarations.ts";
import { topLevelNames } from "../../../src/engine/typecheck/session_types.ts";

const DECLARATIONS = "declare const math: { add(a: { a: number; b: number }): Promise<number> };";

Deno.test("TypeChecker.check() returns a script's top-level declarations, typed and widened", () => {
  using checker = new TypeChecker();
  const code = "const n = 5, { a, b: [c] } = { a: 'x', b: [true] };\nlet later;\n" +
    "const sum = await math.add({ a: 1, b: 2 });\nfunction f(x: number) { return x > 1 }\n" +
    "class K {}\ninterface Box { v: number }\nif (n) { const inner = 1 }";
  const { declared } = checker.check({
    code,
    form: formOf(code),
    declarations: DECLARATIONS,
    declarationHash: "v1",
  });
  assert.deepEqual(declared?.map((d) => d.text), [
    "declare var n: number;",
    "declare var a: string;",
    "declare var c: boolean;",
    "declare var later: any;",
    "declare var sum: number;",
    "declare var f: (x: number) => boolean;",
    "declare var K: any;",
    "interface Box { v: number }",
  ]);
  const fn = "async (input) => { const x = 1; return x }";
  assert.equal(
    checker.check({ code: fn, form: "function", declarations: "", declarationHash: "v0" }).declared,
    undefined,
  );
});

Deno.test("TypeChecker.check() knows names from sessionDeclarations and nothing else", () => {
  using checker = new TypeChecker();
  const base = { form: "script" as const, declarations: DECLARATIONS, declarationHash: "v1" };
  const sessionDeclarations = "declare var rows: { id: number }[];";
  assert.deepEqual(
    checker.check({ ...base, code: "return rows[0].id", sessionDeclarations }).diagnostics,
    [],
  );
  const wrong = checker.check({ ...base, code: "return rows[0].name", sessionDeclarations });
  assert.deepEqual(wrong.diagnostics.map((d) => [d.code, d.line]), [[2339, 1]]);
  const none = checker.check({ ...base, code: "return rows[0].id" });
  assert.deepEqual(none.diagnostics.map((d) => d.code), [2304]);
});

Deno.test("topLevelNames() declares a script's names as any without a check", () => {
  assert.deepEqual(topLevelNames("const [p, ...q] = [1, 2];\nvar r;").map((d) => d.text), [
    "declare var p: any;",
    "declare var q: any;",
    "declare var r: any;",
  ]);
  assert.deepEqual(topLevelNames("async () => { const z = 1 }"), []);
});

Deno.test("SessionDeclarations.add() keeps the latest declaration of a name, per session", () => {
  const s = new SessionDeclarations();
  assert.equal(s.text("ses_a"), undefined);
  s.add("ses_a", [{ key: "value:x", text: "declare var x: number;" }]);
  s.add("ses_a", [{ key: "value:x", text: "declare var x: string;" }, {
    key: "type:T",
    text: "type T = 1;",
  }]);
  assert.equal(s.text("ses_a"), "declare var x: string;\ntype T = 1;");
  assert.equal(s.text("ses_b"), undefined);
  const big = "x".repeat(70 * 1024);
  s.add("ses_a", [{ key: "value:huge", text: `declare var huge: "${big}";` }]);
  assert.match(s.text("ses_a")!, /declare var huge: any;$/);
});

Deno.test("TypeChecker.check() does not carry names the tools, the sandbox or the lib declare", () => {
  using checker = new TypeChecker();
  const code = "const math = 1, fetch = 2, JSON = 3, mine = 4;";
  const { declared } = checker.check({
    code,
    form: "script",
    declarations: DECLARATIONS,
    declarationHash: "v1",
    sessionDeclarations: "declare var mine: string;",
  });
  assert.deepEqual(declared?.map((d) => d.text), ["declare var mine: number;"]);
});
