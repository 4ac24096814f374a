/**
 * `McpConnector` lifecycle against real servers: start failures, a server
 * killed mid-call, lazy reconnects, tool list changes, and close leaving no
 * process behind.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type McpConnector, mcpConnector } from "../../src/connectors/mcp/mod.ts";
import type { Tool } from "../../src/connectors/types.ts";
import {
  changingServer,
  everythingNpx,
  everythingStdio,
  FIRST_START_TIMEOUT_MS,
} from "../_helpers/mcp_servers.ts";
import { assertGroupGone, groupProcesses } from "../_helpers/process_groups.ts";
import { childProcesses } from "../_helpers/processes.ts";
import { assertFailsWith, callTool } from "./mcp_helpers.ts";

/**
 * A word added to a server's command line so this test finds its own
 * processes (`deno test --parallel` runs other files' servers beside it).
 */
function marker(): string {
  return `cordon-test-${crypto.randomUUID()}`;
}

/** Children of this process started with `mark` on their command line. */
async function marked(mark: string): Promise<{ pid: number; cmd: string }[]> {
  return (await childProcesses()).filter((p) => p.cmd.includes(mark));
}

async function everything(mark = marker()): Promise<McpConnector> {
  const { command, args } = await everythingStdio();
  const connector = mcpConnector({
    name: "everything",
    command,
    // server-everything reads its first argument only.
    args: [...args, mark],
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  await connector.start();
  return connector;
}

/** Resolves with the next tool list the connector announces. */
function nextToolList(connector: McpConnector): Promise<readonly Tool[]> {
  return new Promise((resolve) => {
    const stop = connector.onToolsChanged((tools) => {
      stop();
      resolve(tools);
    });
  });
}

Deno.test("McpConnector fails a call in flight with connector_unavailable when the server is killed, and the next call reconnects", async () => {
  await using connector = await everything();
  const firstPid = connector.serverPid;
  assert.ok(firstPid);
  const names = connector.tools.map((t) => t.name);
  const slow = assertFailsWith(
    callTool(connector, "trigger-long-running-operation", { duration: 10, steps: 1 }),
    "connector_unavailable",
    /killed by SIGKILL.*next call reconnects/,
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  Deno.kill(firstPid, "SIGKILL");
  await slow;
  assert.equal(connector.connected, false);
  await assertGroupGone(firstPid);

  assert.equal(await callTool(connector, "echo", { message: "back" }), "Echo: back");
  assert.equal(connector.connected, true);
  assert.notEqual(connector.serverPid, firstPid, "a new server process");
  assert.deepEqual(connector.tools.map((t) => t.name), names, "tools keep their names");
});

Deno.test("McpConnector answers the first call after its server died from a new server", async () => {
  await using connector = await everything();
  // Usually the connector noticed the death first (it reconnects) or the call finds the pipe
  // closed (never delivered, so it is sent again). When the call races the exit it cannot tell
  // whether the server read it, so it fails as unavailable, and the next call must answer.
  for (let round = 0; round < 4; round++) {
    const pid = connector.serverPid!;
    Deno.kill(pid, "SIGKILL");
    await assertGroupGone(pid);
    let answer: unknown;
    try {
      answer = await callTool(connector, "echo", { message: `${round}` });
    } catch (err) {
      assert.equal((err as { code?: string }).code, "connector_unavailable");
      answer = await callTool(connector, "echo", { message: `${round}` });
    }
    assert.equal(answer, `Echo: ${round}`);
    assert.notEqual(connector.serverPid, pid);
  }
});

Deno.test("McpConnector does not reconnect until something needs the server", async () => {
  const mark = marker();
  await using connector = await everything(mark);
  const pid = connector.serverPid!;
  Deno.kill(pid, "SIGKILL");
  await assertGroupGone(pid);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(connector.connected, false);
  assert.deepEqual(await marked(mark), [], "no server was started in the background");
  const check = await connector.handle!.check();
  assert.equal(check.ready, true, JSON.stringify(check));
  assert.equal(connector.connected, true, "check() reconnects");
});

Deno.test("McpConnector.close() leaves no server process behind and is idempotent", async () => {
  const mark = marker();
  const connector = await everything(mark);
  const pid = connector.serverPid!;
  assert.ok((await groupProcesses(pid)).length >= 1);
  await connector.close();
  await assertGroupGone(pid);
  await connector.close();
  assert.equal(connector.connected, false);
  await assertFailsWith(
    callTool(connector, "echo", { message: "x" }),
    "connector_unavailable",
    /closed/,
  );
  assert.deepEqual(await marked(mark), [], "nothing was restarted by the call");
});

Deno.test("McpConnector.close() stops every process of a server started through npx", async () => {
  const connector = mcpConnector({
    name: "everything",
    ...(await everythingNpx()),
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  try {
    await connector.start();
    assert.equal(await callTool(connector, "echo", { message: "via npx" }), "Echo: via npx");
    const pid = connector.serverPid!;
    const group = await groupProcesses(pid);
    assert.ok(group.length >= 2, `npx runs the server as a child: ${JSON.stringify(group)}`);
    await connector.close();
    await assertGroupGone(pid);
  } finally {
    await connector.close();
  }
});

Deno.test("McpConnector.close() stops processes a wrapper script left running beside the server", async () => {
  const { command, args } = await everythingStdio();
  const quoted = [command, ...args].map((a) => `'${a}'`).join(" ");
  const connector = mcpConnector({
    name: "wrapped",
    command: "sh",
    // The sleep holds the server's stdout and ignores stdin: only a group kill ends it.
    args: ["-c", `sleep 300 & exec ${quoted}`],
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  try {
    await connector.start();
    const pid = connector.serverPid!;
    const group = await groupProcesses(pid);
    assert.ok(group.some((p) => p.cmd.startsWith("sleep")), JSON.stringify(group));
    await connector.close();
    await assertGroupGone(pid);
  } finally {
    await connector.close();
  }
});

Deno.test("McpConnector.start() fails with connector_unavailable and the server's stderr when it exits", async () => {
  await using connector = mcpConnector({
    name: "broken",
    command: "node",
    args: ["-e", "console.error('no config found'); process.exit(3)"],
  });
  await assertFailsWith(
    connector.start(),
    "connector_unavailable",
    /exited with code 3.*no config found/s,
  );
  assert.equal(connector.connected, false);
});

Deno.test("McpConnector.start() fails with connector_unavailable for a command that does not exist", async () => {
  await using connector = mcpConnector({ name: "missing", command: "cordon-no-such-command-x" });
  await assertFailsWith(connector.start(), "connector_unavailable", /command was not found/);
});

Deno.test("McpConnector.start() gives up on a server that never answers and stops it", async () => {
  const mark = marker();
  await using connector = mcpConnector({
    name: "silent",
    command: "node",
    args: ["-e", "process.stdin.resume(); setInterval(() => {}, 1000)", mark],
    startupTimeoutMs: 300,
  });
  const started = performance.now();
  await assertFailsWith(connector.start(), "connector_unavailable", /no answer within 300 ms/);
  assert.ok(performance.now() - started < 5_000);
  assert.deepEqual(await marked(mark), [], "the silent server was stopped");
});

Deno.test("McpConnector re-lists its tools on notifications/tools/list_changed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-mcp-" });
  try {
    await using connector = mcpConnector({
      name: "changing",
      ...changingServer(join(dir, "state")),
      startupTimeoutMs: FIRST_START_TIMEOUT_MS,
    });
    await connector.start();
    assert.deepEqual(connector.tools.map((t) => t.name), ["add_tool"]);
    const before = connector.tools[0];
    const changed = nextToolList(connector);
    await callTool(connector, "add_tool", { name: "greet" });
    const tools = await changed;
    assert.deepEqual(tools.map((t) => t.name), ["add_tool", "greet"]);
    assert.equal(connector.tools, tools);
    assert.equal(connector.tools[0], before, "an unchanged tool keeps its object");
    assert.equal(await callTool(connector, "greet", {}), "I am greet");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("McpConnector takes a changed tool list after a reconnect and tells its listeners", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-mcp-" });
  const state = join(dir, "state");
  try {
    await using connector = mcpConnector({
      name: "changing",
      ...changingServer(state),
      startupTimeoutMs: FIRST_START_TIMEOUT_MS,
    });
    await connector.start();
    const heard: (readonly Tool[])[] = [];
    connector.onToolsChanged((tools) => heard.push(tools));
    await Deno.writeTextFile(state, "fresh-tool\n");
    const pid = connector.serverPid!;
    Deno.kill(pid, "SIGKILL");
    await assertGroupGone(pid);
    assert.equal(heard.length, 0, "nothing changes before the reconnect");
    assert.equal((await connector.handle!.check()).ready, true);
    assert.deepEqual(heard.map((tools) => tools.map((t) => t.name)), [["add_tool", "fresh-tool"]]);
    assert.equal(await callTool(connector, "fresh-tool", {}), "I am fresh-tool");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
