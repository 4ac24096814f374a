/**
 * The escape corpus for bash blocks, each in a real sandbox child with Cordon's flags: every
 * attempt must fail with a non-zero status and a reason on stderr, leave the host's files
 * unread and unwritten, reach no listening socket, and start no process. A script that never
 * ends is stopped by the host.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Answer, runChild, workspaceIn } from "../_helpers/bash_children.ts";

const SECRET = "cordon-secret-6f1e";

/**
 * Attempts that must be refused (a non-zero status and a reason on stderr); `$OUTER`, `$PORT`
 * and `$REAL` come in as variables.
 */
const ATTEMPTS: readonly string[] = [
  // Files outside the workspace, read or written.
  "cat /etc/passwd",
  "echo x > /etc/cordon_x",
  "echo x > ../../x",
  "echo x >> ../../../x",
  'cat "$OUTER/secret.txt"',
  'cat "$REAL/../../secret.txt"',
  "cat ../../secret.txt",
  "tee /etc/cordon_x < /dev/null",
  "cp secret_copy_source /etc/cordon_x",
  "ln /etc/passwd hard",
  "ln -s / r; cat r/etc/passwd",
  "ln -s ../../secret.txt s; cat s",
  "cat planted/secret.txt",
  "ls planted/",
  // /proc and /dev.
  "cat /proc/self/environ",
  "cat /proc/1/cmdline",
  "cat /proc/self/maps",
  "echo x > /proc/self/attr",
  'cat "/dev/tcp/127.0.0.1/$PORT"',
  'echo GET > "/dev/tcp/127.0.0.1/$PORT"',
  'exec 3<>"/dev/tcp/127.0.0.1/$PORT"',
  "cat /dev/sda",
  "touch /dev/cordon",
  // Climbing with cd.
  "for i in $(seq 1 40); do cd ..; done; cat etc/passwd",
  'cd /; cd ../../..; [ "$(pwd)" = / ] && cat ../secret.txt',
  "cd /tmp/../../..; cat secret.txt",
  // Command substitution and other indirections.
  'set -e; x=$(cat /etc/passwd); echo "$x"',
  'set -e; x=`cat ../../secret.txt`; echo "$x"',
  "cat $(echo /etc/passwd)",
  "$(echo cat) /etc/passwd",
  "eval 'cat /etc/passwd'",
  "bash -c 'cat /etc/passwd'",
  "sh -c 'cat ../../secret.txt'",
  "source /etc/passwd",
  ". ../../secret.txt",
  'while read -r l; do echo "$l"; done < /etc/passwd',
  "xargs cat <<< /etc/passwd",
  // Network and processes: none of these commands exists.
  'curl "http://127.0.0.1:$PORT/"',
  'wget "http://127.0.0.1:$PORT/"',
  "python3 -c 'print(1)'",
  "node -e 1",
  "js-exec -c 1",
  "sqlite3 :memory: 'select 1'",
  "deno eval 1",
  // `/bin/sh` and `bash` are this same interpreter (no process); these name real programs.
  "/usr/bin/perl -e 'print \"escaped\"'",
  "/bin/python3 -c 'print(\"escaped\")'",
  "exec /usr/bin/env",
  "/usr/bin/env cat /etc/passwd",
];

/**
 * Attempts whose inner command fails while the block itself may succeed (as in bash: a process
 * substitution's status is lost): they must only find nothing.
 */
const CONTAINED: readonly string[] = [
  "echo $(< /etc/passwd)",
  "cat <(cat /etc/passwd)",
  "cat <(cat ../../secret.txt)",
  "find / -name secret.txt -exec cat {} \\;",
  "grep -r cordon-secret / ; true",
  "ls -la / /tmp /dev /proc",
];

Deno.test("bash escapes are refused: files outside, /proc, /dev, symlinks, cd, substitutions, network, processes", async () => {
  const outer = await Deno.makeTempDir({ prefix: "cordon-bash-escape-" });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  try {
    const ws = await workspaceIn(outer);
    await Deno.writeTextFile(join(outer, "secret.txt"), SECRET);
    await Deno.writeTextFile(join(ws, "secret_copy_source"), "inside");
    // A symlink planted in the workspace (the host refuses to stage one; this is the floor).
    await Deno.symlink(outer, join(ws, "planted"));
    const env = { OUTER: outer, REAL: ws, PORT: String(listener.addr.port) };
    const all = [...ATTEMPTS, ...CONTAINED];
    const run = await runChild(all.map((code) => ({ code, env })), { workspace: ws });
    assert.equal(run.status.code, 0, run.stderr);
    assert.equal(run.answers.length, all.length);
    const wrong: string[] = [];
    run.answers.forEach((answer: Answer, i) => {
      const refused = i >= ATTEMPTS.length || answer.error !== undefined ||
        (answer.exitCode !== 0 && answer.stderr.trim() !== "");
      const leaked = answer.stdout.includes("root:") || answer.stdout.includes(SECRET) ||
        answer.stderr.includes(SECRET) || answer.stdout.includes("escaped");
      if (!refused || leaked) wrong.push(`${all[i]} → ${JSON.stringify(answer)}`);
    });
    assert.deepEqual(wrong, [], "attempts that were not refused, or leaked");
    assert.equal(connections, 0, "no connection reached the listener");
    assert.equal(await Deno.readTextFile(join(outer, "secret.txt")), SECRET);
    for (const path of [join(outer, "x"), join(outer, "..", "x"), "/etc/cordon_x"]) {
      await assert.rejects(Deno.lstat(path), Deno.errors.NotFound, path);
    }
    // Nothing was made in the workspace but the files these attempts may make there.
    const made = [];
    for await (const entry of Deno.readDir(ws)) made.push(entry.name);
    assert.deepEqual(made.sort(), ["planted", "secret_copy_source"]);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    await Deno.remove(outer, { recursive: true });
  }
});

Deno.test("a bash block that never ends is stopped by the host; just-bash's own limits stop a runaway block", async () => {
  const outer = await Deno.makeTempDir({ prefix: "cordon-bash-" });
  try {
    const ws = await workspaceIn(outer);
    const start = performance.now();
    const forever = await runChild([{ code: "while true; do echo y > f; done" }], {
      workspace: ws,
      killAfterMs: 2_500,
    });
    const elapsed = performance.now() - start;
    assert.deepEqual(forever.answers, [], "the block had not ended by itself");
    assert.equal(forever.status.signal, "SIGKILL");
    assert.ok(elapsed < 10_000, `stopped in ${elapsed} ms`);
    const limited = await runChild([
      { code: "while true; do :; done", limits: { maxLoopIterations: 1_000 } },
      {
        code: "for i in $(seq 1 100000); do echo 0123456789; done",
        limits: { maxOutputSize: 10_000 },
      },
      { code: "f() { f; }; f", limits: { maxCallDepth: 50 } },
    ], { workspace: ws });
    for (const answer of limited.answers) {
      assert.notEqual(answer.exitCode, 0, JSON.stringify(answer));
      assert.match(answer.stderr, /limit|too many|exceeded|maximum/i);
      assert.ok(answer.stdout.length <= 10_000);
    }
  } finally {
    await Deno.remove(outer, { recursive: true });
  }
});
