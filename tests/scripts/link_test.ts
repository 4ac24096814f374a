/**
 * scripts/link.ts: one step makes `@cordon/runtime` work in a project outside the checkout. The
 * end-to-end test builds a project from scratch in a temporary directory, links it, and runs and
 * type-checks it with real `deno` children, offline: `--cached-only` with this process's
 * DENO_DIR, where the repository's `deno install` put every npm package.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { link, mergeLock, planLink, runtimeLock, TEST_ONLY_PACKAGES } from "../../scripts/link.ts";

const CHECKOUT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = join(CHECKOUT, "scripts", "link.ts");
const CORDON = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
const ZOD = CORDON.imports.zod as string;

async function deno(args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    // This process's environment, DENO_DIR included: the npm cache the repository filled.
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

async function tempProject(): Promise<{ dir: string } & AsyncDisposable> {
  // Outside the repository: the system's temporary directory, not a folder of the checkout.
  const dir = await Deno.makeTempDir({ prefix: "cordon-linked-" });
  assert.ok(!dir.startsWith(CHECKOUT), `${dir} is inside the checkout`);
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

const MAIN = `import { z } from "zod";
import { createRuntime, defineConnector } from "@cordon/runtime";

// The project's zod is Cordon's own copy: a schema made here passes Cordon's checks.
const math = defineConnector({
  name: "math",
  description: "Arithmetic",
  tools: {
    add: {
      description: "Add two numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    },
  },
});
await using runtime = await createRuntime({ connectors: [math], db: ":memory:", pool: { size: 0 } });
const plain = await runtime.execute({ code: "return 1 + 1" });
const called = await runtime.execute({ code: "return await math.add({ a: 2, b: 3 })" });
console.log(JSON.stringify({
  plain: plain.status === "completed" ? plain.result : plain.status,
  called: called.status === "completed" ? called.result : called.status,
}));
`;

Deno.test({
  name:
    "link.ts: a new project outside the repository imports @cordon/runtime, runs it offline and type-checks",
  fn: async () => {
    await using tmp = await tempProject();
    const { dir } = tmp;
    // The project maps typescript to something that is not TypeScript: Cordon's own pin must win.
    await Deno.writeTextFile(join(dir, "not_typescript.ts"), "export const version = 'no';\n");
    await Deno.writeTextFile(
      join(dir, "deno.json"),
      JSON.stringify({ imports: { typescript: "./not_typescript.ts" }, tasks: { go: "x" } }),
    );
    const linked = await deno(["run", "-A", SCRIPT], dir);
    assert.equal(linked.code, 0, linked.stderr);
    assert.match(linked.stdout, /added "@cordon\/runtime"/);
    const config = JSON.parse(await Deno.readTextFile(join(dir, "deno.json")));
    assert.equal(config.imports.typescript, "./not_typescript.ts", "the project's own entry stays");
    assert.deepEqual(config.tasks, { go: "x" }, "other fields stay");
    assert.equal(config.imports.zod, ZOD);
    assert.equal(
      await Deno.realPath(join(dir, config.imports["@cordon/runtime"])),
      await Deno.realPath(join(CHECKOUT, "mod.ts")),
    );

    await Deno.writeTextFile(join(dir, "main.ts"), MAIN);
    const ran = await deno(["run", "-A", "--cached-only", "main.ts"], dir);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout.trim().split("\n").at(-1)!), { plain: 2, called: 5 });

    // Cordon's type check runs TypeScript in a worker: it found Cordon's typescript, not the stub.
    const checkedRun = await deno([
      "eval",
      "--cached-only",
      `import { createRuntime } from "@cordon/runtime";
       await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "strict" });
       const r = await rt.execute({ code: "const n: number = 'x'; return n" });
       console.log(r.status === "error" ? r.error.code : r.status);`,
    ], dir);
    assert.equal(checkedRun.code, 0, checkedRun.stderr);
    assert.equal(checkedRun.stdout.trim().split("\n").at(-1), "type_error");

    // The test kit too, through @cordon/runtime/testing.
    await Deno.writeTextFile(
      join(dir, "kit_test.ts"),
      `import { createTestKit, expectCompleted } from "@cordon/runtime/testing";
Deno.test("kit", async () => {
  await using kit = await createTestKit({ connectors: [] });
  const value = expectCompleted(await kit.run("return 6 * 7"));
  if (value !== 42) throw new Error(String(value));
});
`,
    );
    const tested = await deno(["test", "-A", "--cached-only", "kit_test.ts"], dir);
    assert.equal(tested.code, 0, tested.stdout + tested.stderr);
    assert.match(tested.stdout, /1 passed/);

    const checked = await deno(["check", "main.ts", "kit_test.ts"], dir);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);

    // Running it again changes nothing and says so.
    const again = await deno(["run", "-A", SCRIPT, dir], CHECKOUT);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already links this checkout/);
  },
});

Deno.test("link.ts refuses a conflicting pin, naming both, and writes nothing", async () => {
  await using tmp = await tempProject();
  const { dir } = tmp;
  const before = JSON.stringify({ imports: { zod: "npm:zod@^3.23.0" } });
  await Deno.writeTextFile(join(dir, "deno.json"), before);
  const out = await deno(["run", "-A", SCRIPT, dir], CHECKOUT);
  assert.equal(out.code, 1);
  assert.match(
    out.stderr,
    /"zod" is "npm:zod@\^3\.23\.0" in deno\.json, but Cordon needs "npm:zod@/,
  );
  assert.equal(await Deno.readTextFile(join(dir, "deno.json")), before);
  await assert.rejects(Deno.stat(join(dir, "deno.lock")), Deno.errors.NotFound);
});

Deno.test("planLink() keeps what is there, accepts the same entry written another way, refuses others", () => {
  const project = "/work/app";
  const checkout = "/work/cordon";
  const same = planLink(
    { imports: { "@cordon/runtime": "/work/cordon/mod.ts", hono: "npm:hono@3.0.0" } },
    project,
    CORDON,
    checkout,
  );
  assert.deepEqual(same.conflicts, []);
  assert.equal(same.imports["@cordon/runtime"], "/work/cordon/mod.ts");
  assert.equal(
    same.imports.hono,
    "npm:hono@3.0.0",
    "a package Cordon does not share is left alone",
  );
  assert.deepEqual(Object.keys(same.added).sort(), ["@cordon/runtime/testing", "zod"]);
  assert.equal(same.added["@cordon/runtime/testing"], "../cordon/testing.ts");

  const other = planLink(
    { imports: { "@cordon/runtime": "jsr:@cordon/runtime@^0.1.0" } },
    project,
    CORDON,
    checkout,
  );
  assert.equal(other.conflicts.length, 1);
  assert.match(other.conflicts[0], /"@cordon\/runtime" is "jsr:@cordon\/runtime@\^0\.1\.0"/);

  const mapped = planLink({ importMap: "./map.json" }, project, CORDON, checkout);
  assert.match(mapped.conflicts[0], /"importMap"/);

  const manual = planLink({ nodeModulesDir: "manual" }, project, CORDON, checkout);
  assert.deepEqual(manual.conflicts, []);
  assert.match(manual.warnings[0], /"manual"/);
});

Deno.test("mergeLock() adds what is missing, keeps the project's entries, refuses other versions", () => {
  const project = {
    version: "5",
    specifiers: { "npm:zod@4.6.7": "4.6.7", "npm:left-pad@1.3.0": "1.3.0" },
    npm: { "zod@4.6.7": { integrity: "project's" } },
  };
  const cordon = {
    version: "5",
    specifiers: { "npm:zod@4.6.7": "4.6.7", "npm:acorn@8.15.0": "8.15.0" },
    npm: { "zod@4.6.7": { integrity: "cordon's" }, "acorn@8.15.0": { integrity: "a" } },
  };
  assert.equal(mergeLock(project, cordon), 2);
  assert.deepEqual(Object.keys(project.specifiers).sort(), [
    "npm:acorn@8.15.0",
    "npm:left-pad@1.3.0",
    "npm:zod@4.6.7",
  ]);
  assert.deepEqual(project.npm["zod@4.6.7"], { integrity: "project's" });
  assert.throws(() => mergeLock({ version: "4" }, cordon), /lockfile version 4/);
});

Deno.test("runtimeLock() keeps the library's packages and what they pull in, not the test tools", () => {
  const lock = JSON.parse(Deno.readTextFileSync(new URL("../../deno.lock", import.meta.url)));
  const kept = runtimeLock(lock);
  const names = Object.keys(kept.npm ?? {});
  for (const tool of TEST_ONLY_PACKAGES) {
    assert.ok(!names.some((k) => k.startsWith(`${tool}@`)), `${tool} left out`);
    assert.ok(!Object.keys(kept.specifiers ?? {}).some((k) => k.startsWith(`npm:${tool}@`)));
  }
  for (const lib of ["@libsql/client@", "zod@", "hono@", "typescript@", "ai@"]) {
    assert.ok(names.some((k) => k.startsWith(lib)), `${lib} kept`);
  }
  // Closed under dependencies: every package a kept one needs is kept.
  const npm = kept.npm as Record<string, Record<string, string[] | undefined>>;
  for (const [key, entry] of Object.entries(npm)) {
    for (const dep of [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []]) {
      const found = dep.indexOf("@", 1) !== -1
        ? dep in npm
        : names.some((k) => k.startsWith(`${dep}@`));
      assert.ok(found, `${key} needs ${dep}`);
    }
  }
  assert.ok(names.length < Object.keys(lock.npm).length);
});

Deno.test("link() refuses a deno.jsonc, a missing directory and a project inside the checkout", async () => {
  await using tmp = await tempProject();
  const { dir } = tmp;
  await Deno.writeTextFile(join(dir, "deno.jsonc"), "{ // comments\n}");
  assert.throws(() => link(dir, CHECKOUT), /deno\.jsonc/);
  assert.throws(() => link(join(dir, "nope"), CHECKOUT), /is not a directory/);
  assert.throws(() => link(join(CHECKOUT, "examples"), CHECKOUT), /inside the checkout/);
});
