/**
 * `mcpConnector()` over Streamable HTTP against server-everything in its
 * `streamableHttp` mode (started by the test on 127.0.0.1).
 */
import assert from "node:assert/strict";
import { mcpConnector } from "../../src/connectors/mcp/mod.ts";
import { FIRST_START_TIMEOUT_MS, startEverythingHttp } from "../_helpers/mcp_servers.ts";
import { assertFailsWith, callTool } from "./mcp_helpers.ts";

Deno.test("mcpConnector() over Streamable HTTP lists and calls the server's tools", async () => {
  await using server = await startEverythingHttp();
  await using connector = mcpConnector({
    name: "everything",
    url: server.url,
    headers: { "x-cordon-test": "1" },
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  await connector.start();
  assert.ok(connector.tools.some((t) => t.name === "get-sum"));
  assert.equal(connector.serverPid, undefined, "no process of ours");
  assert.equal(await callTool(connector, "echo", { message: "over http" }), "Echo: over http");
  assert.deepEqual(await callTool(connector, "get-structured-content", { location: "New York" }), {
    temperature: 33,
    conditions: "Cloudy",
    humidity: 82,
  });
  await assertFailsWith(callTool(connector, "get-sum", { a: "x" }), "invalid_input");
  const check = await connector.handle!.check();
  assert.equal(check.ready, true);
  assert.equal(check.info?.server, "mcp-servers/everything");
  assert.equal(typeof check.info?.protocolVersion, "string");
  assert.equal(check.info?.target, `http: ${new URL(server.url).origin}/mcp`);
  const prompt = await connector.handle!.getPrompt!("args-prompt", { city: "Lyon" });
  assert.match(JSON.stringify(prompt), /weather in Lyon/);
});

Deno.test("mcpConnector() over HTTP fails calls in flight when the server dies and reconnects when it is back", async () => {
  const first = await startEverythingHttp();
  try {
    await using connector = mcpConnector({
      name: "everything",
      url: first.url,
      startupTimeoutMs: FIRST_START_TIMEOUT_MS,
    });
    await connector.start();
    // The expectation is attached at once: the call may fail while the kill is awaited.
    const slow = assertFailsWith(
      callTool(connector, "trigger-long-running-operation", { duration: 10, steps: 1 }),
      "connector_unavailable",
      /next call reconnects/,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await first.kill();
    await slow;
    assert.equal(connector.connected, false);
    await assertFailsWith(callTool(connector, "echo", { message: "x" }), "connector_unavailable");

    await using second = await startEverythingHttp(first.port);
    assert.notEqual(second.pid, first.pid);
    // A failed attempt backs off; the next call after the wait reconnects to the new server.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await callTool(connector, "echo", { message: "again" }), "Echo: again");
    assert.equal(connector.connected, true);
  } finally {
    await first.kill();
  }
});

Deno.test("mcpConnector() to an unreachable URL fails start() with connector_unavailable", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await using connector = mcpConnector({ name: "nowhere", url: `http://127.0.0.1:${port}/mcp` });
  await assertFailsWith(connector.start(), "connector_unavailable", /cannot be reached/);
  const check = await connector.handle!.check();
  assert.equal(check.ready, false);
  assert.equal(check.problems?.[0].code, "connector_unavailable");
});

Deno.test("startEverythingHttp() binds the test server to loopback only", async () => {
  await using server = await startEverythingHttp();
  const hexPort = server.port.toString(16).toUpperCase().padStart(4, "0");
  const listening: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await Deno.readTextFile(file).catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      // State 0A is LISTEN.
      if (state === "0A" && local?.endsWith(`:${hexPort}`)) listening.push(local);
    }
  }
  // 0100007F is 127.0.0.1 in /proc's little-endian hex.
  assert.deepEqual(listening, [`0100007F:${hexPort}`]);
});
