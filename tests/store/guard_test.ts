/**
 * The store notices when it can no longer keep what it acknowledges: its file deleted,
 * replaced or truncated, its write-ahead log deleted, a full disk. Real libSQL files in a
 * temp directory; the full disk is a real 1 MiB tmpfs where this host lets the test mount one.
 */
import assert from "node:assert/strict";
import { CordonError } from "../../src/errors.ts";
import { type Db, openDb } from "../../src/store/client.ts";
import { fatalStoreCode, StoreGuard, WAL_CHECK_EVERY } from "../../src/store/guard.ts";

async function fileStore(): Promise<{ db: Db; path: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "cordon-guard-" });
  const path = `${dir}/cordon.db`;
  const db = await openDb(`file:${path}`);
  await db.execute("CREATE TABLE t (x TEXT)");
  await db.execute({ sql: "INSERT INTO t VALUES (?)", args: ["kept"] });
  return {
    db,
    path,
    async [Symbol.asyncDispose]() {
      db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function assertUnavailable(p: Promise<unknown>, reason: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof CordonError, String(err));
    assert.equal(err.code, "store_unavailable");
    assert.match(err.message, reason);
    return true;
  });
}

const insert = (x: string) => ({ sql: "INSERT INTO t VALUES (?)", args: [x] });

Deno.test("openDb() file store: a write after its file is deleted fails store_unavailable, and so does everything after", async () => {
  await using s = await fileStore();
  assert.deepEqual(s.db.health(), { ok: true });
  await Deno.remove(s.path);
  await assertUnavailable(s.db.execute(insert("lost")), /was deleted/);
  assert.equal(s.db.health().ok, false);
  // Lost for good: reads would answer from a file no restart will see.
  await assertUnavailable(s.db.execute("SELECT count(*) AS n FROM t"), /was deleted/);
  await assertUnavailable(s.db.batch([insert("lost too")]), /was deleted/);
});

Deno.test("openDb() file store: health() notices a deleted file without a write", async () => {
  await using s = await fileStore();
  await Deno.remove(s.path);
  const health = s.db.health();
  assert.equal(health.ok, false);
  assert.match(health.ok ? "" : health.reason, /database file was deleted/);
  assert.ok(!JSON.stringify(health).includes(s.path), "no host path in the reason");
});

Deno.test("openDb() file store: a truncated file fails the next batch store_unavailable", async () => {
  await using s = await fileStore();
  await Deno.truncate(s.path, 0);
  await assertUnavailable(s.db.batch([insert("a"), insert("b")]), /was truncated/);
  assert.equal(s.db.health().ok, false);
});

Deno.test("openDb() file store: a file overwritten in place (same size, header gone) fails health()", async () => {
  await using s = await fileStore();
  const file = await Deno.open(s.path, { write: true });
  await file.write(new Uint8Array(100));
  file.close();
  const health = s.db.health();
  assert.match(health.ok ? "" : health.reason, /overwritten/);
  await assertUnavailable(s.db.execute(insert("x")), /overwritten/);
});

Deno.test("openDb() file store: a file replaced by another fails the next write", async () => {
  await using s = await fileStore();
  await Deno.rename(s.path, `${s.path}.moved`);
  await Deno.writeFile(s.path, new Uint8Array(8192));
  await assertUnavailable(s.db.execute(insert("x")), /replaced by another file/);
});

Deno.test("openDb() file store: a deleted write-ahead log fails health() at once and writes within WAL_CHECK_EVERY", async () => {
  await using s = await fileStore();
  await Deno.remove(`${s.path}-wal`);
  const health = s.db.health();
  assert.match(health.ok ? "" : health.reason, /write-ahead log \(-wal file\) was deleted/);
  await assertUnavailable(s.db.execute(insert("x")), /write-ahead log/);
});

Deno.test("openDb() file store: a deleted write-ahead log is noticed by writes alone", async () => {
  await using s = await fileStore();
  await Deno.remove(`${s.path}-wal`);
  let failure: unknown;
  for (let i = 0; i <= WAL_CHECK_EVERY && failure === undefined; i++) {
    await s.db.execute(insert(`row ${i}`)).catch((err) => failure = err);
  }
  assert.ok(failure instanceof CordonError && failure.code === "store_unavailable", `${failure}`);
  assert.match(failure.message, /write-ahead log/);
});

Deno.test("openDb() file store: writes, reads and a constraint error leave a healthy store healthy", async () => {
  await using s = await fileStore();
  await s.db.execute("CREATE TABLE u (k TEXT PRIMARY KEY)");
  await s.db.execute({ sql: "INSERT INTO u VALUES (?)", args: ["k"] });
  await assert.rejects(s.db.execute({ sql: "INSERT INTO u VALUES (?)", args: ["k"] }), (err) => {
    assert.ok(!(err instanceof CordonError), "a constraint is about one statement");
    return true;
  });
  for (let i = 0; i < 50; i++) await s.db.batch([insert(`row ${i}`)]);
  assert.deepEqual(s.db.health(), { ok: true });
  assert.equal((await s.db.execute("SELECT count(*) AS n FROM t")).rows[0].n, 51);
});

Deno.test("StoreGuard.classify(): disk full, I/O and corruption errors lose the store; others do not", () => {
  const guard = new StoreGuard();
  const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY", rawCode: 5 });
  assert.equal(guard.classify(busy), busy);
  assert.deepEqual(guard.health(), { ok: true });
  const full = Object.assign(new Error("database or disk is full"), {
    code: "SQLITE_FULL",
    rawCode: 13,
  });
  const mapped = guard.classify(full);
  assert.ok(mapped instanceof CordonError);
  assert.equal(mapped.code, "store_unavailable");
  assert.match(mapped.message, /the disk is full/);
  const health = guard.health();
  assert.equal(health.ok, false);
  assert.throws(() => guard.assertAvailable(), /disk is full/);
  assert.ok(fatalStoreCode({ rawCode: 10 | (3 << 8) })); // SQLITE_IOERR_WRITE, by number
  assert.equal(fatalStoreCode({ code: "SQLITE_CORRUPT_INDEX" }), "SQLITE_CORRUPT_INDEX");
  assert.equal(fatalStoreCode({ code: "SQLITE_CONSTRAINT_PRIMARYKEY", rawCode: 1555 }), undefined);
});

/** Mounts a tmpfs of `bytes` at a new temp directory, or says why it cannot here. */
async function smallDisk(bytes: number): Promise<{ dir: string } & AsyncDisposable | string> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return "needs root on Linux";
  const dir = await Deno.makeTempDir({ prefix: "cordon-full-" });
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  if (!mount.success) {
    await Deno.remove(dir);
    return "mount -t tmpfs is not permitted in this container";
  }
  return {
    dir,
    async [Symbol.asyncDispose]() {
      // Lazy: the engine may hold the file a moment after close.
      await new Deno.Command("umount", { args: ["-l", dir] }).output();
      await Deno.remove(dir);
    },
  };
}

const disk = await smallDisk(1024 * 1024);

Deno.test({
  name: "openDb() file store: a full disk fails store_unavailable and health says so",
  ignore: typeof disk === "string",
  async fn() {
    if (typeof disk === "string") return;
    await using _disk = disk;
    const db = await openDb(`file:${disk.dir}/cordon.db`);
    try {
      await db.execute("CREATE TABLE t (x TEXT)");
      const row = "x".repeat(64 * 1024);
      let failure: unknown;
      for (let i = 0; i < 64 && failure === undefined; i++) {
        await db.execute(insert(row)).catch((err) => failure = err);
      }
      assert.ok(failure instanceof CordonError, `1 MiB took 4 MiB of rows: ${failure}`);
      assert.equal(failure.code, "store_unavailable");
      assert.match(failure.message, /disk is full|cannot be read or written/);
      assert.equal(db.health().ok, false);
    } finally {
      db.close();
    }
  },
});
if (typeof disk === "string") console.log(`full-disk test ignored: ${disk}`);

Deno.test("openDb() file store: health checks keep the engine's lock, so another process's close leaves the WAL alone", async () => {
  await using store = await fileStore();
  // A full check reads the file's header; before the fix its open/close dropped SQLite's
  // POSIX lock, and the other process below then checkpointed and deleted the -wal file.
  assert.deepEqual(store.db.health(), { ok: true });
  assert.deepEqual(store.db.health(), { ok: true });
  const other = `
    import { openDb } from ${
    JSON.stringify(new URL("../../src/store/client.ts", import.meta.url).href)
  };
    const db = await openDb(${JSON.stringify(`file:${store.path}`)});
    await db.execute({ sql: "INSERT INTO t VALUES (?)", args: ["from another process"] });
    db.close();
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--frozen", "--cached-only", other],
    cwd: new URL("../..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  assert.ok((await Deno.stat(`${store.path}-wal`)).isFile, "the -wal file is still there");
  assert.deepEqual(store.db.health(), { ok: true });
  await store.db.execute({ sql: "INSERT INTO t VALUES (?)", args: ["after"] });
  const rows = (await store.db.execute("SELECT x FROM t ORDER BY rowid")).rows.map((r) => r.x);
  assert.deepEqual(rows, ["kept", "from another process", "after"]);
});
