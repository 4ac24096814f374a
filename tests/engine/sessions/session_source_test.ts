import assert from "node:assert/strict";
import { prepareSource } from "../../../src/engine/source/source.ts";
import { sessionSource } from "../../../src/engine/sessions/source.ts";

/** Runs a session-ready module's entry with a scratch global scope. */
async function run(code: string): Promise<{ value: unknown; declared: string[] }> {
  const s = sessionSource(prepareSource(code));
  const mod = await import(`data:text/javascript,${encodeURIComponent(s.module)}`);
  return { value: await mod.default(undefined), declared: s.declared };
}

Deno.test("sessionSource lifts top-level declarations of every kind", async () => {
  const { value, declared } = await run(`
    const a = 1, b = a + 1;
    let c;
    var { d, e: [f = 7] } = { d: 4, e: [] };
    async function g() { return "g"; }
    function* h() { yield 1; }
    class K extends Array {}
    if (true) { const inner = 1; }
    const text = "const notADeclaration = 1";
    return [a, b, c, d, f, await g(), [...h()], new K().length, typeof inner, text.length];
  `);
  assert.deepEqual(declared, ["a", "b", "c", "d", "f", "g", "h", "K", "text"]);
  assert.deepEqual(value, [1, 2, undefined, 4, 7, "g", [1], 0, "undefined", 25]);
  const g = globalThis as Record<string, unknown>;
  assert.equal(g.b, 2);
  assert.equal(typeof g.g, "function");
  for (const name of declared) delete g[name];
});

Deno.test("sessionSource leaves line numbers, function and module forms alone", () => {
  const script = sessionSource(prepareSource("const x = 1;\nthrow new Error(String(x));"));
  assert.equal(
    script.module.split("\n").length,
    prepareSource("const x = 1;\nthrow new Error(String(x));").module.split("\n").length,
  );
  const fn = sessionSource(prepareSource("async () => { const y = 1; return y }"));
  assert.deepEqual(fn.declared, []);
  const mod = sessionSource(prepareSource("export default async () => 1"));
  assert.deepEqual(mod.declared, []);
  const none = sessionSource(prepareSource("return 1"));
  assert.deepEqual(none.declared, []);
});
