/**
 * Large results through the real service: the HTTP API returns the reference and serves the
 * stored result in pages from the artifact route, only in its namespace; the MCP front's
 * `execute` shows the preview and the way on, and a model following it reads the rest.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openService, type TestService } from "../_service.ts";

/** About 120 KB of JSON with multi-byte characters. */
const BIG =
  `return Array.from({ length: 1000 }, (_, i) => ({ id: i, note: "ünïcode ✓ " + "z".repeat(90) }))`;
const BIG_JSON = JSON.stringify(
  Array.from({ length: 1000 }, (_, i) => ({ id: i, note: "ünïcode ✓ " + "z".repeat(90) })),
);

async function get(t: TestService, path: string) {
  const res = await fetch(`${t.service.url}${path}`);
  return {
    status: res.status,
    headers: res.headers,
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

Deno.test("HTTP: a large result is a reference, read in pages from the artifact route", async (t) => {
  await using svc = await openService();
  const run = await svc.call("POST", "/v1/executions", { code: BIG, namespace: "crew" });
  assert.equal(run.status, 200, JSON.stringify(run.json).slice(0, 300));
  assert.equal(run.json.status, "completed");
  const ref = run.json.result;
  assert.equal(ref.truncated, true);
  assert.equal(run.json.meta.resultRef, ref.resultRef);
  assert.equal(ref.totalBytes, new TextEncoder().encode(BIG_JSON).byteLength);
  const [name, version] = ref.resultRef.split("@");
  const base = `/v1/artifacts/${name}?version=${version}&namespace=crew`;

  await t.step("pages of at most limit bytes concatenate to the exact JSON", async () => {
    const parts: Uint8Array[] = [];
    let offset: string | null = "0";
    while (offset !== null) {
      const page = await get(svc, `${base}&offset=${offset}&limit=10000`);
      assert.equal(page.status, 206, new TextDecoder().decode(page.bytes).slice(0, 200));
      assert.ok(page.bytes.byteLength <= 10_000);
      assert.equal(page.headers.get("content-type"), "application/json");
      assert.equal(
        page.headers.get("content-range"),
        `bytes ${offset}-${Number(offset) + page.bytes.byteLength - 1}/${ref.totalBytes}`,
      );
      // Each page decodes on its own: it is cut between characters.
      new TextDecoder("utf-8", { fatal: true }).decode(page.bytes);
      parts.push(page.bytes);
      offset = page.headers.get("x-next-offset");
    }
    assert.equal(parts.length, Math.ceil(ref.totalBytes / 10_000));
    const joined = new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p])));
    assert.equal(joined, BIG_JSON);
    // Without offset or limit the route answers the whole file, as before.
    const whole = await get(svc, base);
    assert.equal(whole.status, 200);
    assert.equal(new TextDecoder().decode(whole.bytes), BIG_JSON);
  });

  await t.step("another namespace cannot read it; bad pages are typed errors", async () => {
    const other = await svc.call(
      "GET",
      `/v1/artifacts/${name}?version=${version}&offset=0&namespace=other`,
    );
    assert.equal(other.status, 404);
    assert.equal(other.json.error.code, "not_found");
    const whole = await svc.call("GET", `/v1/artifacts/${name}?namespace=other`);
    assert.equal(whole.status, 404);
    const tooBig = await svc.call("GET", `${base}&offset=0&limit=2000000`);
    assert.equal(tooBig.status, 400);
    // Byte 18 is the second byte of "ü" in [{"id":0,"note":"ü…: no page starts there.
    const inside = await svc.call("GET", `${base}&offset=18`);
    assert.equal(inside.status, 400, JSON.stringify(inside.json));
    assert.equal(inside.json.error.code, "invalid_request");
  });

  await t.step("deleting the execution deletes its stored result", async () => {
    const del = await svc.call("DELETE", `/v1/executions/${run.json.executionId}`);
    assert.equal(del.status, 200, JSON.stringify(del.json));
    assert.equal((await get(svc, base)).status, 404);
  });
});

Deno.test("MCP: execute shows the preview and the way on; following it reads the rest", async () => {
  await using svc = await openService();
  const client = new Client({ name: "cordon-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.service.url}/mcp`)));
  // Listing caches the tools' output schemas: every answer below is checked against them.
  await client.listTools();
  try {
    const call = async (code: string, input?: unknown) => {
      const out = await client.callTool({ name: "execute", arguments: { code, input } });
      const text = (out.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
      // deno-lint-ignore no-explicit-any -- structured answers are checked field by field
      return { text, data: out.structuredContent as Record<string, any> };
    };
    const first = await call(`console.log("w".repeat(20_000)); ${BIG}`);
    const ref = first.data.result;
    assert.equal(first.data.meta.resultRef, ref.resultRef);
    assert.match(first.text, new RegExp(`over the inline limit: it is stored as ${ref.resultRef}`));
    assert.match(first.text, /An array of 1000 items/);
    assert.ok(first.text.includes(ref.preview), "the preview is in the text");
    assert.ok(
      first.text.includes(
        `codemode.readResult({ resultRef: "${ref.resultRef}", cursor: "${ref.nextCursor}" })`,
      ),
    );
    assert.ok(first.text.includes(`offset=${ref.nextCursor}&limit=16000`));
    // The console was cut too: the text says where every line is.
    assert.match(first.text, /readLogs\(\{ logRef: "log_[^"]+" \}\)/);
    assert.equal(typeof first.data.meta.logRef, "string");

    // A model following the text: one execute per page, each answer inline.
    let text = ref.preview;
    let cursor: string | undefined = ref.nextCursor;
    let pages = 0;
    while (cursor !== undefined) {
      const page = await call(
        "return await codemode.readResult({ resultRef: input.ref, cursor: input.cursor })",
        { ref: ref.resultRef, cursor },
      );
      assert.equal(page.data.status, "completed", page.text.slice(0, 300));
      assert.equal(page.data.meta.resultRef, undefined, "a page comes back inline");
      text += page.data.result.text;
      cursor = page.data.result.nextCursor;
      pages++;
    }
    assert.equal(text, BIG_JSON);
    assert.equal(pages, Math.ceil((ref.totalBytes - Number(ref.nextCursor)) / 16_000));
  } finally {
    await client.close();
  }
});
