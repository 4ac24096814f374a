/**
 * bash blocks in real sandbox children: Cordon's own flags (`childArgs`) plus read access to the
 * just-bash bundle, a test entry that runs each block with `runBash` (tests/fixtures/bash_entry.ts).
 * The escape corpus for bash is bash_escape_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { climbsAboveRoot } from "../../src/sandbox/guest/bash_fs.ts";
import { runChild, workspaceIn } from "../_helpers/bash_children.ts";

Deno.test("bash blocks run in a real sandbox child: output, exit codes, pipes, variables, functions, loops, $1, env, stdin", async () => {
  const outer = await Deno.makeTempDir({ prefix: "cordon-bash-" });
  try {
    const ws = await workspaceIn(outer);
    const run = await runChild([
      { code: "echo hello" },
      { code: "echo one; echo two >&2; exit 3" },
      { code: "set -e\necho before\nfalse\necho after" },
      { code: "no_such_command --flag" },
      { code: "printf 'b\\na\\nb\\n' | sort | uniq -c | sort -rn | head -1 | tr -s ' '" },
      { code: 'n=4; name="x y"; echo "$((n * 2)) ${name// /_} ${#name}"' },
      { code: 'greet() { echo "hi $1"; return 5; }\ngreet bob; echo "status $?"' },
      {
        code:
          "s=0; for i in $(seq 1 10); do s=$((s + i)); done; while [ $s -gt 50 ]; do s=$((s - 1)); done; echo $s",
      },
      { code: 'echo "$# [$1] [$2] $@"', args: ["a b", "it's $HOME"] },
      { code: 'echo "$GREETING $HOME"; printenv GREETING', env: { GREETING: "bonjour" } },
      { code: 'while read -r line; do echo "<$line>"; done; wc -l < /dev/stdin', stdin: "x\ny\n" },
      { code: "echo '{\"a\":[1,2]}' | jq -c '.a | map(. * 10)'; echo a,b | awk -F, '{print $2}'" },
      { code: 'echo "line $LINENO"\nfoo_missing' },
      { code: "which jq cat; which python3 curl || echo none; command -v awk" },
    ], { workspace: ws });
    const [
      hello,
      three,
      setE,
      missing,
      pipe,
      vars,
      fn,
      loops,
      args,
      env,
      stdin,
      tools,
      lines,
      which,
    ] = run.answers;
    assert.equal(run.status.code, 0, run.stderr);
    assert.deepEqual([hello.stdout, hello.exitCode], ["hello\n", 0]);
    assert.deepEqual([three.stdout, three.stderr, three.exitCode], ["one\n", "two\n", 3]);
    assert.deepEqual([setE.stdout, setE.exitCode], ["before\n", 1]);
    assert.equal(missing.exitCode, 127);
    assert.match(missing.stderr, /no_such_command: command not found/);
    assert.equal(pipe.stdout, " 2 b\n");
    assert.equal(vars.stdout, "8 x_y 3\n");
    assert.equal(fn.stdout, "hi bob\nstatus 5\n");
    assert.equal(loops.stdout, "50\n");
    assert.equal(args.stdout, "2 [a b] [it's $HOME] a b it's $HOME\n");
    assert.equal(env.stdout, "bonjour /\nbonjour\n");
    assert.equal(stdin.stdout, "<x>\n<y>\n0\n");
    assert.equal(tools.stdout, "[10,20]\nb\n");
    assert.equal(lines.stdout, "line 1\n");
    assert.match(lines.stderr, /foo_missing/);
    assert.equal(which.stdout, "/usr/bin/jq\n/usr/bin/cat\nnone\n/usr/bin/awk\n");
    // The figures the report quotes: a cold child with its first block, then a warm block.
    console.log(
      `bash: cold child + first block ${run.firstMs.toFixed(0)} ms (the block itself ${
        hello.ms.toFixed(0)
      } ms), second block ${three.ms.toFixed(1)} ms, heap ${hello.heapMiB} MiB in use`,
    );
    assert.ok(three.ms < hello.ms, "a second block does not load the interpreter again");
  } finally {
    await Deno.remove(outer, { recursive: true });
  }
});

Deno.test("a bash block's files land in the workspace on disk; files and scripts put there are read and run, from a start directory", async () => {
  const outer = await Deno.makeTempDir({ prefix: "cordon-bash-" });
  try {
    const ws = await workspaceIn(outer);
    await Deno.writeTextFile(join(ws, "in.csv"), "id,n\n1,5\n2,7\n");
    await Deno.writeTextFile(join(ws, "tool.sh"), '#!/bin/bash\necho "tool $1"\n');
    const run = await runChild([
      {
        code: [
          "mkdir -p out/deep",
          "tail -n +2 in.csv | cut -d, -f2 | paste -sd+ | bc > out/sum.txt 2>/dev/null ||",
          "  awk -F, 'NR > 1 { s += $2 } END { print s }' in.csv > out/sum.txt",
          "cd out/deep && echo nested > file.txt && pwd",
          "cp ../sum.txt copy.txt; mv copy.txt moved.txt; rm -f ../../in.csv",
          "echo tmp > /tmp/scratch; cat /tmp/scratch",
        ].join("\n"),
      },
      {
        code:
          "bash tool.sh a; chmod +x tool.sh && ./tool.sh b; source ./tool.sh c; echo x > /dev/null",
      },
      { file: "tool.sh", args: ["file"] },
      { file: "../../tool.sh", workDir: "out/deep" },
      {
        file: "missing.sh",
      },
      { file: "../../../tool.sh" },
      { code: "pwd; cat file.txt", workDir: "out/deep" },
      {
        code: "pwd",
        workDir: "nowhere",
      },
      {},
      { code: "echo", file: "tool.sh" },
      { code: "rg -l nested; cd out && rg -c nested" },
      { code: "ls /; find / -name null; ls /dev" },
    ], { workspace: ws });
    const [answer, script, file, fromDir, missing, climbing, inDir, noDir, neither, both, rg, ls] =
      run.answers;
    // `/tmp`, `/dev` and `/proc` work but are not listed among the workspace's files.
    assert.equal(ls.stdout, "out\ntool.sh\nnull\nstderr\nstdin\nstdout\nzero\n");
    // rg walks up for ignore files: `..` from `/` stays at `/`.
    assert.deepEqual([rg.stdout, rg.exitCode], ["out/deep/file.txt\ndeep/file.txt:1\n", 0]);
    assert.deepEqual([file.stdout, file.exitCode], ["tool file\n", 0]);
    assert.deepEqual([fromDir.stdout, fromDir.exitCode], ["tool \n", 0]);
    assert.deepEqual([missing.stderr, missing.exitCode], [
      "bash: missing.sh: No such file or directory\n",
      127,
    ]);
    assert.equal(climbing.exitCode, 127);
    assert.deepEqual([inDir.stdout, inDir.exitCode], ["/out/deep\nnested\n", 0]);
    assert.equal(noDir.exitCode, 1);
    assert.match(noDir.stderr, /nowhere/);
    assert.equal(neither.error?.code, "invalid_request");
    assert.equal(both.error?.code, "invalid_request");
    assert.equal(answer.exitCode, 0, answer.stderr);
    assert.equal(answer.stdout, "/out/deep\ntmp\n");
    assert.deepEqual([script.stdout, script.stderr, script.exitCode], [
      "tool a\ntool b\ntool c\n",
      "",
      0,
    ]);
    assert.equal((await Deno.stat(join(ws, "tool.sh"))).mode! & 0o111, 0o111);
    assert.equal((await Deno.readTextFile(join(ws, "out/sum.txt"))).trim(), "12");
    assert.equal(await Deno.readTextFile(join(ws, "out/deep/file.txt")), "nested\n");
    assert.equal((await Deno.readTextFile(join(ws, "out/deep/moved.txt"))).trim(), "12");
    await assert.rejects(Deno.stat(join(ws, "in.csv")), Deno.errors.NotFound);
    // `/tmp` is the block's own, in memory: nothing of it reaches the disk.
    await assert.rejects(Deno.stat(join(ws, "tmp")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(outer, { recursive: true });
  }
});

Deno.test("without a workspace a bash block gets a filesystem in memory, and the child reads no file but the bundle", async () => {
  const run = await runChild([
    { code: "mkdir -p /data && echo kept > /data/f && cat /data/f && ls /" },
    { code: "cat /data/f" },
  ]);
  const [first, second] = run.answers;
  assert.equal(first.exitCode, 0, first.stderr);
  assert.equal(first.stdout, "kept\ndata\n");
  // Each block starts from an empty filesystem.
  assert.equal(second.exitCode, 1);
  assert.match(second.stderr, /No such file/);
});

Deno.test("a bundle the child may not read is a typed error, not a crash", async () => {
  const other = await Deno.makeTempFile({ suffix: ".js" });
  try {
    await Deno.writeTextFile(other, "export const Bash = 1;");
    const run = await runChild([{ code: "echo hi" }], { bundleUrl: pathToFileURL(other).href });
    assert.equal(run.answers[0].error?.code, "spawn_failed");
    assert.match(run.answers[0].error!.message, /Cannot load the bash interpreter/);
  } finally {
    await Deno.remove(other);
  }
});

Deno.test("climbsAboveRoot: a path may not name anything above `/`; `..` alone stays at `/`", () => {
  const above = [["/", "../x"], ["/", "../../x"], ["/a", "../../x"], ["/", "/tmp/../../x"], [
    "/",
    "../a/../b",
  ]];
  for (const [base, path] of above) assert.equal(climbsAboveRoot(base, path), true, path);
  const inside = [["/", "x"], ["/", ".."], ["/", "../.."], ["/a/b", "../x"], ["/", "/tmp/.."], [
    "/a",
    "./b/../..",
  ]];
  for (const [base, path] of inside) assert.equal(climbsAboveRoot(base, path), false, path);
});
