import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CordonError,
  createRuntime,
  type ErrorCode,
  parseArtifactRef,
  type Runtime,
  type RuntimeOptions,
} from "../../../mod.ts";

function open(options: RuntimeOptions = {}): Promise<Runtime> {
  return createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off", ...options });
}

async function sha256(data: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fails(code: ErrorCode): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof CordonError, String(err));
    assert.equal(err.code, code, err.message);
    return true;
  };
}

const text = (data: Uint8Array | undefined) => new TextDecoder().decode(data);

Deno.test("saveArtifact() numbers versions from 1; artifact() reads the newest or one version", async () => {
  await using rt = await open();
  const first = await rt.saveArtifact({ name: "reports/q1.csv", data: "a,b\n1,2\n" });
  assert.deepEqual(
    { ...first, createdAt: 0 },
    {
      name: "reports/q1.csv",
      version: 1,
      mimeType: "text/csv; charset=utf-8",
      size: 8,
      sha256: await sha256(new TextEncoder().encode("a,b\n1,2\n")),
      createdAt: 0,
      ref: "reports/q1.csv@1",
      namespace: "default",
    },
  );
  const second = await rt.saveArtifact({
    name: "reports/q1.csv",
    data: "a,b\n3,4\n",
    sourceExecutionId: "exec_123",
  });
  assert.equal(second.version, 2);
  assert.equal(second.ref, "reports/q1.csv@2");
  assert.equal(second.sourceExecutionId, "exec_123");

  const newest = await rt.artifact("reports/q1.csv");
  assert.equal(text(newest?.data), "a,b\n3,4\n");
  assert.deepEqual(newest?.info, second);
  assert.equal(text((await rt.artifact("reports/q1.csv@1"))?.data), "a,b\n1,2\n");
  assert.equal(text((await rt.artifact("artifact://reports/q1.csv"))?.data), "a,b\n3,4\n");
  assert.equal(text((await rt.artifact("artifact://reports/q1.csv@1"))?.data), "a,b\n1,2\n");
  assert.equal(await rt.artifact("reports/q1.csv@3"), undefined);
  assert.equal(await rt.artifact("reports/q2.csv"), undefined);
  await assert.rejects(rt.artifact("reports/q1.csv@0"), fails("invalid_request"));
});

Deno.test("saveArtifact() picks a media type from the name, the data, or the caller", async () => {
  await using rt = await open();
  const type = async (name: string, data: string | Uint8Array, mimeType?: string) =>
    (await rt.saveArtifact({ name, data, mimeType })).mimeType;
  assert.equal(await type("notes.md", "# hi"), "text/markdown; charset=utf-8");
  assert.equal(await type("data.json", "{}"), "application/json");
  assert.equal(await type("chart.PNG", new Uint8Array([137, 80])), "image/png");
  assert.equal(await type("plain", "words"), "text/plain; charset=utf-8");
  assert.equal(await type("blob", new Uint8Array([1])), "application/octet-stream");
  assert.equal(await type("x.constructor", new Uint8Array([1])), "application/octet-stream");
  assert.equal(await type("dir.v2/file", "words"), "text/plain; charset=utf-8");
  assert.equal(
    await type("custom.bin", "x", "application/vnd.acme+json"),
    "application/vnd.acme+json",
  );
});

Deno.test("saveArtifact() round-trips binary data byte for byte, with its SHA-256", async () => {
  await using rt = await open();
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  const random = new Uint8Array(1024 * 1024);
  for (let i = 0; i < random.length; i += 65_536) {
    crypto.getRandomValues(random.subarray(i, i + 65_536));
  }
  for (const [name, data] of [["bytes/every", every], ["bytes/random", random]] as const) {
    const saved = await rt.saveArtifact({ name, data });
    assert.equal(saved.size, data.byteLength);
    assert.equal(saved.sha256, await sha256(data));
    data[0] ^= 0xff; // the caller's buffer is not the stored one
    const read = await rt.artifact(name);
    assert.ok(read);
    data[0] ^= 0xff;
    assert.equal(Object.getPrototypeOf(read.data), Uint8Array.prototype);
    assert.deepEqual(read.data, data);
    assert.equal(await sha256(read.data), saved.sha256);
  }
  const empty = await rt.saveArtifact({ name: "empty", data: new Uint8Array(0) });
  assert.equal(empty.size, 0);
  assert.equal((await rt.artifact("empty"))?.data.byteLength, 0);
});

Deno.test("artifacts() lists the newest version of each name by prefix, paged by cursor", async () => {
  await using rt = await open();
  for (const name of ["c.txt", "b/2.txt", "a.txt", "b/1.txt", "b/2.txt", "b/3.txt", "bz.txt"]) {
    await rt.saveArtifact({ name, data: name });
  }
  const all = await rt.artifacts();
  assert.deepEqual(all.items.map((i) => i.ref), [
    "a.txt@1",
    "b/1.txt@1",
    "b/2.txt@2",
    "b/3.txt@1",
    "bz.txt@1",
    "c.txt@1",
  ]);
  assert.equal(all.nextCursor, undefined);
  assert.ok(all.items.every((i) => !("data" in i)));

  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await rt.artifacts({ limit: 4, cursor });
    seen.push(...page.items.map((i) => i.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 2);
  assert.deepEqual(seen, all.items.map((i) => i.name));

  const b = await rt.artifacts({ prefix: "b/", limit: 2 });
  assert.deepEqual(b.items.map((i) => i.name), ["b/1.txt", "b/2.txt"]);
  const rest = await rt.artifacts({ prefix: "b/", cursor: b.nextCursor });
  assert.deepEqual(rest.items.map((i) => i.name), ["b/3.txt"]);
  assert.equal(rest.nextCursor, undefined);
  assert.deepEqual((await rt.artifacts({ prefix: "zz" })).items, []);
  // `_` and `%` are plain characters in a prefix, not patterns.
  assert.deepEqual((await rt.artifacts({ prefix: "b_" })).items, []);
  await assert.rejects(rt.artifacts({ cursor: "not a cursor!" }), fails("invalid_request"));
  await assert.rejects(rt.artifacts({ limit: 0 }), fails("invalid_request"));
  await assert.rejects(rt.artifacts({ limit: 501 }), fails("invalid_request"));
});

Deno.test("artifactVersions() lists newest first; deleteArtifact() removes one version or all", async () => {
  await using rt = await open();
  for (const data of ["one", "two", "three"]) await rt.saveArtifact({ name: "log.txt", data });
  assert.deepEqual((await rt.artifactVersions("log.txt")).map((v) => v.version), [3, 2, 1]);
  assert.deepEqual(await rt.artifactVersions("nothing"), []);

  assert.equal(await rt.deleteArtifact("log.txt", { version: 2 }), true);
  assert.equal(await rt.deleteArtifact("log.txt", { version: 2 }), false);
  assert.deepEqual((await rt.artifactVersions("log.txt")).map((v) => v.version), [3, 1]);
  assert.equal(await rt.artifact("log.txt@2"), undefined);
  assert.equal(text((await rt.artifact("log.txt@1"))?.data), "one");

  assert.equal(await rt.deleteArtifact("log.txt"), true);
  assert.equal(await rt.deleteArtifact("log.txt"), false);
  assert.equal(await rt.artifact("log.txt"), undefined);
  assert.deepEqual((await rt.artifacts()).items, []);
  await assert.rejects(rt.deleteArtifact("log.txt", { version: 0 }), fails("invalid_request"));
  await assert.rejects(rt.deleteArtifact("../log.txt"), fails("invalid_request"));
});

Deno.test("saveArtifact() gives concurrent saves of one name distinct versions", async () => {
  await using rt = await open();
  const saved = await Promise.all(
    Array.from({ length: 10 }, (_, i) => rt.saveArtifact({ name: "race", data: String(i) })),
  );
  assert.deepEqual(saved.map((s) => s.version).sort((a, b) => a - b), [
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
  ]);
});

Deno.test("artifacts are isolated by namespace", async () => {
  await using rt = await open();
  await rt.saveArtifact({ name: "shared.txt", data: "acme", namespace: "acme" });
  await rt.saveArtifact({ name: "shared.txt", data: "globex", namespace: "globex" });
  const acme = await rt.saveArtifact({ name: "shared.txt", data: "acme 2", namespace: "acme" });
  assert.equal(acme.version, 2);
  assert.equal(acme.namespace, "acme");

  assert.equal(text((await rt.artifact("shared.txt", { namespace: "globex" }))?.data), "globex");
  assert.equal(text((await rt.artifact("shared.txt", { namespace: "acme" }))?.data), "acme 2");
  assert.equal(await rt.artifact("shared.txt"), undefined, "the default namespace has none");
  assert.equal(await rt.artifact("shared.txt@2", { namespace: "globex" }), undefined);
  assert.deepEqual((await rt.artifacts()).items, []);
  assert.deepEqual(
    (await rt.artifacts({ namespace: "globex" })).items.map((i) => [i.ref, i.namespace]),
    [["shared.txt@1", "globex"]],
  );
  assert.equal(await rt.deleteArtifact("shared.txt", { namespace: "default" }), false);
  assert.equal(await rt.deleteArtifact("shared.txt", { namespace: "globex" }), true);
  assert.equal((await rt.artifactVersions("shared.txt", { namespace: "acme" })).length, 2);
  await assert.rejects(rt.artifacts({ namespace: "Not Valid" }), fails("invalid_request"));
});

Deno.test("saveArtifact() refuses bad names, media types and oversize data, storing nothing", async () => {
  await using rt = await open({ artifacts: { maxBytes: 1024 } });
  const badNames = [
    "../x",
    "a/../b",
    "./x",
    "/abs",
    "a/",
    "a//b",
    "",
    ".hidden",
    "x@1",
    "artifact://x",
    "a b",
    "a\\b",
    "é.txt",
    "x".repeat(129),
    Array.from({ length: 9 }, () => "d").join("/"),
    Array.from({ length: 3 }, () => "y".repeat(100)).join("/"),
  ];
  for (const name of badNames) {
    await assert.rejects(rt.saveArtifact({ name, data: "x" }), fails("invalid_request"), name);
  }
  await assert.rejects(
    rt.saveArtifact({ name: "x", data: "x", mimeType: "nonsense" }),
    fails("invalid_request"),
  );
  await assert.rejects(
    rt.saveArtifact({ name: "x", data: 42 as unknown as string }),
    fails("invalid_request"),
  );
  await assert.rejects(
    rt.saveArtifact({ name: "x", data: "x", namespace: "UPPER" }),
    fails("invalid_request"),
  );
  await assert.rejects(
    rt.saveArtifact({ name: "big.bin", data: new Uint8Array(1025) }),
    (err) => {
      fails("limit_exceeded")(err);
      assert.deepEqual((err as CordonError).details, { size: 1025, maxBytes: 1024 });
      return true;
    },
  );
  // The cap counts UTF-8 bytes, not characters: 513 × "é" is 1,026 bytes.
  await assert.rejects(
    rt.saveArtifact({ name: "big.txt", data: "é".repeat(513) }),
    fails("limit_exceeded"),
  );
  assert.deepEqual((await rt.artifacts()).items, [], "nothing was stored");

  const atCap = await rt.saveArtifact({ name: "fits.bin", data: new Uint8Array(1024) });
  assert.equal(atCap.size, 1024);
  const longest = `${"z".repeat(128)}/${"z".repeat(127)}`; // 256 characters in all
  assert.equal((await rt.saveArtifact({ name: longest, data: "" })).name, longest);

  await assert.rejects(open({ artifacts: { maxBytes: 0 } }), fails("invalid_request"));
  await assert.rejects(open({ artifacts: { maxBytes: 2e9 } }), fails("invalid_request"));
});

Deno.test("parseArtifactRef() takes name, name@version and artifact:// forms apart", () => {
  assert.deepEqual(parseArtifactRef("a.txt"), { name: "a.txt" });
  assert.deepEqual(parseArtifactRef("dir/a.txt@12"), { name: "dir/a.txt", version: 12 });
  assert.deepEqual(parseArtifactRef("artifact://dir/a.txt"), { name: "dir/a.txt" });
  assert.deepEqual(parseArtifactRef("artifact://a@3"), { name: "a", version: 3 });
  for (
    const bad of [
      "",
      "a@",
      "a@0",
      "a@01",
      "a@1.5",
      "a@-1",
      "a@1@2",
      "artifact://",
      "artifact://../a",
      "file://a",
      "a@99999999999999999",
    ]
  ) {
    assert.throws(() => parseArtifactRef(bad), fails("invalid_request"), bad);
  }
});

Deno.test("artifacts survive closing and reopening a file database", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-artifacts-" });
  try {
    const db = `file:${join(dir, "cordon.db")}`;
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
    {
      await using rt = await open({ db });
      await rt.saveArtifact({ name: "keep/me.bin", data: bytes });
      await rt.saveArtifact({ name: "keep/me.bin", data: "second" });
    }
    await using rt = await open({ db });
    assert.deepEqual((await rt.artifact("keep/me.bin@1"))?.data, bytes);
    assert.equal((await rt.saveArtifact({ name: "keep/me.bin", data: "third" })).version, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("artifact methods of a closed runtime throw runtime_closed", async () => {
  const rt = await open();
  await rt.close();
  await assert.rejects(rt.saveArtifact({ name: "x", data: "x" }), fails("runtime_closed"));
  await assert.rejects(rt.artifacts(), fails("runtime_closed"));
  await assert.rejects(rt.artifact("x"), fails("runtime_closed"));
});

Deno.test("a deleted version's number is never given again", async () => {
  const { createRuntime } = await import("../../../mod.ts");
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
  await rt.saveArtifact({ name: "r.txt", data: "one" });
  await rt.saveArtifact({ name: "r.txt", data: "two" });
  assert.equal(await rt.deleteArtifact("r.txt", { version: 2 }), true);
  assert.equal((await rt.saveArtifact({ name: "r.txt", data: "three" })).version, 3);
  assert.equal(await rt.deleteArtifact("r.txt"), true);
  assert.equal((await rt.saveArtifact({ name: "r.txt", data: "four" })).version, 4);
  assert.equal(await rt.artifact("r.txt@2"), undefined);
});
