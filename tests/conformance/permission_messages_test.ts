/**
 * What the model is told when the sandbox refuses something: Cordon's remedy (the execution's
 * network policy, its workspace), never Deno's "run again with the --allow-… flag", which a
 * model cannot take and would read as advice.
 */
import assert from "node:assert/strict";
import { createRuntime, type ErrorResult, type ExecuteResult } from "../../mod.ts";

function failed(r: ExecuteResult): ErrorResult {
  assert.equal(r.status, "error", Deno.inspect(r).slice(0, 500));
  return r as ErrorResult;
}

Deno.test("a blocked fetch says the execution's network policy decides, not a Deno flag", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
  const cases: [string, RegExp, { net?: string[] }?][] = [
    ['await fetch("https://example.com/")', /net access to "example\.com:443".*policy\.net/],
    [
      'const r = await fetch("https://example.org/data");\nreturn r.status',
      /net access to "example\.org:443".*network policy/,
      { net: ["example.com"] },
    ],
    ['await Deno.readTextFile("/etc/hostname")', /read access to "\/etc\/hostname".*workspace/],
    ['await Deno.writeTextFile("/tmp/x.txt", "a")', /write access to "\/tmp\/x\.txt".*workspace/],
    ['return Deno.env.get("HOME")', /env access to "HOME".*never grants env access/],
    ["return Deno.hostname()", /sys access to "hostname".*never grants sys access/],
  ];
  for (const [code, message, policy] of cases) {
    const out = failed(await rt.execute({ code, ...(policy ? { policy } : {}) }));
    assert.equal(out.error.code, "script_error", code);
    assert.deepEqual(out.error.details?.name, "NotCapable", code);
    assert.match(out.error.message, message, code);
    assert.doesNotMatch(out.error.message, /--allow|run again/, code);
    assert.equal(out.error.location?.line, 1, code);
  }
});

Deno.test("a script that catches a refused fetch reads Cordon's remedy too", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
  const out = await rt.execute({
    code: `try {
  await fetch("https://example.com/");
  return "fetched";
} catch (e) {
  return { name: e.name, message: e.message, isError: e instanceof Error };
}`,
  });
  assert.equal(out.status, "completed", Deno.inspect(out).slice(0, 500));
  const caught = (out as { result: { name: string; message: string; isError: boolean } }).result;
  assert.equal(caught.name, "NotCapable");
  assert.equal(caught.isError, true);
  assert.match(caught.message, /net access to "example\.com:443".*policy\.net/);
  assert.doesNotMatch(caught.message, /--allow|run again/);
});
