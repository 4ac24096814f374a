/**
 * The stdio transport on its own: what it reports when the server is gone.
 */
import assert from "node:assert/strict";
import { isUndelivered, UndeliveredError } from "../../src/connectors/mcp/errors.ts";
import { ProcessTransport } from "../../src/connectors/mcp/process_transport.ts";
import { StreamableHTTPError } from "../../src/connectors/mcp/sdk.ts";

const PING = { jsonrpc: "2.0" as const, id: 1, method: "ping" };

Deno.test("ProcessTransport.send() throws UndeliveredError once the server has exited", async () => {
  const transport = new ProcessTransport({
    command: "node",
    args: ["-e", "console.error('bye'); process.exit(7)"],
    env: {},
  });
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.start();
  await closed;
  assert.equal(transport.exitStatus?.code, 7);
  assert.equal(transport.exitedOnItsOwn, true);
  assert.match(transport.stderrTail, /bye/);
  await assert.rejects(transport.send(PING), UndeliveredError);
  await transport.close();
});

Deno.test("ProcessTransport.close() reports a server it had to signal as not exiting on its own", async () => {
  const transport = new ProcessTransport({
    command: "node",
    args: [
      "-e",
      "process.stdin.resume(); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)",
    ],
    env: {},
  });
  await transport.start();
  await transport.close();
  assert.equal(transport.exitedOnItsOwn, false);
  assert.equal(transport.exitStatus?.signal, "SIGKILL", "SIGTERM was ignored, SIGKILL was not");
  await assert.rejects(transport.send(PING), UndeliveredError);
});

Deno.test("isUndelivered() holds for a closed pipe and an HTTP 404 only", () => {
  assert.equal(isUndelivered(new UndeliveredError("gone")), true);
  assert.equal(isUndelivered(new StreamableHTTPError(404, "Session not found")), true);
  assert.equal(isUndelivered(new StreamableHTTPError(500, "Internal error")), false);
  assert.equal(isUndelivered(new Error("Connection closed")), false);
});
