import assert from "node:assert/strict";
import { languageOfShebang, resolveCommand } from "../../../src/engine/programs/command.ts";
import { checkCwd, checkProgramSpec } from "../../../src/engine/programs/spec.ts";
import type { CordonError } from "../../../src/errors.ts";

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as CordonError).code;
  }
  return "none";
}

Deno.test("resolveCommand: interpreters and their forms", () => {
  assert.deepEqual(resolveCommand("python3", ["main.py", "a", "-b"]), {
    language: "python",
    file: "main.py",
    args: ["a", "-b"],
  });
  assert.deepEqual(resolveCommand("/usr/bin/python3", ["-u", "-c", "print(1)", "x"]), {
    language: "python",
    code: "print(1)",
    args: ["x"],
  });
  assert.deepEqual(resolveCommand("python", []), {
    language: "python",
    args: [],
    stdinIsCode: true,
  });
  assert.deepEqual(resolveCommand("bash", ["-c", "echo $1", "zero", "one"]), {
    language: "bash",
    code: "echo $1",
    args: ["one"],
  });
  assert.deepEqual(resolveCommand("sh", ["run.sh", "x"]), {
    language: "bash",
    file: "run.sh",
    args: ["x"],
  });
  assert.deepEqual(resolveCommand("deno", ["run", "main.ts", "--flag"]), {
    language: "typescript",
    file: "main.ts",
    args: ["--flag"],
  });
  assert.deepEqual(resolveCommand("node", ["x.js"]), {
    language: "typescript",
    file: "x.js",
    args: [],
  });
  assert.deepEqual(resolveCommand("./tool.py", ["1"]), {
    language: "python",
    file: "./tool.py",
    args: ["1"],
  });
  assert.deepEqual(resolveCommand("bin/tool", []), {
    language: "auto",
    file: "bin/tool",
    args: [],
  });
});

Deno.test("resolveCommand: what cannot run in the sandbox is refused, typed", () => {
  assert.equal(code(() => resolveCommand("rm", ["-rf", "/"])), "not_supported");
  assert.equal(code(() => resolveCommand("/bin/ls", [])), "not_supported");
  assert.equal(code(() => resolveCommand("python3", ["-m", "http.server"])), "not_supported");
  assert.equal(code(() => resolveCommand("deno", ["run", "--allow-all", "x.ts"])), "not_supported");
  assert.equal(code(() => resolveCommand("deno", ["eval", "1"])), "not_supported");
  assert.equal(code(() => resolveCommand("python3", ["-c"])), "invalid_request");
  assert.equal(code(() => resolveCommand("bash", ["--rcfile", "x"])), "not_supported");
});

Deno.test("languageOfShebang", () => {
  assert.equal(languageOfShebang("#!/usr/bin/env python3\nprint(1)"), "python");
  assert.equal(languageOfShebang("#!/usr/bin/env -S bash -e\n"), "bash");
  assert.equal(languageOfShebang("#!/bin/sh\n"), "bash");
  assert.equal(languageOfShebang("#!/usr/bin/perl\n"), undefined);
  assert.equal(languageOfShebang("print(1)"), undefined);
});

Deno.test("checkProgramSpec: bounds, names, paths", () => {
  assert.deepEqual(checkProgramSpec({ cmd: "bash", args: ["-c", "true"], cwd: "./work/x/" }), {
    cmd: "bash",
    args: ["-c", "true"],
    env: {},
    cwd: "work/x",
  });
  for (const cwd of ["/etc", "../x", "a/../../b", "a\0b"]) {
    assert.equal(code(() => checkCwd(cwd)), "invalid_request", cwd);
  }
  const bad = [
    { cmd: "" },
    { cmd: "x", args: "a" },
    { cmd: "x", args: [1] },
    { cmd: "x", env: { "A=B": "1" } },
    { cmd: "x", env: { A: 1 } },
    { cmd: "x", env: { A: "a\0" } },
    { cmd: "x", timeoutMs: -1 },
    { cmd: "x", timeoutMs: Infinity },
    { cmd: "x", limits: { maxPIDs: 1.5 } },
    { cmd: "x", stdin: 5 },
    null,
  ];
  for (const s of bad) {
    assert.equal(code(() => checkProgramSpec(s as never)), "invalid_request", JSON.stringify(s));
  }
  assert.equal(code(() => checkProgramSpec({ cmd: "x", tty: true } as never)), "not_supported");
});
