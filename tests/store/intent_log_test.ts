/**
 * The intent log of a `file:` store: a call's entry is on disk before its effect, its lines go
 * once the store holds them, and the log of a process that died is taken into the store by the
 * next one, never the log of one still alive.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { withExecutionDb } from "../_helpers/store_db.ts";
import { appendStatement, CallStore, finishStatement } from "../../src/store/calls.ts";
import { IntentLog, intentsDir } from "../../src/store/intent_log.ts";
import { CommitQueue } from "../../src/engine/execution/commit_queue.ts";
import type { Db } from "../../src/store/client.ts";
import { exists } from "../_helpers/files.ts";

const entry = (seq: number) => ({
  executionId: "exec_1",
  seq,
  connector: "shop",
  tool: "charge",
  kind: "tool" as const,
  state: "executing" as const,
  startedAt: 1_000 + seq,
});

async function withFileDb(body: (db: Db, path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cordon-intents-" });
  const path = join(dir, "cordon.db");
  try {
    await withExecutionDb((db) => body(db, path), pathToFileURL(path).href);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const lines = (path: string) => Deno.readTextFileSync(path).split("\n").filter(Boolean);
const states = async (db: Db) =>
  (await db.execute("SELECT seq, state FROM calls ORDER BY seq")).rows.map((r) => [
    Number(r.seq),
    r.state,
  ]);

Deno.test("an entry written ahead is in the intent log at once, and leaves it once committed", async () => {
  await withFileDb(async (db) => {
    const intents = db.intents!;
    assert.ok(intents, "a file: store has an intent log");
    // It holds calls' arguments: only its owner may read it.
    assert.equal((await Deno.stat(intents.path)).mode! & 0o777, 0o600);
    const queue = new CommitQueue(new CallStore(db));
    await queue.writeAhead(appendStatement(entry(1), '{"cents":100}'));
    // On disk before anything else happens; not in the store yet.
    assert.equal(lines(intents.path).length, 1);
    assert.deepEqual(JSON.parse(lines(intents.path)[0]).slice(0, 5), [
      "exec_1",
      1,
      "shop",
      "charge",
      '{"cents":100}',
    ]);
    assert.deepEqual(await states(db), []);
    queue.writeBehind(finishStatement("exec_1", 1, "applied", { resultJson: "1" }));
    await queue.flush();
    // Folded: inserted as it ended; the log is empty again.
    assert.deepEqual(await states(db), [[1, "applied"]]);
    assert.deepEqual(lines(intents.path), []);
  });
});

Deno.test("how an earlier call ended, queued behind, is in the intent log before the next call's effect, and comes back from it", async () => {
  await withFileDb(async (db) => {
    const intents = db.intents!;
    const calls = new CallStore(db);
    const queue = new CommitQueue(calls);
    await queue.writeAhead(appendStatement(entry(1), "{}"));
    queue.writeBehind(finishStatement("exec_1", 1, "applied", { resultJson: "1" })).catch(() => {});
    await queue.writeAhead(appendStatement(entry(2), "{}"));
    // The second call may run now: the first one's ending is on disk with its entry.
    const logged = lines(intents.path);
    assert.deepEqual(logged.map((l) => JSON.parse(l).slice(0, 2)), [
      ["exec_1", 1],
      ["applied", "1"],
      ["exec_1", 2],
    ]);
    assert.deepEqual(await states(db), []);
    await queue.flush();
    // As if the process had died before its commit: the store lacks them, a dead log has them.
    await db.execute("DELETE FROM calls");
    Deno.writeTextFileSync(join(intents.dir, "dead.log"), logged.join("\n") + "\n");
    assert.equal(await calls.recoverIntents(), 1);
    assert.deepEqual(await states(db), [[1, "applied"], [2, "executing"]]);
  });
});

Deno.test("the intent log of a process that died is taken into the store; a live one's is not", async () => {
  await withFileDb(async (db, path) => {
    const calls = new CallStore(db);
    // Two other "processes": one alive (its log locked), one dead (its log left unlocked).
    const alive = IntentLog.open(path);
    alive.record(appendStatement(entry(5), "{}"));
    const dead = IntentLog.open(path);
    dead.record(appendStatement(entry(1), "{}"));
    dead.record(appendStatement(entry(2), "{}"));
    dead.record(appendStatement({ ...entry(3), executionId: "exec_gone" }, "{}"));
    const deadPath = dead.path;
    // Entry 2 is in the store already, as it ended: the log must not undo that.
    await db.execute(appendStatement({ ...entry(2), state: "applied" }, "{}"));
    // A crash leaves the file (and its lock goes with the process); a torn last line too.
    Deno.writeTextFileSync(deadPath, '["exec_1", 4, "sh', { append: true });
    const copy = Deno.readFileSync(deadPath);
    dead.close(); // with entries pending it keeps the file
    Deno.writeFileSync(deadPath, copy);

    assert.equal(await calls.recoverIntents(), 1);
    assert.deepEqual(await states(db), [[1, "executing"], [2, "applied"]]);
    assert.ok(!(await exists(deadPath)), "the dead log was not removed");
    assert.ok(await exists(alive.path), "a live process's log was taken");
    assert.equal(lines(alive.path).length, 1);
    // Once it is let go, the next look takes it.
    alive.close();
    assert.equal(await calls.recoverIntents(), 1);
    assert.deepEqual(await states(db), [[1, "executing"], [2, "applied"], [5, "executing"]]);
    const left = [...Deno.readDirSync(intentsDir(path))].map((e) => e.name);
    assert.deepEqual(left, [db.intents!.path.split("/").at(-1)]);
  });
});

Deno.test("closing a store removes its intent log when the store holds everything", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-intents-" });
  try {
    const path = join(dir, "cordon.db");
    let logPath = "";
    await withExecutionDb(async (db) => {
      logPath = db.intents!.path;
      const queue = new CommitQueue(new CallStore(db));
      await queue.writeAhead(appendStatement(entry(1), "{}"));
      await queue.flush();
    }, pathToFileURL(path).href);
    assert.ok(!(await exists(logPath)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("where no intent log can be made, an entry written ahead is committed before it returns", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-intents-" });
  try {
    const path = join(dir, "cordon.db");
    // A file where the folder of intent logs would go.
    await Deno.writeTextFile(intentsDir(path), "not a folder");
    await withExecutionDb(async (db) => {
      assert.equal(db.intents, undefined);
      const queue = new CommitQueue(new CallStore(db));
      await queue.writeAhead(appendStatement(entry(1), "{}"));
      assert.deepEqual(await states(db), [[1, "executing"]]);
    }, pathToFileURL(path).href);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a busy log moves to a new file once one is full, and removes each full file once the store holds its entries", async () => {
  await withFileDb((_db, path) => {
    const files = () => [...Deno.readDirSync(intentsDir(path))].map((e) => e.name).sort();
    const before = files(); // the store's own log
    const log = IntentLog.open(path, { segmentBytes: 150 });
    const statements = Array.from({ length: 12 }, (_, i) => appendStatement(entry(i + 1), "{}"));
    const paths: string[] = [];
    for (const s of statements) {
      log.record(s);
      if (!paths.includes(log.path)) paths.push(log.path);
    }
    // Two entries a file (each line is about 75 bytes).
    assert.ok(paths.length >= 4, `${paths.length} files`);
    assert.equal(files().length, before.length + paths.length);
    // The first half committed: the full files holding only those go; the rest stay.
    log.committed(statements.slice(0, 6));
    const left = files().filter((f) => !before.includes(f));
    assert.ok(left.length < paths.length, "no full file was removed");
    const kept = paths.filter((p) => left.includes(p.split("/").at(-1)!));
    const keptLines = kept.flatMap(lines).map((l) => JSON.parse(l)[1] as number);
    assert.ok(keptLines.every((seq) => seq > 6), `kept ${keptLines}`);
    assert.ok([7, 8, 9, 10, 11, 12].every((seq) => keptLines.includes(seq)), `kept ${keptLines}`);
    // All committed: only the current file is left, empty.
    log.committed(statements.slice(6));
    assert.deepEqual(files().filter((f) => !before.includes(f)), [log.path.split("/").at(-1)]);
    assert.deepEqual(lines(log.path), []);
    log.close();
    assert.deepEqual(files(), before);
    return Promise.resolve();
  });
});

Deno.test("once the store is lost, nothing more is written ahead: the call fails before its effect", async () => {
  await withFileDb(async (db, path) => {
    const queue = new CommitQueue(new CallStore(db));
    await queue.writeAhead(appendStatement(entry(1), "{}"));
    await queue.flush();
    await Deno.remove(path);
    // The next commit notices the file is gone and loses the store.
    await assert.rejects(() => queue.write(appendStatement(entry(2), "{}")), /deleted/);
    await assert.rejects(
      () => queue.writeAhead(appendStatement(entry(3), "{}")),
      (err: Error & { code?: string }) => err.code === "store_unavailable",
    );
    assert.deepEqual(lines(db.intents!.path), []);
  });
});
