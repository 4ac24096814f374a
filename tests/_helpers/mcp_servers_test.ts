import assert from "node:assert/strict";
import { installedServer, SERVER_EVERYTHING } from "./mcp_servers.ts";

Deno.test("installedServer() finds a locked server in node_modules without installing it", async () => {
  const entry = await installedServer(SERVER_EVERYTHING);
  assert.match(entry, /node_modules\/@modelcontextprotocol\/server-everything\//);
  assert.ok((await Deno.stat(entry)).isFile);
});

Deno.test("installedServer() says what to run when a server is not installed, and downloads nothing", async () => {
  await assert.rejects(
    installedServer("@modelcontextprotocol/server-not-in-the-lock"),
    /is not installed .*run `deno install`.*tests never download/s,
  );
});
