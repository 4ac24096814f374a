/**
 * Real MCP clients at Cordon's front door: the MCP SDK's client with elicitation over stdio
 * (`deno task mcp`), and the MCP Inspector's CLI (`@modelcontextprotocol/inspector`, run by
 * this machine's Node from node_modules) against the service with a key.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type ElicitRequest, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startService } from "../../../src/service/server/server.ts";
import { FIXTURE_CONFIG } from "../_service.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The Inspector's launcher (`mcp-inspector`), as `deno install` puts it in node_modules. */
const INSPECTOR =
  `${ROOT}node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js`;

Deno.test("deno task mcp: a client with elicitation approves a gated call in the same call", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cordon-mcp-" });
  const asked: string[] = [];
  const client = new Client({ name: "desktop-like", version: "1.0.0" }, {
    capabilities: { elicitation: {} },
  });
  client.setRequestHandler(ElicitRequestSchema, (req: ElicitRequest) => {
    asked.push(req.params.message);
    return { action: "accept", content: { decision: "approve" } };
  });
  try {
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["task", "-q", "mcp", "--config", FIXTURE_CONFIG, "--data-dir", dataDir],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    try {
      const out = await client.callTool({
        name: "execute",
        arguments: { code: 'return await mail.send({ to: "stdio" })' },
      });
      const data = out.structuredContent as { status: string; result: string };
      assert.equal(data.status, "completed", JSON.stringify(out.content));
      assert.equal(data.result, "sent to stdio");
      assert.equal(asked.length, 1);
      assert.match(asked[0], /mail\.send \(call #1\)/);
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** Runs the Inspector's CLI with `args` after the URL; its exit code and JSON answer. */
async function inspector(url: string, args: string[]) {
  // The CLI keeps its catalog under HOME: a directory of its own, removed after.
  const home = await Deno.makeTempDir({ prefix: "cordon-inspector-" });
  const out = await new Deno.Command("node", {
    args: [INSPECTOR, "--cli", url, "--transport", "http", ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { HOME: home, NO_COLOR: "1" },
  }).output().finally(() => Deno.remove(home, { recursive: true }));
  const text = new TextDecoder().decode(out.stdout);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { code: out.code, text, stderr: new TextDecoder().decode(out.stderr), json };
}

/** The `code=…` argument of the README's Inspector command lines. */
async function readmeInspectorCode(): Promise<string> {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1])
    .find((b) => b.includes("@modelcontextprotocol/inspector --cli"));
  const code = block?.match(/--tool-arg '(code=[^']*)'/)?.[1];
  assert.ok(code, "README.md shows the Inspector running execute");
  return code;
}

Deno.test("the MCP Inspector CLI runs the README's command lines against the default connectors (Node 20)", async () => {
  // The README's reader runs `deno task serve` without a config: the built-ins and demo only.
  const dataDir = await Deno.makeTempDir({ prefix: "cordon-inspector-service-" });
  await using t = {
    service: await startService({ host: "127.0.0.1", port: 0, dataDir, examples: true }),
    async [Symbol.asyncDispose]() {
      await this.service.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
  const { token } = await t.service.keys.create({
    name: "inspector",
    scopes: ["execute", "approve"],
  });
  const url = `${t.service.url}/mcp`;
  const auth = ["--header", `Authorization: Bearer ${token}`];
  const listed = await inspector(url, [...auth, "--method", "tools/list"]);
  assert.equal(listed.code, 0, listed.stderr);
  const names = (listed.json as { tools: { name: string }[] }).tools.map((x) => x.name);
  for (const n of ["execute", "search", "describe", "wait", "result"]) {
    assert.ok(names.includes(n), `${n} in ${names}`);
  }
  const called = await inspector(url, [
    ...auth,
    "--method",
    "tools/call",
    "--tool-name",
    "execute",
    "--tool-arg",
    await readmeInspectorCode(),
  ]);
  assert.equal(called.code, 0, called.stderr);
  const result = called.json as { structuredContent: { status: string; result: unknown } };
  assert.equal(result.structuredContent.status, "completed", called.text);
  assert.deepEqual(result.structuredContent.result, [
    { service: "api", version: "1.4.0" },
    { service: "web", version: "2.1.3" },
  ]);
  const paused = await inspector(url, [
    ...auth,
    "--method",
    "tools/call",
    "--tool-name",
    "execute",
    "--tool-arg",
    'code=return await demo.deploy({ service: "api", version: "2.0.0" })',
  ]);
  const held = paused.json as { structuredContent: { status: string; executionId: string } };
  // The CLI declares no elicitation: the run pauses at once, and the answer says how to go on.
  assert.equal(held.structuredContent.status, "paused", paused.text);
  assert.match(paused.text, /call the `wait` tool with/);
  const id = held.structuredContent.executionId;
  const now = await inspector(url, [
    ...auth,
    "--method",
    "tools/call",
    "--tool-name",
    "result",
    "--tool-arg",
    `executionId=${id}`,
  ]);
  assert.match(now.text, /"status": ?"paused"/);
  // A person approves elsewhere; `wait`, as the README says, then gives the outcome.
  const approved = await fetch(`${t.service.url}/v1/executions/${id}/approve`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
  const approvedText = await approved.text();
  assert.equal(approved.status, 200, approvedText);
  const waited = await inspector(url, [
    ...auth,
    "--method",
    "tools/call",
    "--tool-name",
    "wait",
    "--tool-arg",
    `executionId=${id}`,
  ]);
  const outcome = waited.json as { structuredContent: { status: string; result: unknown } };
  assert.equal(outcome.structuredContent.status, "completed", waited.text);
  assert.deepEqual(outcome.structuredContent.result, {
    service: "api",
    version: "2.0.0",
    previous: "1.4.0",
  });
  // Without the key the door stays shut (keys made here show up within two seconds).
  await new Promise((r) => setTimeout(r, 2_100));
  const shut = await inspector(url, ["--method", "tools/list"]);
  assert.notEqual(shut.code, 0);
  assert.doesNotMatch(shut.text, /"tools"/);
});
