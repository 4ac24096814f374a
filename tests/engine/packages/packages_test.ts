import assert from "node:assert/strict";
import { createRuntime } from "../../../mod.ts";
import { checkPackages, packageStats, scanImports } from "../../../src/engine/packages/mod.ts";
import type {
  CompletedResult,
  ErrorResult,
  ExecuteResult,
} from "../../../src/engine/execution/types.ts";

// Small, dependency-free packages: `ms` (CommonJS, one file), `nanoid` (ESM with an
// `exports` map, a browser build and a `non-secure` subpath).
const PACKAGES = { ms: "2.1.3", nanoid: "5.1.5" };

function errorOf(out: ExecuteResult) {
  assert.equal(out.status, "error", JSON.stringify(out));
  return (out as ErrorResult).error;
}

function resultOf(out: ExecuteResult): unknown {
  assert.equal(out.status, "completed", JSON.stringify(out));
  return (out as CompletedResult).result;
}

Deno.test("checkPackages() accepts exact versions and refuses ranges and bad names", () => {
  assert.deepEqual(checkPackages({ zod: "4.6.7", "@scope/x": "1.0.0-beta.1" }), {
    "@scope/x": "1.0.0-beta.1",
    zod: "4.6.7",
  });
  assert.throws(() => checkPackages({ ms: "^2.1.3" }), /exact version/);
  assert.throws(() => checkPackages({ ms: "latest" }), /exact version/);
  assert.throws(() => checkPackages({ "../x": "1.0.0" }), /not a valid npm package name/);
  assert.throws(() => checkPackages({ MS: "1.0.0" }), /not a valid npm package name/);
});

Deno.test("scanImports() finds imports in code, not in strings, comments or regexps", () => {
  const scan = scanImports(
    'import a from "a";\nimport type { T } from "t";\n// import x from "c"\n' +
      'const s = "import(\'no\')"; const r = /import("no")/;\n' +
      'export * from "r"; await import("d"); require("e");',
  )!;
  assert.deepEqual(scan.imports.map((i) => [i.specifier, i.kind, i.location.line]), [
    ["a", "static", 1],
    ["r", "reexport", 5],
    ["d", "dynamic", 5],
    ["e", "require", 5],
  ]);
  assert.equal(scan.isModule, true);
});

Deno.test("createRuntime() refuses a malformed packages list before opening anything", async () => {
  await assert.rejects(
    () => createRuntime({ db: ":memory:", pool: { size: 0 }, packages: { ms: "2.x" } }),
    (err: Error & { code?: string }) => err.code === "invalid_request",
  );
});

Deno.test("execute() runs code that imports allowed packages", async (t) => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    packages: PACKAGES,
  });
  assert.deepEqual(rt.capabilities().packages, PACKAGES);

  await t.step("a script with top-level return imports a CommonJS package", async () => {
    const out = await rt.execute({
      code: 'import ms from "ms";\nreturn ms("2h") + ms(input);',
      input: "1s",
    });
    assert.equal(resultOf(out), 7_201_000);
    assert.equal(out.meta.form, "script");
  });

  await t.step("the second execution reuses the bundle: no esbuild build", async () => {
    const before = packageStats();
    const out = await rt.execute({
      code: 'import ms from "ms";\nreturn ms(60_000, { long: true })',
    });
    assert.equal(resultOf(out), "1 minute");
    const after = packageStats();
    assert.equal(after.builds, before.builds);
    assert.equal(after.prepared, before.prepared + 1);
  });

  await t.step("ESM named imports, a subpath and a dynamic import", async () => {
    const out = await rt.execute({
      code:
        'import { nanoid } from "nanoid";\nimport { customAlphabet } from "nanoid/non-secure";\n' +
        'const { nanoid: again } = await import("nanoid");\n' +
        'return [nanoid().length, customAlphabet("ab", 5)().replace(/[ab]/g, ""), again(4).length];',
    });
    assert.deepEqual(resultOf(out), [21, "", 4]);
  });

  await t.step("the function and module forms keep working", async () => {
    const fn = await rt.execute({
      code: 'import ms from "ms";\nasync (input) => ms(input)',
      input: "1m",
    });
    assert.equal(resultOf(fn), 60_000);
    assert.equal(fn.meta.form, "function");
    const mod = await rt.execute({ code: 'import ms from "ms";\nexport default () => ms("1d");' });
    assert.equal(resultOf(mod), 86_400_000);
    assert.equal(mod.meta.form, "module");
  });

  await t.step("an error thrown by the user's code points at the user's line", async () => {
    const out = await rt.execute({
      code: 'import ms from "ms";\n\nconst n = ms("1s");\nthrow new Error("at line 4: " + n);',
    });
    const error = errorOf(out);
    assert.equal(error.code, "script_error");
    assert.deepEqual(error.location?.line, 4);
  });

  await t.step("a subpath the package does not export is refused", async () => {
    const error = errorOf(await rt.execute({ code: 'import x from "nanoid/nope";\nreturn x' }));
    assert.equal(error.code, "import_not_allowed");
  });
});

Deno.test("execute() refuses imports that are not allowed, before running", async (t) => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    packages: { ms: "2.1.3" },
  });
  const cases: [string, string, RegExp][] = [
    [
      "a package not on the list",
      'import _ from "lodash";\nreturn 1',
      /"lodash" is not an allowed/,
    ],
    ["a relative path", 'import x from "./x.ts";\nreturn x', /no files/],
    ["an absolute path", 'import x from "/etc/passwd";\nreturn x', /no files/],
    ["a URL", 'import x from "https://esm.sh/ms";\nreturn x', /URLs/],
    ["an npm: specifier", 'import ms from "npm:ms@2.1.3";\nreturn ms', /URLs/],
    ["a data: URL", 'const m = await import("data:text/javascript,export default 1");', /URLs/],
    ["a dynamic import", 'return (await import("lodash")).default', /"lodash" is not an allowed/],
    ["require()", 'const ms = require("ms");\nreturn ms("1s")', /require\(\) does not exist/],
  ];
  for (const [name, code, message] of cases) {
    await t.step(name, async () => {
      const before = packageStats().builds;
      const error = errorOf(await rt.execute({ code }));
      assert.equal(error.code, "import_not_allowed");
      assert.match(error.message, message);
      assert.match(error.message, /Allowed packages: ms@2\.1\.3/);
      assert.equal(error.location?.line, 1);
      assert.equal(packageStats().builds, before);
    });
  }

  await t.step("with no packages allowed, the message says so", async () => {
    await using none = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
    const error = errorOf(await none.execute({ code: 'import ms from "ms";\nreturn ms("1s")' }));
    assert.equal(error.code, "import_not_allowed");
    assert.match(error.message, /No packages are allowed/);
  });

  await t.step("a non-literal dynamic import is still denied in the child", async () => {
    const out = await rt.execute({
      code: 'const s = "https://example.com/x.js";\nreturn await import(s)',
    });
    assert.match(errorOf(out).message, /import access|--allow-import/);
  });
});

Deno.test("execute() of code without imports never scans or bundles", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    packages: { ms: "2.1.3" },
  });
  const before = packageStats();
  assert.equal(resultOf(await rt.execute({ code: "return 1 + 1" })), 2);
  assert.equal(resultOf(await rt.execute({ code: 'return "plain".length' })), 5);
  assert.deepEqual(packageStats(), before);
  // The word alone costs a scan, never a bundle, and runs as before.
  assert.equal(resultOf(await rt.execute({ code: 'return "no import here".length' })), 14);
  const after = packageStats();
  assert.equal(after.scans, before.scans + 1);
  assert.equal(after.builds, before.builds);
  assert.equal(after.prepared, before.prepared);
});

Deno.test("node: built-ins pass the import check; the sandbox's permissions still hold", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
  const hash = await rt.execute({
    code: 'import { createHash } from "node:crypto";\n' +
      'export default () => createHash("sha256").update("x").digest("hex").slice(0, 8);',
  });
  assert.equal(hash.status, "completed", JSON.stringify(hash).slice(0, 300));
  assert.equal((hash as { result: unknown }).result, "2d711642");
  const read = await rt.execute({
    code: 'import fs from "node:fs";\n' +
      'try { return fs.readFileSync("/etc/passwd", "utf8") } catch (e) { return e.name }',
  });
  assert.equal(
    (read as { result: unknown }).result,
    "NotCapable",
    JSON.stringify(read).slice(0, 300),
  );
});

Deno.test("scripts that import allowed packages type-check as scripts (strict mode runs them)", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    packages: { ms: "2.1.3" },
  });
  const ok = await rt.execute({
    code: 'import ms from "ms";\nconst hours: number = 2;\nreturn ms(`${hours}h`)',
    typecheck: "strict",
  });
  assert.equal(ok.status, "completed", JSON.stringify(ok).slice(0, 400));
  assert.deepEqual(ok.diagnostics, []);
  const bad = await rt.execute({
    code: 'import ms from "ms";\nconst n: number = "two";\nreturn ms("1s")',
    typecheck: "strict",
  });
  assert.equal(bad.status, "error");
  assert.equal(
    (bad as { error: { code: string; location?: { line: number } } }).error.code,
    "type_error",
  );
  assert.equal((bad as { error: { location?: { line: number } } }).error.location?.line, 2);
});

Deno.test("a snippet that imports an allowed package runs through codemode.run", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    packages: { ms: "2.1.3" },
  });
  const saved = await rt.execute({
    code: 'import ms from "ms";\nreturn ms(input.span)',
    input: { span: "1m" },
  });
  assert.equal((saved as { result: unknown }).result, 60_000);
  await rt.saveSnippet("span", {
    executionId: saved.executionId,
    description: "Milliseconds of a span",
  });
  const r = await rt.execute({ code: 'return await codemode.run("span", { span: "2s" })' });
  assert.equal((r as { result: unknown }).result, 2_000, JSON.stringify(r).slice(0, 300));
});
