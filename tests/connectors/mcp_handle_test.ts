/**
 * `McpConnector.handle`: readiness, resources, templates, prompts and
 * completions against server-everything over stdio, and `not_supported`
 * against a server that offers tools only.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type McpConnector, mcpConnector } from "../../src/connectors/mcp/mod.ts";
import type { ConnectorHandle } from "../../src/connectors/types.ts";
import {
  changingServer,
  everythingStdio,
  FIRST_START_TIMEOUT_MS,
} from "../_helpers/mcp_servers.ts";
import { assertFailsWith } from "./mcp_helpers.ts";

async function everything(): Promise<McpConnector & { handle: Required<ConnectorHandle> }> {
  const connector = mcpConnector({
    name: "everything",
    ...(await everythingStdio()),
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  await connector.start();
  return connector as McpConnector & { handle: Required<ConnectorHandle> };
}

Deno.test("handle.check() reports ready with the server's name, version, protocol and tool count", async () => {
  await using connector = await everything();
  const check = await connector.handle.check();
  assert.equal(check.ready, true);
  assert.equal(check.problems, undefined);
  assert.equal(check.info?.server, "mcp-servers/everything");
  assert.equal(check.info?.serverVersion, "2.0.0");
  assert.match(String(check.info?.protocolVersion), /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(check.info?.tools, connector.tools.length);
  assert.equal(check.info?.connected, true);
});

Deno.test("handle.check() reports a server that cannot start as a problem, without throwing", async () => {
  await using connector = mcpConnector({ name: "missing", command: "cordon-no-such-command-x" });
  const check = await connector.handle!.check();
  assert.equal(check.ready, false);
  assert.equal(check.problems?.length, 1);
  assert.equal(check.problems?.[0].code, "connector_unavailable");
  assert.match(check.problems?.[0].message ?? "", /command was not found/);
});

Deno.test("handle.resources() lists the server's resources a page at a time", async () => {
  await using connector = await everything();
  const uris: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await connector.handle.resources(cursor);
    for (const item of page.items) {
      assert.equal(typeof item.name, "string");
      uris.push(item.uri);
    }
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  assert.ok(uris.includes("demo://resource/static/document/features.md"), uris.join(", "));
});

Deno.test("handle.resourceTemplates() lists the dynamic resource templates", async () => {
  await using connector = await everything();
  const page = await connector.handle.resourceTemplates();
  assert.deepEqual(page.items.map((t) => t.uriTemplate).sort(), [
    "demo://resource/dynamic/blob/{resourceId}",
    "demo://resource/dynamic/text/{resourceId}",
  ]);
});

Deno.test("handle.readResource() returns the resource's contents", async () => {
  await using connector = await everything();
  const read = await connector.handle.readResource("demo://resource/dynamic/text/7") as {
    contents: { uri: string; mimeType?: string; text?: string }[];
  };
  assert.equal(read.contents.length, 1);
  assert.equal(read.contents[0].uri, "demo://resource/dynamic/text/7");
  assert.equal(read.contents[0].mimeType, "text/plain");
  assert.match(read.contents[0].text ?? "", /^Resource 7: /);
});

Deno.test("handle.readResource() throws not_found for a resource the server does not have", async () => {
  await using connector = await everything();
  await assertFailsWith(
    connector.handle.readResource("demo://resource/nothing-here"),
    "not_found",
    /demo:\/\/resource\/nothing-here not found/,
  );
  await assertFailsWith(
    connector.handle.readResource("demo://resource/dynamic/text/not-a-number"),
    "not_found",
    /Unknown resource/,
  );
});

Deno.test("handle.prompts() and handle.getPrompt() return the server's prompts", async () => {
  await using connector = await everything();
  const page = await connector.handle.prompts();
  const args = page.items.find((p) => p.name === "args-prompt");
  assert.deepEqual(args?.arguments?.map((a) => [a.name, a.required]), [
    ["city", true],
    ["state", false],
  ]);
  const prompt = await connector.handle.getPrompt("args-prompt", { city: "Lyon", state: "Rhône" });
  assert.deepEqual(prompt, {
    messages: [
      { role: "user", content: { type: "text", text: "What's weather in Lyon, Rhône?" } },
    ],
  });
});

Deno.test("handle.getPrompt() throws not_found for an unknown prompt and invalid_input for missing arguments", async () => {
  await using connector = await everything();
  await assertFailsWith(connector.handle.getPrompt("no-such-prompt"), "not_found", /not found/);
  await assertFailsWith(connector.handle.getPrompt("args-prompt", {}), "invalid_input");
});

Deno.test("handle.complete() completes prompt and resource template arguments", async () => {
  await using connector = await everything();
  const department = await connector.handle.complete(
    { type: "prompt", name: "completable-prompt" },
    { name: "department", value: "Eng" },
  );
  assert.deepEqual(department.values, ["Engineering"]);
  const id = await connector.handle.complete(
    { type: "resource", uri: "demo://resource/dynamic/text/{resourceId}" },
    { name: "resourceId", value: "12" },
  );
  assert.deepEqual(id.values, ["12"]);
});

Deno.test("handle methods throw not_supported when the server lacks the capability", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-mcp-" });
  try {
    await using connector = mcpConnector({
      name: "changing",
      ...changingServer(join(dir, "state")),
      startupTimeoutMs: FIRST_START_TIMEOUT_MS,
    });
    await connector.start();
    const handle = connector.handle as Required<ConnectorHandle>;
    await assertFailsWith(handle.resources(), "not_supported", /does not offer resources/);
    await assertFailsWith(handle.resourceTemplates(), "not_supported");
    await assertFailsWith(handle.readResource("x://y"), "not_supported");
    await assertFailsWith(handle.prompts(), "not_supported", /does not offer prompts/);
    await assertFailsWith(handle.getPrompt("p"), "not_supported");
    await assertFailsWith(
      handle.complete({ type: "prompt", name: "p" }, { name: "a", value: "" }),
      "not_supported",
      /does not offer completions/,
    );
    assert.equal((await handle.check()).ready, true, "tools still work");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
