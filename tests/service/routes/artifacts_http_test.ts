import assert from "node:assert/strict";
import { openService, type TestService } from "../_service.ts";

/** A raw request: the body goes as given, with only the headers named. */
async function send(
  t: TestService,
  method: string,
  path: string,
  body?: BodyInit,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const res = await fetch(`${t.service.url}${path}`, { method, body, headers });
  return {
    status: res.status,
    headers: res.headers,
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

// deno-lint-ignore no-explicit-any -- answers are checked field by field
const json = (r: { bytes: Uint8Array }): any => JSON.parse(new TextDecoder().decode(r.bytes));

async function sha256(data: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("HTTP artifacts: upload, download, new versions, list, versions, delete", async () => {
  await using t = await openService();
  const csv = new TextEncoder().encode("a,b\n1,2\n");
  const put = await send(t, "PUT", "/v1/artifacts/reports/q1.csv", csv, {
    "content-type": "text/csv; charset=utf-8",
  });
  assert.equal(put.status, 201, new TextDecoder().decode(put.bytes));
  const first = json(put);
  assert.equal(first.name, "reports/q1.csv");
  assert.equal(first.version, 1);
  assert.equal(first.mimeType, "text/csv; charset=utf-8");
  assert.equal(first.size, csv.byteLength);
  assert.equal(first.sha256, await sha256(csv));
  assert.equal(first.namespace, "default");
  assert.equal(put.headers.get("location"), "/v1/artifacts/reports/q1.csv?version=1");

  // Binary with its own type, and with none (the type comes from the name).
  const png = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
  assert.equal(
    (await send(t, "PUT", "/v1/artifacts/img/chart.png", png, { "content-type": "image/png" }))
      .status,
    201,
  );
  const untyped = json(await send(t, "PUT", "/v1/artifacts/raw/blob", new Uint8Array([0, 1, 2])));
  assert.equal(untyped.mimeType, "application/octet-stream");

  const got = await send(t, "GET", "/v1/artifacts/img/chart.png");
  assert.equal(got.status, 200);
  assert.equal(got.headers.get("content-type"), "image/png");
  assert.equal(got.headers.get("etag"), `"${await sha256(png)}"`);
  assert.equal(got.headers.get("x-artifact-version"), "1");
  assert.equal(got.headers.get("x-content-type-options"), "nosniff");
  assert.deepEqual(got.bytes, png);
  const cached = await send(t, "GET", "/v1/artifacts/img/chart.png", undefined, {
    "if-none-match": got.headers.get("etag")!,
  });
  assert.equal(cached.status, 304);

  // Uploading again adds a version; the newest is what a bare GET reads.
  const second = json(
    await send(t, "PUT", "/v1/artifacts/reports/q1.csv", "a,b\n3,4\n", {
      "content-type": "text/csv",
    }),
  );
  assert.equal(second.version, 2);
  const newest = await send(t, "GET", "/v1/artifacts/reports/q1.csv");
  assert.equal(new TextDecoder().decode(newest.bytes), "a,b\n3,4\n");
  assert.equal(newest.headers.get("x-artifact-version"), "2");
  assert.equal(newest.headers.get("content-type"), "text/csv");
  const old = await send(t, "GET", "/v1/artifacts/reports/q1.csv?version=1");
  assert.deepEqual(old.bytes, csv);
  assert.equal(old.headers.get("content-type"), "text/csv; charset=utf-8");

  const list = await t.call("GET", "/v1/artifacts");
  assert.equal(list.status, 200);
  assert.deepEqual(list.json.items.map((i: { ref: string }) => i.ref), [
    "img/chart.png@1",
    "raw/blob@1",
    "reports/q1.csv@2",
  ]);
  const reports = await t.call("GET", "/v1/artifacts?prefix=reports/");
  assert.deepEqual(reports.json.items.map((i: { name: string }) => i.name), ["reports/q1.csv"]);
  const page = await t.call("GET", "/v1/artifacts?limit=2");
  assert.equal(page.json.items.length, 2);
  const next = await t.call(
    "GET",
    `/v1/artifacts?limit=2&cursor=${encodeURIComponent(page.json.nextCursor)}`,
  );
  assert.deepEqual(next.json.items.map((i: { name: string }) => i.name), ["reports/q1.csv"]);
  assert.equal(next.json.nextCursor, undefined);

  const versions = await t.call("GET", "/v1/artifact-versions/reports/q1.csv");
  assert.equal(versions.status, 200);
  assert.deepEqual(versions.json.items.map((v: { version: number }) => v.version), [2, 1]);

  assert.deepEqual((await t.call("DELETE", "/v1/artifacts/reports/q1.csv?version=1")).json, {
    deleted: true,
  });
  const goneVersion = await t.call("GET", "/v1/artifacts/reports/q1.csv?version=1");
  assert.equal(goneVersion.status, 404);
  assert.equal(goneVersion.json.error.code, "not_found");
  assert.equal((await t.call("DELETE", "/v1/artifacts/reports/q1.csv")).status, 200);
  for (
    const [method, path] of [
      ["GET", "/v1/artifacts/reports/q1.csv"],
      ["DELETE", "/v1/artifacts/reports/q1.csv"],
      ["GET", "/v1/artifact-versions/reports/q1.csv"],
      ["GET", "/v1/artifacts/never.txt"],
    ]
  ) {
    const r = await t.call(method, path);
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.json.error.code, "not_found", `${method} ${path}`);
  }
});

Deno.test("HTTP artifacts: bad names, versions and media types get 400", async () => {
  await using t = await openService();
  for (
    const [method, path, headers] of [
      ["GET", "/v1/artifacts/a/.hidden", {}],
      ["GET", "/v1/artifacts/a%20b", {}],
      ["GET", "/v1/artifacts/a//b", {}],
      ["PUT", "/v1/artifacts/x@1", { "content-type": "text/plain" }],
      ["GET", "/v1/artifacts/ok.txt?version=0", {}],
      ["GET", "/v1/artifacts/ok.txt?version=two", {}],
      ["GET", "/v1/artifacts?cursor=nonsense!", {}],
      ["GET", "/v1/artifacts?limit=0", {}],
      ["PUT", "/v1/artifacts/ok.txt", { "content-type": "not a type" }],
    ] as const
  ) {
    const r = await send(t, method, path, method === "PUT" ? "x" : undefined, headers);
    assert.equal(r.status, 400, `${method} ${path}: ${new TextDecoder().decode(r.bytes)}`);
    assert.equal(json(r).error.code, "invalid_request", `${method} ${path}`);
  }
  assert.deepEqual((await t.call("GET", "/v1/artifacts")).json.items, [], "nothing was stored");
});

Deno.test("HTTP artifacts: a key in another namespace cannot see them", async () => {
  await using t = await openService();
  const keys = t.service.keys;
  const acme = await keys.create({ name: "acme", scopes: ["execute"], namespace: "acme" });
  const globex = await keys.create({ name: "globex", scopes: ["execute"], namespace: "globex" });
  const ops = await keys.create({ name: "ops", scopes: ["approve"], namespace: "acme" });
  const admin = await keys.create({ name: "root", scopes: ["admin"] });
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  // Keys exist now (the check is cached for two seconds).
  await new Promise((r) => setTimeout(r, 2_100));

  const put = await send(t, "PUT", "/v1/artifacts/secret.txt", "acme only", {
    ...as(acme.token),
    "content-type": "text/plain",
  });
  assert.equal(put.status, 201);
  assert.equal(json(put).namespace, "acme");
  assert.equal((await send(t, "GET", "/v1/artifacts/secret.txt")).status, 401);

  const mine = await send(t, "GET", "/v1/artifacts/secret.txt", undefined, as(acme.token));
  assert.equal(new TextDecoder().decode(mine.bytes), "acme only");
  for (
    const [method, path] of [
      ["GET", "/v1/artifacts/secret.txt"],
      ["GET", "/v1/artifact-versions/secret.txt"],
      ["DELETE", "/v1/artifacts/secret.txt"],
    ]
  ) {
    const r = await t.call(method, path, undefined, as(globex.token));
    assert.equal(r.status, 404, `${method} ${path}`);
  }
  assert.deepEqual(
    (await t.call("GET", "/v1/artifacts", undefined, as(globex.token))).json.items,
    [],
  );
  const asked = await t.call(
    "GET",
    "/v1/artifacts/secret.txt?namespace=acme",
    undefined,
    as(globex.token),
  );
  assert.equal(asked.status, 403);
  assert.equal(asked.json.error.code, "forbidden");

  // Reading needs any scope; writing and deleting need "execute".
  const read = await t.call("GET", "/v1/artifacts", undefined, as(ops.token));
  assert.deepEqual(read.json.items.map((i: { name: string }) => i.name), ["secret.txt"]);
  const write = await send(t, "PUT", "/v1/artifacts/x.txt", "x", as(ops.token));
  assert.equal(write.status, 403);
  assert.equal(
    (await t.call("DELETE", "/v1/artifacts/secret.txt", undefined, as(ops.token))).status,
    403,
  );

  // An admin names the namespace.
  const adminRead = await send(
    t,
    "GET",
    "/v1/artifacts/secret.txt?namespace=acme",
    undefined,
    as(admin.token),
  );
  assert.equal(adminRead.status, 200);
  assert.equal(
    (await send(t, "GET", "/v1/artifacts/secret.txt", undefined, as(admin.token))).status,
    404,
  );
});

Deno.test("HTTP artifacts: a body over maxBodyBytes gets 413 and stores nothing", async () => {
  await using t = await openService({ maxBodyBytes: 64 * 1024 });
  const big = await send(t, "PUT", "/v1/artifacts/big.bin", new Uint8Array(100 * 1024), {
    "content-type": "application/octet-stream",
  });
  assert.equal(big.status, 413);
  assert.equal(json(big).error.code, "payload_too_large");
  // Without a content-length (a stream), the limit still holds.
  const stream = ReadableStream.from([new Uint8Array(40 * 1024), new Uint8Array(40 * 1024)]);
  const streamed = await send(t, "PUT", "/v1/artifacts/big.bin", stream);
  assert.equal(streamed.status, 413);
  assert.deepEqual((await t.call("GET", "/v1/artifacts")).json.items, []);
  const fits = await send(t, "PUT", "/v1/artifacts/big.bin", new Uint8Array(64 * 1024));
  assert.equal(fits.status, 201);
});
