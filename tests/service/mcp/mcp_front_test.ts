/**
 * Cordon's MCP front against the SDK's own client: over Streamable HTTP
 * (the handler behind `Deno.serve` on 127.0.0.1) and over stdio (a real
 * Deno process running the front).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { createRuntime, type Runtime } from "../../../mod.ts";
import { mcpHttpHandler } from "../../../src/service/mcp/mod.ts";
import type { McpFrontOptions } from "../../../src/service/mcp/mod.ts";
import { frontConnectors } from "../../fixtures/mcp_front_stdio.ts";
import { FROZEN_RUN_FLAGS } from "../../_helpers/deno_run.ts";

/** The front's tools, by name. */
const FRONT_TOOLS = [
  "describe",
  "execute",
  "execute_code",
  "program_close",
  "program_kill",
  "program_poll",
  "program_write",
  "result",
  "run_program",
  "search",
  "start_program",
  "wait",
];

const STDIO_FIXTURE = new URL("../../fixtures/mcp_front_stdio.ts", import.meta.url).pathname;

/** What a test needs: a runtime, the front on a loopback port, and a connected client. */
interface Front extends AsyncDisposable {
  runtime: Runtime;
  client: Client;
  url: URL;
}

async function startFront(options: McpFrontOptions = {}): Promise<Front> {
  const runtime = await createRuntime({
    connectors: frontConnectors(),
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    mcpHttpHandler(runtime, options),
  );
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  const client = new Client({ name: "cordon-test", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(url));
    // Listing caches each tool's output validator: later calls are checked against the schema.
    await client.listTools();
  } catch (err) {
    await server.shutdown();
    await runtime.close();
    throw err;
  }
  return {
    runtime,
    client,
    url,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.shutdown();
      await runtime.close();
    },
  };
}

interface ToolAnswer {
  text: string;
  data: Record<string, unknown> | undefined;
  isError: boolean;
}

/** Calls a tool and checks the front's rule of one text block. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const out = await client.callTool({ name, arguments: args });
  const content = out.content as { type: string; text?: string }[];
  assert.equal(content.length, 1, "one content block");
  assert.equal(content[0].type, "text");
  return {
    text: content[0].text ?? "",
    data: out.structuredContent as Record<string, unknown> | undefined,
    isError: out.isError === true,
  } satisfies ToolAnswer;
}

Deno.test("mcpHttpHandler() lists execute, search and describe, execute described for the model", async () => {
  await using front = await startFront();
  const { tools } = await front.client.listTools();
  assert.deepEqual(tools.map((t: Tool) => t.name).sort(), FRONT_TOOLS);
  const execute = tools.find((t: Tool) => t.name === "execute")!;
  assert.ok(execute.description?.startsWith(await front.runtime.modelDescription()));
  assert.match(execute.description!, /^- math \(1\): Arithmetic on numbers$/m);
  assert.match(execute.description!, /`search` and `describe` tools/);
  assert.deepEqual(execute.inputSchema.required, ["code"]);
  assert.equal(execute.outputSchema?.type, "object");
  assert.equal(execute.annotations?.readOnlyHint, false);
  for (const name of ["search", "describe"]) {
    assert.equal(tools.find((t: Tool) => t.name === name)?.annotations?.readOnlyHint, true, name);
  }
});

Deno.test("mcpHttpHandler() execute runs code that calls a connector", async () => {
  await using front = await startFront();
  const out = await call(front.client, "execute", {
    code: 'console.log("adding", input.a); return await math.add(input)',
    input: { a: 2, b: 3 },
  });
  assert.equal(out.isError, false);
  assert.equal(out.data?.status, "completed");
  assert.equal(out.data?.result, 5);
  assert.match(String(out.data?.executionId), /^exec_/);
  // Only the run meta the Code Mode API documents; memory guard, pool and the like stay host-side.
  const meta = out.data?.meta as Record<string, unknown>;
  assert.deepEqual(Object.keys(meta).sort(), [
    "declarationHash",
    "durationMs",
    "maxTimeoutMs",
    "runId",
    "timeoutMs",
    "traceId",
  ]);
  assert.equal(meta.runId, out.data?.executionId);
  const calls = out.data?.calls as { connector: string; tool: string; args: unknown }[];
  assert.deepEqual(calls.map((c) => [c.connector, c.tool, c.args]), [
    ["math", "add", { a: 2, b: 3 }],
  ]);
  assert.deepEqual((out.data?.logs as { message: string }[]).map((l) => l.message), ["adding 2"]);
  assert.equal(out.text, "5\n\nConsole:\n[log] adding 2");
});

Deno.test("mcpHttpHandler() execute returns values JSON cannot carry in the tagged encoding", async () => {
  await using front = await startFront();
  const out = await call(front.client, "execute", {
    code: "return { big: 2n ** 70n, when: new Date(0), tags: new Set(['a']) }",
  });
  const expected = {
    big: { $t: "bigint", v: "1180591620717411303424" },
    when: { $t: "date", v: "1970-01-01T00:00:00.000Z" },
    tags: { $t: "set", v: ["a"] },
  };
  assert.deepEqual(out.data?.result, expected);
  assert.deepEqual(JSON.parse(out.text), expected);
});

Deno.test("mcpHttpHandler() execute pauses at a gated call and runtime.approve() completes it", async () => {
  await using front = await startFront();
  const out = await call(front.client, "execute", {
    code: 'const r = await mail.send({ to: "ada" }); return r.toUpperCase()',
  });
  assert.equal(out.isError, false, "a paused run is not an error");
  assert.equal(out.data?.status, "paused");
  const id = String(out.data?.executionId);
  const pending = out.data?.pending as { seq: number; tool: string; needs: string }[];
  assert.deepEqual(pending.map((p) => [p.seq, p.tool, p.needs]), [[1, "send", "approval"]]);
  assert.match(out.text, /call #1 mail\.send\(\{"to":"ada"\}\) waits for approval/);
  assert.ok(out.text.includes(`POST /v1/executions/${id}/approve`), out.text);

  const done = await front.runtime.approve(id);
  assert.equal(done.status, "completed");
  assert.equal(done.status === "completed" && done.result, "SENT TO ADA");
});

Deno.test("mcpHttpHandler() execute of a throwing script is an error result with its code", async () => {
  await using front = await startFront();
  const out = await call(front.client, "execute", {
    code: "await math.add({ a: 1, b: 1 });\nthrow new Error('boom')",
  });
  assert.equal(out.isError, true);
  assert.equal(out.data?.status, "error");
  const error = out.data?.error as { code: string; message: string };
  assert.equal(error.code, "script_error");
  assert.match(error.message, /boom/);
  assert.match(out.text, /^Execution error: script_error: .*boom/);
  assert.equal((out.data?.calls as unknown[]).length, 1, "the call before the throw is reported");
});

Deno.test("mcpHttpHandler() search ranks tools and describe gives their signature", async () => {
  await using front = await startFront();
  const found = await call(front.client, "search", { query: "add numbers", limit: 1 });
  assert.equal(found.isError, false);
  const items = found.data?.items as { path: string }[];
  assert.deepEqual(items.map((i) => i.path), ["math.add"]);
  assert.match(found.text, /^- math\.add: Add two numbers/);

  const described = await call(front.client, "describe", { path: "math.add" });
  assert.equal(described.isError, false);
  const signature = String(described.data?.signature);
  assert.match(signature, /^math\.add\(.*a: number.*\): Promise<number>$/);
  assert.ok(described.text.startsWith(signature), described.text);
  assert.match(described.text, /Example:\n.*math\.add\(/);
});

Deno.test("mcpHttpHandler() describe of an unknown path and a bad search are error results with their code", async () => {
  await using front = await startFront();
  const unknown = await call(front.client, "describe", { path: "math.subtract" });
  assert.equal(unknown.isError, true);
  assert.equal((unknown.data?.error as { code: string }).code, "tool_not_found");
  assert.match(unknown.text, /^tool_not_found: /);

  const tooMany = await call(front.client, "search", { query: "add", limit: 1_000_000 });
  assert.equal(tooMany.isError, true);
  assert.equal((tooMany.data?.error as { code: string }).code, "invalid_request");
});

Deno.test("mcpHttpHandler() runs executions in the front's namespace", async () => {
  await using front = await startFront({ namespace: "team-a" });
  const out = await call(front.client, "execute", { code: "return 1" });
  const details = await front.runtime.execution(String(out.data?.executionId));
  assert.equal(details?.namespace, "team-a");
});

Deno.test("mcpHttpHandler() answers GET and DELETE with 405, as a stateless server", async () => {
  await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  const handler = mcpHttpHandler(runtime);
  for (const method of ["GET", "DELETE"]) {
    const res = await handler(new Request("http://127.0.0.1/mcp", { method }));
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("allow"), "POST");
    assert.deepEqual(await res.json(), {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed." },
      id: null,
    });
  }
});

Deno.test("serveMcpStdio() serves a client over stdio and exits when stdin ends", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = join(dir, "marker");
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", ...FROZEN_RUN_FLAGS, "-A", STDIO_FIXTURE, marker],
    });
    const client = new Client({ name: "cordon-test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid;
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t: Tool) => t.name).sort(), FRONT_TOOLS);
      const sum = await call(client, "execute", {
        code: "return await math.add({ a: 20, b: 22 })",
      });
      assert.equal(sum.data?.result, 42);
      assert.equal(sum.text, "42");
      const paused = await call(client, "execute", { code: 'return await mail.send({ to: "x" })' });
      assert.equal(paused.data?.status, "paused");
    } finally {
      await client.close();
    }
    // Written after serveMcpStdio() resolved and the runtime closed: not killed by the client.
    assert.equal(await Deno.readTextFile(marker), "closed");
    assert.ok(pid !== null);
    const alive = await Deno.stat(`/proc/${pid}`).then(() => true, () => false);
    assert.equal(alive, false, "the server process exited");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "MCP executor tools: code blocks, a program to its end, an interactive one",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using front = await startFront({ namespace: "team-b" });
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await front.client.callTool({ name, arguments: args });
      assert.equal(r.isError ?? false, false, JSON.stringify(r));
      return r.structuredContent as Record<string, unknown>;
    };
    const fence = "`".repeat(3);
    const code = await call("execute_code", { text: `${fence}bash\necho hi\n${fence}` });
    assert.deepEqual([code.output, code.exitCode], ["hi", 0]);
    const run = await call("run_program", {
      cmd: "python3",
      args: ["t.py"],
      files: { "t.py": "import sys\nprint(sys.stdin.read().strip()[::-1])" },
      stdin: "abc",
      timeoutMs: 60_000,
    });
    assert.deepEqual([run.stdout, run.exitCode], ["cba\n", 0]);
    const started = await call("start_program", {
      cmd: "python3",
      args: ["-c", "print('ready')\nprint('got', input())"],
      timeoutMs: 60_000,
    });
    const id = started.id as string;
    // The session belongs to the front's namespace.
    assert.throws(() => front.runtime.programSession(id, { namespace: "other" }), {
      code: "not_found",
    });
    await call("program_write", { id, data: "x", newline: true });
    let out = "";
    for (let i = 0; i < 300 && !out.includes("got x"); i++) {
      out += ((await call("program_poll", { id })).output as string) + "\n";
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(out, /ready\n(?:\n)*got x/);
    const killed = await call("program_kill", { id });
    assert.equal((killed.state as { status: string }).status, "exited");
    assert.deepEqual(await call("program_close", { id }), { closed: true });
    const gone = await front.client.callTool({ name: "program_poll", arguments: { id } });
    assert.equal(gone.isError, true);
    const refused = await front.client.callTool({
      name: "run_program",
      arguments: { cmd: "/bin/ls" },
    });
    assert.equal(refused.isError, true);
  },
});
