/**
 * Crash recovery and sharing one database file between processes, with a
 * real host process (tests/fixtures/crash_host.ts) killed by SIGKILL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CordonError, createRuntime, type Runtime } from "../../../mod.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";
import { durableWorld, readEffects } from "../../_helpers/world.ts";
import { FROZEN_RUN_FLAGS } from "../../_helpers/deno_run.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const HOST = fileURLToPath(new URL("../../fixtures/crash_host.ts", import.meta.url));

interface HostEvent {
  event: string;
  // deno-lint-ignore no-explicit-any
  out?: any;
  sandboxPids?: number[];
}

/** A host process running the runtime on `db`, with its stdout read as events. */
class Host {
  readonly process: Deno.ChildProcess;
  #lines: AsyncIterator<string>;
  #buffer = "";
  #reader: ReadableStreamDefaultReader<string>;

  constructor(db: string, effects: string, mode: "pause" | "hang" | "die") {
    this.process = new Deno.Command(Deno.execPath(), {
      args: ["run", ...FROZEN_RUN_FLAGS, "--allow-all", HOST, db, effects, mode],
      cwd: ROOT,
      stdout: "piped",
      stderr: "inherit",
      stdin: "null",
    }).spawn();
    this.#reader = this.process.stdout.pipeThrough(new TextDecoderStream()).getReader();
    this.#lines = this.#iterate();
  }

  async *#iterate(): AsyncGenerator<string> {
    while (true) {
      const nl = this.#buffer.indexOf("\n");
      if (nl !== -1) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        yield line;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return;
      this.#buffer += value;
    }
  }

  /** The next event named `name` (others are skipped). */
  async until(name: string): Promise<HostEvent> {
    while (true) {
      const { value, done } = await this.#lines.next();
      if (done) throw new Error(`The host ended before "${name}"`);
      const event = JSON.parse(value) as HostEvent;
      if (event.event === name) return event;
    }
  }

  async kill(): Promise<void> {
    this.process.kill("SIGKILL");
    const status = await this.process.status;
    assert.equal(status.signal, "SIGKILL");
    await this.#reader.cancel().catch(() => {});
  }
}

/** True while `pid` is a live (not zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined> | T | undefined) {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

async function withFiles(fn: (db: string, effects: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cordon-crash-" });
  try {
    await fn(pathToFileURL(join(dir, "cordon.db")).href, join(dir, "effects.log"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  await assertNoSandboxChildren();
}

async function openSurvivor(db: string, effects: string): Promise<Runtime> {
  return await createRuntime({
    db,
    connectors: durableWorld(effects),
    pool: { size: 0 },
    durability: { leaseMs: 300 },
  });
}

Deno.test("a host killed while a run is paused loses nothing: another process approves it", async () => {
  await withFiles(async (db, effects) => {
    const host = new Host(db, effects, "pause");
    const { out, sandboxPids } = await host.until("result");
    assert.equal(out.status, "paused");
    assert.equal(sandboxPids?.length, 1, "the paused child is held by the host");
    await host.kill();
    // The held child sees its stdin close and exits on its own: no orphan.
    await waitFor(
      "the orphaned child to exit",
      () => sandboxPids!.every((p) => !alive(p)) || undefined,
    );
    assert.deepEqual(readEffects(effects), ["charge:250"]);

    await using survivor = await openSurvivor(db, effects);
    const stored = await survivor.execution(out.executionId);
    assert.equal(stored?.status, "paused");
    assert.deepEqual((await survivor.pending()).map((p) => [p.executionId, p.tool]), [
      [out.executionId, "send"],
    ]);
    const done = await survivor.approve(out.executionId);
    assert.equal(done.status, "completed", Deno.inspect(done));
    assert.deepEqual((done as { result: unknown }).result, {
      c: { charged: 250 },
      s: "sent:ada",
    });
    assert.equal(done.meta.replayed, true);
    // The charge was answered from the log, not made again.
    assert.deepEqual(readEffects(effects), ["charge:250", "send:ada"]);
    await assert.rejects(
      survivor.approve(out.executionId),
      (e: unknown) => e instanceof CordonError && e.code === "invalid_state",
    );
  });
});

Deno.test("a host killed in the middle of a run: the run becomes interrupted on restart", async () => {
  await withFiles(async (db, effects) => {
    const host = new Host(db, effects, "hang");
    const { sandboxPids } = await host.until("hanging");
    assert.equal(sandboxPids?.length, 1);
    await host.kill();
    await waitFor(
      "the orphaned child to exit",
      () => sandboxPids!.every((p) => !alive(p)) || undefined,
    );

    await using survivor = await openSurvivor(db, effects);
    const [running] = (await survivor.executions()).items;
    // The dead host's lease runs out (300 ms), then the survivor's heartbeat marks the run.
    const ended = await waitFor("the run to be marked interrupted", async () => {
      const d = await survivor.execution(running.executionId);
      return d?.status === "running" ? undefined : d;
    });
    assert.equal(ended.status, "error");
    assert.equal(ended.error?.code, "interrupted");
    assert.deepEqual(ended.calls.map((c) => [c.tool, c.state]), [
      ["charge", "applied"],
      ["hang", "executing"],
    ]);
    assert.deepEqual(readEffects(effects), ["charge:100"]);
    // The survivor runs new work as usual.
    const next = await survivor.execute({ code: "return 1 + 1" });
    assert.equal(next.status, "completed");
  });
});

Deno.test("a host killed right after a call's effect: its entry, only in the intent log then, is there on restart", async () => {
  await withFiles(async (db, effects) => {
    const host = new Host(db, effects, "die");
    const status = await host.process.status;
    assert.equal(status.signal, "SIGKILL");
    await host.kill().catch(() => {});
    assert.deepEqual(readEffects(effects), ["charge:100", "die"]);
    const folder = `${fileURLToPath(db)}-cordon-intents`;
    // Killed within the same millisecond or so: the entry had not reached the store.
    const lines = [...Deno.readDirSync(folder)].flatMap((e) =>
      Deno.readTextFileSync(join(folder, e.name)).split("\n").filter(Boolean)
    );
    assert.ok(lines.some((l) => l.includes('"die"')), lines.join("\n"));

    await using survivor = await openSurvivor(db, effects);
    const [running] = (await survivor.executions()).items;
    const ended = await waitFor("the run to be marked interrupted", async () => {
      const d = await survivor.execution(running.executionId);
      return d?.status === "running" ? undefined : d;
    });
    assert.equal(ended.error?.code, "interrupted");
    // The call whose effect happened is in the log, so nothing runs it again.
    const die = ended.calls.find((c) => c.tool === "die");
    assert.equal(die?.state, "executing");
    assert.deepEqual(ended.calls.map((c) => c.tool), ["charge", "die"]);
    // The dead process's intent log was taken in and removed.
    assert.deepEqual(
      [...Deno.readDirSync(folder)].filter((e) => e.name.endsWith(".log")).length,
      1, // the survivor's own
    );
  });
});

Deno.test("two processes on one database file: pause in one, approve in the other", async () => {
  await withFiles(async (db, effects) => {
    const host = new Host(db, effects, "pause");
    try {
      const { out } = await host.until("result");
      assert.equal(out.status, "paused");
      await using other = await openSurvivor(db, effects);
      // The host is alive and renewing nothing (the run is paused, not owned): the other
      // process may take it, and replays it since it does not hold the child.
      const done = await other.approve(out.executionId);
      assert.equal(done.status, "completed", Deno.inspect(done));
      assert.equal(done.meta.replayed, true);
      assert.deepEqual(readEffects(effects), ["charge:250", "send:ada"]);
      const stored = await other.execution(out.executionId);
      assert.deepEqual(stored?.calls.map((c) => [c.seq, c.tool, c.state]), [
        [1, "charge", "applied"],
        [2, "send", "applied"],
      ]);
      // A run the other process still runs is not taken for dead while its lease is renewed.
      const running = await other.execute({ code: "return 'mine'" });
      assert.equal(running.status, "completed");
    } finally {
      await host.kill();
    }
  });
});
