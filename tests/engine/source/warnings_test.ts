import assert from "node:assert/strict";
import { formWarnings } from "../../../src/engine/source/warnings.ts";

Deno.test("formWarnings() warns about a script with no return of its own", () => {
  const [w] = formWarnings("const x = await Promise.resolve(1);\nx", "script");
  assert.equal(w.code, "no_return");
  assert.equal(w.severity, "warning");
  assert.equal(w.line, 2);
  const nested = formWarnings("const f = () => { return 1 };\nf();", "script");
  assert.equal(nested.length, 1, "a nested function's return is not the script's");
});

Deno.test("formWarnings() says nothing for a script that returns, a function or a module", () => {
  assert.deepEqual(formWarnings("if (input) { return 1 }\nconsole.log(2)", "script"), []);
  assert.deepEqual(formWarnings("async () => 1", "function"), []);
  assert.deepEqual(formWarnings("export default 1", "module"), []);
});

Deno.test("formWarnings() in a session warns only about code that looks like a function", () => {
  assert.deepEqual(formWarnings("const rows = [1, 2];", "script", true), []);
  const [w] = formWarnings("async () => 1;\nconsole.log(1)", "script", true);
  assert.match(w.message, /not as a function/);
});

Deno.test("formWarnings() reads a return in a comment or string as no return", () => {
  assert.equal(formWarnings("// return later\nconsole.log('return')", "script").length, 1);
  assert.equal(formWarnings("console.log(1)", "script").length, 1);
});
