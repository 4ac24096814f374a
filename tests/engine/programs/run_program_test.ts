import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type Runtime } from "../../../mod.ts";

/** A real connector whose calls are counted. */
function world() {
  const calls: unknown[] = [];
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ a: z.number(), b: z.number() }),
        execute: (args) => (calls.push(args), args.a + args.b),
      },
    },
  });
  return { math, calls };
}

async function withRuntime(fn: (rt: Runtime, calls: unknown[]) => Promise<void>): Promise<void> {
  const { math, calls } = world();
  const dataDir = await Deno.makeTempDir();
  const rt = await createRuntime({
    db: ":memory:",
    dataDir,
    pool: { size: 0 },
    // Programs run in workspaces, which take cold children: a warm Python child would idle.
    python: { pool: 0 },
    connectors: [math],
    runEnv: ({ cmd }) => ({ PROVIDED: `for ${cmd}`, FOO: "provider loses" }),
  });
  try {
    await fn(rt, calls);
  } finally {
    await rt.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

const SLOW = { timeoutMs: 60_000 };

Deno.test({
  name: "runProgram: a Python file with argv, env, cwd, a tool call, stderr and its exit code",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt, calls) => {
      const code = [
        "import sys, os",
        "print('args', sys.argv)",
        "print('env', os.environ['FOO'], os.environ['PROVIDED'], 'HOME' in os.environ)",
        "print('dirs', os.getcwd() == os.path.join(os.environ['WORKSPACE_DIR'], 'work'),",
        "      os.environ['OUTPUT_DIR'].endswith('/out'), os.path.isdir(os.environ['RUN_DIR']))",
        "print('sum', await math.add(a=2, b=3))",
        "print('oops', file=sys.stderr)",
        "sys.exit(3)",
      ].join("\n");
      const r = await rt.runProgram({ files: { "work/main.py": code } }, {
        cmd: "python3",
        args: ["main.py", "hi"],
        env: { FOO: "bar" },
        cwd: "work",
        ...SLOW,
      });
      assert.equal(
        r.stdout,
        "args ['main.py', 'hi']\nenv bar for python3 False\ndirs True True True\nsum 5\n",
      );
      assert.equal(r.stderr, "oops\n");
      assert.equal(r.exitCode, 3);
      assert.equal(r.timedOut, false);
      assert.deepEqual(calls, [{ a: 2, b: 3 }]);
      // The program is an ordinary execution: its call is in the call log.
      const record = await rt.execution(r.executionId);
      assert.equal(record?.calls?.length, 1);
    }),
});

Deno.test({
  name:
    "runProgram: an uncaught Python error is exit 1 with its traceback on stderr; stdin up front",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const bad = await rt.runProgram({ files: { "bad.py": "x = 1\nprint('before')\n1 / 0\n" } }, {
        cmd: "python3",
        args: ["bad.py"],
        ...SLOW,
      });
      assert.equal(bad.exitCode, 1);
      assert.equal(bad.stdout, "before\n");
      assert.match(bad.stderr, /bad\.py", line 3[\s\S]*ZeroDivisionError: division by zero/);
      const echo = await rt.runProgram({
        files: {
          "echo.py":
            "import sys\nname = input()\nprint('hi', name)\nprint(sys.stdin.read().upper(), end='')\n",
        },
      }, {
        cmd: "python3",
        args: ["echo.py"],
        stdin: "ann\nrest of it\n",
        ...SLOW,
      });
      assert.deepEqual([echo.stdout, echo.exitCode], ["hi ann\nREST OF IT\n", 0]);
      const inline = await rt.runProgram({}, {
        cmd: "python3",
        args: ["-c", "import sys; print(sys.argv[1:])", "a"],
        ...SLOW,
      });
      assert.equal(inline.stdout, "['a']\n");
    }),
});

Deno.test({
  name: "runProgram: a TypeScript program gets Deno.args, its env only, and Deno.exit's status",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const code = [
        "console.log(JSON.stringify(Deno.args), Deno.env.get('FOO'), Deno.env.get('PATH') ?? 'no PATH');",
        "console.error('to stderr');",
        "setTimeout(() => Deno.exit(4), 10);",
        "await new Promise((r) => setTimeout(r, 5_000));",
        "console.log('not reached');",
      ].join("\n");
      const r = await rt.runProgram({ files: { "tool.ts": code } }, {
        cmd: "deno",
        args: ["run", "tool.ts", "x", "y"],
        env: { FOO: "bar" },
        ...SLOW,
      });
      assert.equal(r.stdout, '["x","y"] bar no PATH\n');
      assert.equal(r.stderr, "to stderr\n");
      assert.equal(r.exitCode, 4);
      // Its standard input is the program's own, up front or written while it runs.
      const upper = await rt.runProgram(
        {
          files: {
            "up.ts": "console.log((await new Response(Deno.stdin.readable).text()).toUpperCase());",
          },
        },
        { cmd: "deno", args: ["run", "up.ts"], stdin: "abc", ...SLOW },
      );
      assert.equal(upper.stdout, "ABC\n");
      const reader = await rt.startProgram({
        files: {
          "read.ts": "const b = new Uint8Array(64);\nconst n = await Deno.stdin.read(b);\n" +
            "console.log('read', new TextDecoder().decode(b.subarray(0, n ?? 0)));",
        },
      }, { cmd: "deno", args: ["run", "read.ts"], ...SLOW });
      await reader.write("typed", true);
      assert.equal((await reader.done).stdout, "read typed\n\n");
      const done = await rt.runProgram({ files: { "ok.ts": "console.log(1 + 1);" } }, {
        cmd: "./ok.ts",
        ...SLOW,
      });
      assert.deepEqual([done.stdout, done.exitCode], ["2\n", 0]);
    }),
});

Deno.test({
  name: "runProgram: a time limit gives timedOut and exit -1; bad specs are typed errors",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const r = await rt.runProgram({ files: { "spin.ts": "while (true) {}" } }, {
        cmd: "deno",
        args: ["run", "spin.ts"],
        timeoutMs: 1_500,
      });
      assert.deepEqual([r.timedOut, r.exitCode], [true, -1]);
      const refusals: [unknown, string][] = [
        [{ cmd: "rm", args: ["-rf", "/"] }, "not_supported"],
        [{ cmd: "python3", args: ["missing.py"] }, "not_found"],
        [{ cmd: "python3", args: ["x.py"], cwd: "../.." }, "invalid_request"],
        [{ cmd: "python3", args: ["../../../etc/passwd"] }, "invalid_request"],
        [{ cmd: "bash", args: ["-c", "x"], env: { "BAD NAME": "1" } }, "invalid_request"],
        [{ cmd: "python3", args: ["-c", "1"], tty: true }, "not_supported"],
      ];
      for (const [spec, code] of refusals) {
        await assert.rejects(rt.runProgram({}, spec as never), (e: { code: string }) =>
          e.code === code, JSON.stringify(spec));
      }
      await assert.rejects(rt.runProgram({ id: "ws_nope" }, { cmd: "python3", args: ["a.py"] }), {
        code: "not_found",
      });
    }),
});

Deno.test({
  name: "startProgram: poll, write, state and the final result of an interactive Python program",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const code =
        "while True:\n    line = input()\n    if line == 'quit':\n        break\n    print('echo', line)\nprint('bye')\n";
      const s = await rt.startProgram({ files: { "loop.py": code } }, {
        cmd: "python3",
        args: ["loop.py"],
        ...SLOW,
      });
      assert.equal(s.state().status, "running");
      assert.equal(rt.programSession(s.id), s);
      assert.equal(rt.programSessions()[0].id, s.id);
      await s.write("one", true);
      // Output arrives while the program runs.
      const deadline = Date.now() + 50_000;
      let seen = "";
      while (!seen.includes("echo one") && Date.now() < deadline) {
        seen += s.poll().output;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(seen, "echo one");
      assert.equal(s.state().status, "running");
      await s.write("quit", true);
      const result = await s.done;
      assert.deepEqual([result.stdout, result.exitCode], ["echo one\nbye\n", 0]);
      assert.deepEqual(s.state(), { status: "exited", exitCode: 0 });
      assert.deepEqual(s.poll(), {
        status: "exited",
        output: "bye",
        offset: 1,
        nextOffset: 2,
        exitCode: 0,
      });
      assert.deepEqual(s.log(0), { output: "echo one\nbye", offset: 0, nextOffset: 2 });
      await assert.rejects(s.write("late"), { code: "invalid_state" });
      // Another namespace does not see it.
      assert.throws(() => rt.programSession(s.id, { namespace: "other" }), { code: "not_found" });
    }),
});

Deno.test({
  name: "startProgram: kill stops a running program at once (exit -1), and close forgets it",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const s = await rt.startProgram({ files: { "wait.py": "input()\nprint('never')\n" } }, {
        cmd: "python3",
        args: ["wait.py"],
        ...SLOW,
      });
      // Concurrent calls are safe.
      await Promise.all([
        s.kill(100),
        s.kill(0),
        Promise.resolve(s.poll()),
        Promise.resolve(s.state()),
      ]);
      const r = s.result();
      assert.equal(r?.exitCode, -1);
      assert.equal(r?.stdout, "");
      await rt.closeProgram(s.id);
      assert.throws(() => rt.programSession(s.id), { code: "not_found" });
    }),
});

Deno.test({
  name:
    "executeInline: blocks written under src/ and run in one workspace, in order, until one fails",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const r = await rt.executeInline({ persist: true }, [
        {
          language: "python",
          code: "import os\nprint(sorted(os.listdir('.')))\nopen('../work/n.txt', 'w').write('7')",
        },
        { language: "sh", code: "echo block $(cat ../work/n.txt) in $(pwd)" },
        { language: "ts", code: "console.log('ts', Deno.cwd().endsWith('/src'));" },
      ], { timeoutMs: 60_000 });
      assert.equal(r.stdout, "['code_0.py', 'code_1.sh', 'code_2.ts']\nblock 7 in /src\nts true\n");
      assert.equal(r.exitCode, 0);
      assert.ok(r.workspaceId, "kept, as asked");
      const stops = await rt.executeInline({}, [
        { language: "bash", code: "echo one; exit 3" },
        { language: "bash", code: "echo never" },
      ]);
      assert.deepEqual([stops.stdout, stops.exitCode, stops.workspaceId], ["one\n", 3, undefined]);
      await assert.rejects(rt.executeInline({}, [{ language: "ruby", code: "1" }]), {
        code: "unsupported_language",
      });
    }),
});

Deno.test({
  name: "startProgram: a prompt without a newline shows before the program waits for input",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const s = await rt.startProgram({}, {
        cmd: "python3",
        args: ["-c", "name = input('Name: ')\nprint('Hi', name)"],
        ...SLOW,
      });
      let seen = "";
      for (let i = 0; i < 500 && !seen.includes("Name: "); i++) {
        seen += s.poll().output;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual([seen, s.state().status], ["Name: ", "running"]);
      await s.write("Bob", true);
      assert.equal((await s.done).stdout, "Name: \nHi Bob\n");
    }),
});
