/**
 * `mcpConnector()` tools against real servers from npm over stdio:
 * server-everything and server-filesystem.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { mcpConnector } from "../../src/connectors/mcp/mod.ts";
import { toolAnnotations } from "../../src/connectors/mcp/tools.ts";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import { everythingStdio, filesystemStdio } from "../_helpers/mcp_servers.ts";
import { assertFailsWith, callTool } from "./mcp_helpers.ts";

/** Generous: the first test of a run may install the servers with npm first. */
const START_TIMEOUT_MS = 60_000;

async function everything(options: { callTimeoutMs?: number; env?: Record<string, string> } = {}) {
  const connector = mcpConnector({
    name: "everything",
    ...(await everythingStdio()),
    startupTimeoutMs: START_TIMEOUT_MS,
    ...options,
  });
  await connector.start();
  return connector;
}

Deno.test("mcpConnector() lists tools with the server's names, schemas and annotations", async () => {
  await using connector = await everything();
  const sum = connector.tools.find((t) => t.name === "get-sum");
  assert.ok(sum, `tools: ${connector.tools.map((t) => t.name).join(", ")}`);
  assert.deepEqual(Object.keys(sum.inputSchema.properties as object).sort(), ["a", "b"]);
  assert.deepEqual(sum.annotations, { resolution: "host", readOnly: true, destructive: false });
  const structured = connector.tools.find((t) => t.name === "get-structured-content");
  assert.ok(structured?.outputSchema, "the output schema is kept");
  // The registry takes them all (it refuses a connector with a bad tool name).
  assert.deepEqual(new ConnectorRegistry([connector]).guestConnectors()[0].tools.length, 12);
  // Task-only tools cannot be called with tools/call, so they are not offered.
  assert.equal(connector.tools.some((t) => t.name === "simulate-research-query"), false);
  assert.match(connector.description, /Everything/);
});

Deno.test("tool execute() returns structuredContent when the server sends it", async () => {
  await using connector = await everything();
  const value = await callTool(connector, "get-structured-content", { location: "Chicago" });
  assert.deepEqual(value, { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
});

Deno.test("tool execute() returns a single text block as a string", async () => {
  await using connector = await everything();
  assert.equal(await callTool(connector, "echo", { message: "hi there" }), "Echo: hi there");
  assert.equal(await callTool(connector, "get-sum", { a: 2, b: 40 }), "The sum of 2 and 40 is 42.");
});

Deno.test("tool execute() parses a single text block holding JSON", async () => {
  await using connector = await everything({ env: { CORDON_MARKER: "configured" } });
  const env = await callTool(connector, "get-env", {});
  assert.equal(typeof env, "object");
  assert.equal((env as Record<string, string>).CORDON_MARKER, "configured");
});

Deno.test("mcpConnector() gives a stdio server only safe and configured variables", async () => {
  Deno.env.set("CORDON_HOST_SECRET", "do-not-leak");
  try {
    await using connector = await everything({ env: { CORDON_MARKER: "configured" } });
    const env = await callTool(connector, "get-env", {}) as Record<string, string>;
    assert.equal(env.CORDON_HOST_SECRET, undefined);
    assert.equal(env.CORDON_MARKER, "configured");
    assert.ok(env.PATH, "PATH is passed so wrappers like npx work");
  } finally {
    Deno.env.delete("CORDON_HOST_SECRET");
  }
});

Deno.test("tool execute() keeps mixed content as the server's blocks", async () => {
  await using connector = await everything();
  const value = await callTool(connector, "get-tiny-image", {}) as {
    content: { type: string; data?: string; mimeType?: string }[];
  };
  assert.deepEqual(value.content.map((b) => b.type), ["text", "image", "text"]);
  const image = value.content[1];
  assert.equal(image.mimeType, "image/png");
  assert.ok((image.data ?? "").length > 100, "the image data is kept");
});

Deno.test("tool execute() throws invalid_input for arguments the server rejects", async () => {
  await using connector = await everything();
  await assertFailsWith(
    callTool(connector, "get-sum", { a: "one", b: 2 }),
    "invalid_input",
    /^Invalid input for everything\.get-sum: .*expected number/,
  );
  await assertFailsWith(callTool(connector, "get-sum", [1, 2]), "invalid_input", /named arguments/);
  // The connection is fine afterwards.
  assert.equal(await callTool(connector, "get-sum", { a: 1, b: 2 }), "The sum of 1 and 2 is 3.");
});

Deno.test("tool execute() throws tool_timeout when the server is slower than callTimeoutMs", async () => {
  await using connector = await everything({ callTimeoutMs: 300 });
  const started = performance.now();
  await assertFailsWith(
    callTool(connector, "trigger-long-running-operation", { duration: 5, steps: 1 }),
    "tool_timeout",
    /within 300 ms/,
  );
  assert.ok(performance.now() - started < 3_000, "the call gave up at its limit");
  assert.equal(connector.connected, true, "a slow call does not cost the connection");
  assert.equal(await callTool(connector, "echo", { message: "still here" }), "Echo: still here");
});

Deno.test("tool execute() throws tool_timeout when the caller's deadline aborts the call", async () => {
  await using connector = await everything();
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("The call timed out", "TimeoutError")),
    200,
  );
  try {
    await assertFailsWith(
      callTool(
        connector,
        "trigger-long-running-operation",
        { duration: 5, steps: 1 },
        controller.signal,
      ),
      "tool_timeout",
    );
  } finally {
    clearTimeout(timer);
  }
});

Deno.test("tool execute() leaves no listener on the caller's signal", async () => {
  await using connector = await everything();
  const signal = new AbortController().signal;
  let listeners = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<typeof add>) => {
    listeners++;
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<typeof remove>) => {
    listeners--;
    remove(...args);
  };
  for (let i = 0; i < 5; i++) await callTool(connector, "echo", { message: `${i}` }, signal);
  assert.equal(listeners, 0);
});

Deno.test("ConnectorRegistry.call() runs an MCP tool end to end", async () => {
  await using connector = await everything();
  const registry = new ConnectorRegistry([connector]);
  const ok = await registry.call("everything", "get-sum", { a: 20, b: 22 }, {
    executionId: "exec_1",
  });
  assert.deepEqual(ok, { ok: true, value: "The sum of 20 and 22 is 42." });
  const bad = await registry.call("everything", "get-sum", { a: "x" }, { executionId: "exec_1" });
  assert.equal(bad.ok, false);
  assert.equal(!bad.ok && bad.error.code, "invalid_input");
  assert.match(!bad.ok ? bad.error.message : "", /^Invalid input for everything\.get-sum/);
});

Deno.test("tool execute() writes and reads real files through server-filesystem", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "cordon-mcp-fs-" }));
  try {
    await using files = mcpConnector({
      name: "files",
      ...(await filesystemStdio(dir)),
      startupTimeoutMs: START_TIMEOUT_MS,
    });
    await files.start();
    const path = join(dir, "note.txt");
    await callTool(files, "write_file", { path, content: "written by a tool" });
    assert.equal(await Deno.readTextFile(path), "written by a tool");
    await Deno.writeTextFile(path, "changed on disk");
    assert.deepEqual(await callTool(files, "read_text_file", { path }), {
      content: "changed on disk",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tool execute() throws tool_error with the server's text for an isError result", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "cordon-mcp-fs-" }));
  try {
    await using files = mcpConnector({
      name: "files",
      ...(await filesystemStdio(dir)),
      startupTimeoutMs: START_TIMEOUT_MS,
    });
    await files.start();
    await assertFailsWith(
      callTool(files, "read_text_file", { path: "/etc/hostname" }),
      "tool_error",
      /^files\.read_text_file failed: Access denied - path outside allowed directories/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcpConnector() maps approval options onto requiresApproval", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "cordon-mcp-fs-" }));
  try {
    const command = await filesystemStdio(dir);
    await using gated = mcpConnector({
      name: "files",
      ...command,
      startupTimeoutMs: START_TIMEOUT_MS,
      approval: { destructive: true },
    });
    await gated.start();
    const needs = (name: string) =>
      gated.tools.find((t) => t.name === name)?.annotations.requiresApproval === true;
    assert.equal(needs("write_file"), true, "destructiveHint: true");
    assert.equal(needs("move_file"), true);
    assert.equal(needs("create_directory"), false, "destructiveHint: false");
    assert.equal(needs("read_text_file"), false, "readOnlyHint: true");
    await using all = mcpConnector({
      name: "files",
      ...command,
      startupTimeoutMs: START_TIMEOUT_MS,
      approval: { all: true },
    });
    await all.start();
    assert.ok(all.tools.every((t) => t.annotations.requiresApproval === true));
    await using none = mcpConnector({
      name: "files",
      ...command,
      startupTimeoutMs: START_TIMEOUT_MS,
    });
    await none.start();
    assert.ok(none.tools.every((t) => t.annotations.requiresApproval === undefined));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolAnnotations() treats a tool without hints as destructive, as the MCP spec does", () => {
  const bare = { name: "wipe", inputSchema: { type: "object" as const } };
  assert.deepEqual(toolAnnotations(bare, { destructive: true }), {
    resolution: "host",
    requiresApproval: true,
  });
  assert.deepEqual(toolAnnotations(bare, undefined), { resolution: "host" });
});
