import assert from "node:assert/strict";
import { z } from "zod";
import {
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type PausedResult,
  type Runtime,
} from "../../../mod.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";

/** A real connector (zod-checked) whose calls are counted, so a replay that repeats one shows. */
function world() {
  const effects = { add: 0, send: 0 };
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }) => {
          effects.add++;
          return { sum: a + b, parts: [a, b], note: null };
        },
      },
      fail: {
        description: "Always refuses",
        input: z.object({}),
        execute: () => {
          throw new Error("no luck");
        },
      },
      send: {
        description: "Needs a person's approval",
        input: z.object({ to: z.string() }),
        requiresApproval: true,
        execute: ({ to }) => {
          effects.send++;
          return `sent:${to}`;
        },
      },
    },
  });
  return { math, effects };
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r, { depth: 6 }).slice(0, 1500));
  return (r as { result: unknown }).result;
}

interface PythonError {
  code: string;
  message: string;
  details: { name: string; traceback: string };
  location: { line: number; column: number };
}

function failed(r: ExecuteResult): PythonError {
  assert.equal(r.status, "error", Deno.inspect(r, { depth: 6 }).slice(0, 1500));
  return (r as unknown as { error: PythonError }).error;
}

async function withRuntime(
  fn: (rt: Runtime, effects: ReturnType<typeof world>["effects"]) => Promise<void>,
  holdMs = 60_000,
  pythonPool = 0,
) {
  const { math, effects } = world();
  {
    // No warm Python child unless the test is about one: a pool booting Pyodide beside each test's
    // own runs only slows them (two cores, a parallel suite).
    await using rt = await createRuntime({
      connectors: [math],
      db: ":memory:",
      pool: { size: 0 },
      python: { pool: pythonPool },
      durability: { holdMs },
    });
    await fn(rt, effects);
  }
  await assertNoSandboxChildren();
}

Deno.test("python: connectors with kwargs and a dict, print, INPUT, and the last expression as result", async () => {
  await withRuntime(async (rt, effects) => {
    const r = await rt.execute({
      language: "python",
      input: { n: 4 },
      code: [
        "import cordon, sys",
        "print('hello', INPUT['n'])",
        "print('oops', file=sys.stderr)",
        "a = await math.add(a=1, b=2)",
        "b = await math.add({'a': INPUT['n'], 'b': 10})",
        "{'a': a, 'b': b['sum'], 't': (1, 2.5, None, True), 'same': cordon.input == INPUT}",
      ].join("\n"),
    });
    assert.deepEqual(ok(r), {
      a: { sum: 3, parts: [1, 2], note: null },
      b: 14,
      t: [1, 2.5, null, true],
      same: true,
    });
    assert.equal(effects.add, 2);
    assert.deepEqual(r.logs.map((l) => [l.level, l.message]), [
      ["log", "hello 4"],
      ["error", "oops"],
    ]);
    assert.deepEqual(r.calls.map((c) => [c.tool, c.args, c.state]), [
      ["add", { a: 1, b: 2 }, "applied"],
      ["add", { a: 4, b: 10 }, "applied"],
    ]);
    assert.equal(r.meta.language, "python");
    assert.equal(r.meta.typecheck, undefined);
    assert.deepEqual(r.diagnostics, []);
    // Stored with its language: reading it back says so.
    const stored = await rt.execution(r.executionId);
    assert.equal(stored?.status, "completed");
    assert.equal(stored?.language, "python");
    // No last expression: the result is null.
    assert.equal(ok(await rt.execute({ language: "py", code: "x = 1" })) ?? null, null);
  });
});

Deno.test("python: exceptions, syntax errors, tool errors and unconvertible results are typed", async () => {
  await withRuntime(async (rt) => {
    const div = failed(await rt.execute({ language: "python", code: "x = 1\n\ny = x / 0\n" }));
    assert.equal(div.code, "script_error");
    assert.equal(div.message, "ZeroDivisionError: division by zero");
    assert.equal(div.details.name, "ZeroDivisionError");
    assert.equal(div.location.line, 3);
    assert.match(div.details.traceback, /File "main\.py", line 3/);
    assert.doesNotMatch(div.details.traceback, /_pyodide|pyodide\.asm|\/lib\/python/);

    const syntax = failed(await rt.execute({ language: "python", code: "a = 1\ndef f(:\n  pass" }));
    assert.equal(syntax.code, "script_error");
    assert.equal(syntax.details.name, "SyntaxError");
    assert.equal(syntax.location.line, 2);

    const tool = failed(
      await rt.execute({ language: "python", code: "\nawait math.add(a='x', b=1)" }),
    );
    assert.equal(tool.code, "invalid_input");
    assert.equal(tool.location.line, 2);

    const caught = await rt.execute({
      language: "python",
      code: [
        "import cordon",
        "try:",
        "    await math.fail()",
        "except cordon.ToolError as e:",
        "    out = [e.code, 'no luck' in str(e)]",
        "out",
      ].join("\n"),
    });
    assert.deepEqual(ok(caught), ["tool_error", true]);

    // A forged ToolError carries no code of the host's: it is the script's own error.
    const forged = failed(
      await rt.execute({
        language: "python",
        code: "import cordon\nraise cordon.ToolError('x', 'sandbox_crashed')",
      }),
    );
    assert.equal(forged.code, "script_error");

    const set = failed(await rt.execute({ language: "python", code: "{'k': {1, 2}}" }));
    assert.equal(set.code, "result_not_serializable");
    assert.match(set.message, /set/);

    const numpy = failed(await rt.execute({ language: "python", code: "import numpy" }));
    assert.equal(numpy.code, "script_error");
    assert.match(numpy.message, /Pyodide's bundled modules only/);
  });
});

Deno.test("python: the workspace is mounted at its path and is the working directory", async () => {
  await withRuntime(async (rt) => {
    const r = await rt.execute({
      language: "python",
      workspace: { files: { "in.txt": "hello" }, persist: true, outputs: { globs: ["deep/**"] } },
      code: [
        "import os",
        "text = open('in.txt').read()",
        "os.makedirs('deep', exist_ok=True)",
        "open('deep/out.txt', 'w').write(text + '!')",
        "[os.getcwd(), text, sorted(os.listdir('.'))]",
      ].join("\n"),
    });
    const [cwd, text, names] = ok(r) as [string, string, string[]];
    assert.equal(text, "hello");
    // Besides the document's layout (skills/ work/ runs/ out/ metadata.json), what the run made.
    const layout = ["metadata.json", "out", "runs", "skills", "work"];
    assert.deepEqual(names.filter((n) => !layout.includes(n)), ["deep", "in.txt"]);
    const report = (r as unknown as { workspace: { id: string; outputs: { path: string }[] } })
      .workspace;
    assert.deepEqual(report.outputs.map((o) => o.path), ["deep/out.txt"]);
    // TypeScript in the same workspace sees the same directory and the file Python wrote.
    const ts = await rt.execute({
      workspace: { id: report.id },
      code: "return [workspace.dir, await workspace.readText('deep/out.txt')]",
    });
    assert.deepEqual(ok(ts), [cwd, "hello!"]);
  });
});

for (const [mode, holdMs] of [["live", 60_000], ["replay", 1]] as const) {
  Deno.test(`python: an approval pauses the run; approve (${mode}) resumes it and repeats no call`, async () => {
    // live: the paused child is held and continues; replay (holdMs 1): it is released at once,
    // so approve runs the stored Python again over the journal.
    await withRuntime(async (rt, effects) => {
      const r = await rt.execute({
        language: "python",
        code: "a = await math.add(a=1, b=1)\nsent = await math.send(to='x@y')\n[a['sum'], sent]",
      });
      assert.equal(r.status, "paused", Deno.inspect(r).slice(0, 800));
      const p = r as PausedResult;
      assert.deepEqual(p.pending.map((x) => [x.tool, x.args]), [["send", { to: "x@y" }]]);
      await new Promise((res) => setTimeout(res, 50));
      const done = await rt.approve(p.executionId);
      assert.deepEqual(ok(done), [2, "sent:x@y"]);
      assert.equal(effects.add, 1, "the first call ran once");
      assert.equal(effects.send, 1);
      assert.equal(done.meta.language, "python");
      assert.equal(done.meta.replayed, mode === "replay");
    }, holdMs);
  });
}

Deno.test("python: a warm child from the Python pool serves the next run", async () => {
  await withRuntime(
    async (rt) => {
      const first = await rt.execute({ language: "python", code: "1 + 1" });
      assert.equal(ok(first), 2);
      await rt.warm();
      const second = await rt.execute({ language: "python", code: "print('warm')\n'x' * 3" });
      assert.equal(ok(second), "xxx");
      assert.equal(second.meta.pooled, true);
    },
    60_000,
    1,
  );
});

Deno.test("python: a session keeps the interpreter; later blocks see earlier globals", async () => {
  await withRuntime(async (rt) => {
    const first = await rt.execute({
      language: "python",
      session: true,
      workspace: { files: { "n.txt": "40" } },
      code: "import math as m\nx = int(open('n.txt').read())\ndef inc(v):\n    return v + 1\nx",
    });
    assert.equal(ok(first), 40);
    const sessionId = first.meta.sessionId!;
    assert.equal(first.meta.language, "python");
    const second = await rt.execute({
      language: "python",
      sessionId,
      input: { add: 1 },
      code: "x = inc(x) + INPUT['add']\nopen('out.txt', 'w').write(str(x))\n[x, m.floor(2.5)]",
    });
    assert.deepEqual(ok(second), [42, 2]);
    assert.equal(second.meta.sessionStatus, "reused");
    // A session keeps its language: TypeScript cannot run in it.
    const ts = failed(await rt.execute({ sessionId, code: "return 1" }));
    assert.equal(ts.code, "invalid_request");
    await rt.closeSession(sessionId);
  });
});

Deno.test("python: a bash session is refused with a typed error; unknown languages too", async () => {
  await withRuntime(async (rt) => {
    const bash = failed(await rt.execute({ language: "sh", code: "echo hi", session: true }));
    assert.equal(bash.code, "not_supported");
    const cobol = failed(await rt.execute({ language: "cobol", code: "x" }));
    assert.equal(cobol.code, "invalid_request");
    // TypeScript under each of its names still runs.
    for (const language of ["ts", "JavaScript", "typescript"]) {
      assert.equal(ok(await rt.execute({ language, code: "return 2" })), 2);
    }
  });
});

Deno.test("python: a missing Pyodide is refused, naming the fix", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    python: { pyodideDir: "/nonexistent/pyodide" },
  });
  const err = failed(await rt.execute({ language: "python", code: "1" }));
  assert.equal(err.code, "not_supported");
  assert.match(err.message, /deno install|pyodideDir/);
});
