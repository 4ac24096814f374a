/**
 * A child that joins its cgroups itself (cgroup v1): the join shell writes `0` into each
 * `tasks` file before the program starts, runs nothing when a required join fails, and never
 * reads an argument as script. On this host's real v1 groups, a child lands in every group
 * without the host moving it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ChildGroup, detectMemoryGuard, type MemoryGuard } from "../../src/sandbox/cgroup.ts";
import { SandboxChild } from "../../src/sandbox/child.ts";
import {
  JOIN_FAILED_MESSAGE,
  JOIN_FAILED_STATUS,
  joinCommand,
} from "../../src/sandbox/self_join.ts";
import { childEnvironment, TEST_STREAM_LIMITS } from "../_helpers/sandbox_children.ts";

const text = new TextDecoder();

async function run(command: { program: string; args: string[] }) {
  const out = await new Deno.Command(command.program, {
    args: command.args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Runs `body` with a new temporary directory, removed after. */
async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A group whose `tasks` files are plain files in `dir`: what was asked of it is kept. */
function recordingGroup(dir: string, required: string[], optional: string[]) {
  const seen = { added: [] as number[], joined: [] as number[], removed: false };
  const group: ChildGroup = {
    add: (pid) => Promise.resolve(void seen.added.push(pid)),
    selfJoin: () => ({
      required: required.map((f) => join(dir, f)),
      optional: optional.map((f) => join(dir, f)),
      joined: (pid) => void seen.joined.push(pid),
    }),
    setMemory: () => Promise.resolve(),
    apply: () => Promise.resolve([]),
    oomKilled: () => Promise.resolve(false),
    pidsLimitHit: () => Promise.resolve(false),
    peakBytes: () => Promise.resolve(undefined),
    remove: () => Promise.resolve(void (seen.removed = true)),
  };
  const guard: MemoryGuard = {
    kind: "cgroup-v1",
    reason: "test",
    enforces: { memory: true, pids: true, cpu: false },
    create: () => Promise.resolve(group),
    dispose: () => Promise.resolve(),
  };
  return { guard, seen };
}

Deno.test("the join shell writes 0 into every tasks file, then runs the program with its arguments as they are", () =>
  withTempDir(async (dir) => {
    for (const f of ["a", "b"]) await Deno.writeTextFile(join(dir, f), "");
    const planted = join(dir, "planted");
    const hostile = ["a b", "$(touch " + planted + ")", "'; touch " + planted + "; '", "$1"];
    const out = await run(joinCommand(
      {
        required: [join(dir, "a")],
        // An optional file that cannot be written is passed over, whatever its name says.
        optional: [join(dir, "b"), join(dir, "missing", `$(touch ${planted})`)],
        joined: () => {},
      },
      "/bin/echo",
      hostile,
    ));
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, hostile.join(" ") + "\n");
    assert.equal(out.stderr, "");
    for (const f of ["a", "b"]) assert.equal(await Deno.readTextFile(join(dir, f)), "0\n");
    await assert.rejects(Deno.stat(planted), Deno.errors.NotFound);
  }));

Deno.test("a child that cannot join a group it must be in runs nothing, and says so without the path", () =>
  withTempDir(async (dir) => {
    const marker = join(dir, "ran");
    const out = await run(joinCommand(
      { required: [join(dir, "gone", "tasks")], optional: [], joined: () => {} },
      "/usr/bin/touch",
      [marker],
    ));
    assert.equal(out.code, JOIN_FAILED_STATUS);
    assert.equal(out.stderr.trim(), JOIN_FAILED_MESSAGE);
    assert.equal(out.stdout, "");
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
  }));

Deno.test("a sandbox child joins through the shell and the host never moves it, unless the guard offers no join; a failed join never says ready", () =>
  withTempDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "mem"), "");
    await Deno.writeTextFile(join(dir, "cpu"), "");
    const env = await childEnvironment();
    const ok = recordingGroup(dir, ["mem"], ["cpu"]);
    const spawnIn = (guard: MemoryGuard) =>
      SandboxChild.spawn({
        env: { ...env, memoryGuard: guard },
        policy: { heapMiB: 64, netAllow: [] },
        limits: TEST_STREAM_LIMITS,
        memoryBytes: 1 << 28,
      });
    {
      await using child = await spawnIn(ok.guard);
      await child.ready;
      assert.ok(child.alive, "the child said ready and lives");
      assert.deepEqual(ok.seen, { added: [], joined: [child.pid], removed: false });
      assert.equal(await Deno.readTextFile(join(dir, "mem")), "0\n");
      assert.equal(await Deno.readTextFile(join(dir, "cpu")), "0\n");
    }
    // A guard that offers no self-join (cgroup v2) has the host move the child, as before.
    const moved = recordingGroup(dir, ["mem"], []);
    const { selfJoin: _, ...hostMoves } = await moved.guard.create(1 << 28) as ChildGroup;
    {
      await using child = await spawnIn({
        ...moved.guard,
        create: () => Promise.resolve(hostMoves),
      });
      await child.ready;
      assert.deepEqual(moved.seen, { added: [child.pid], joined: [], removed: false });
    }
    const refused = recordingGroup(dir, ["missing/tasks"], []);
    const child = await spawnIn(refused.guard);
    const exit = await child.exited;
    assert.equal(exit.code, JOIN_FAILED_STATUS);
    assert.match(exit.stderr, new RegExp(JOIN_FAILED_MESSAGE));
    assert.doesNotMatch(exit.stderr, /missing/);
    assert.deepEqual(refused.seen.added, []);
  }));

/** The group path of `pid` in the v1 hierarchy of `controller`. */
async function v1Path(pid: number, controller: string): Promise<string | undefined> {
  const cgroups = await Deno.readTextFile(`/proc/${pid}/cgroup`);
  return new RegExp(`^\\d+:[^:]*\\b${controller}\\b[^:]*:(.*)$`, "m").exec(cgroups)?.[1];
}

Deno.test("on this host's cgroup v1 groups a child is in its memory, pids and CPU groups before it runs", async () => {
  const guard = await detectMemoryGuard("auto");
  try {
    if (guard.kind !== "cgroup-v1") {
      // Only v1 lets a process join without the global lock; other guards move it from the host.
      assert.equal((await guard.create(64 << 20))?.selfJoin, undefined);
      return;
    }
    for (const cpuPercent of [undefined, 50]) {
      const group = (await guard.create(64 << 20, cpuPercent ? { cpuPercent } : {}))!;
      const join = group.selfJoin!();
      // `cat` reads its own groups: what the program sees from its first instruction.
      const out = await run(joinCommand(join, "/bin/cat", ["/proc/self/cgroup"]));
      await group.remove();
      assert.equal(out.code, 0, out.stderr);
      const own = (controller: string) =>
        new RegExp(`^\\d+:[^:]*\\b${controller}\\b[^:]*:(.*)$`, "m").exec(out.stdout)?.[1];
      const name = /\/(c\d+-[^/]+)\/tasks$/.exec(join.required[0])?.[1];
      assert.ok(name, join.required[0]);
      assert.ok(own("memory")?.endsWith(`/${name}`), out.stdout);
      if (guard.enforces.pids) assert.ok(own("pids")?.endsWith(`/${name}`), out.stdout);
      if (guard.enforces.cpu) {
        // The shared low-share group, or the child's own quota group when it asked for one.
        const cpu = own("cpu")!;
        assert.match(cpu, cpuPercent ? new RegExp(`/${name}$`) : /cordon-[\d-]+-[0-9a-f]{8}$/);
      }
    }
    // A joined child's later quota moves it with the host's write, as a pooled child's run does.
    const group = (await guard.create(64 << 20))!;
    const join = group.selfJoin!();
    const name = /\/(c\d+-[^/]+)\/tasks$/.exec(join.required[0])![1];
    const command = joinCommand(join, "/bin/sleep", ["5"]);
    const sleeper = new Deno.Command(command.program, { args: command.args }).spawn();
    try {
      join.joined(sleeper.pid);
      for (let i = 0; i < 200 && !(await v1Path(sleeper.pid, "memory"))?.endsWith(name); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok((await v1Path(sleeper.pid, "memory"))?.endsWith(`/${name}`));
      if (guard.enforces.cpu) {
        assert.deepEqual(await group.apply({ memoryBytes: 64 << 20, cpuPercent: 20 }), []);
        assert.ok((await v1Path(sleeper.pid, "cpu"))?.endsWith(`/${name}`));
      }
    } finally {
      sleeper.kill("SIGKILL");
      await sleeper.status;
      await group.remove();
    }
  } finally {
    await guard.dispose();
  }
});
