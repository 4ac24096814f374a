/**
 * The console across a server restart, in Chromium: the live mark says so while the server is
 * away, turns live again when it is back on the same address, and the list then follows runs
 * of the new process.
 */
import assert from "node:assert/strict";
import { loadConfigFile } from "../../../src/service/server/config.ts";
import { type Service, startService } from "../../../src/service/server/server.ts";
import { FIXTURE_CONFIG } from "../_service.ts";
import { chromiumTest, openBrowser } from "./_browser.ts";

chromiumTest(
  "console in Chromium: the live mark follows a server restart, and so does the list",
  async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cordon-console-restart-" });
    const config = { ...(await loadConfigFile(FIXTURE_CONFIG)), host: "127.0.0.1", dataDir };
    let service: Service | undefined = await startService({ ...config, port: 0 });
    const port = new URL(service.url).port;
    try {
      await using b = await openBrowser(service.url);
      const { page } = b;
      await page.goto(`${service.url}/#/executions`);
      await page.locator("#live.on").waitFor();
      await service.close();
      service = undefined;
      await page.locator("#live", { hasText: "reconnecting" }).waitFor();
      assert.equal(await page.locator("#live.on").count(), 0, "not live while the server is away");
      service = await startService({ ...config, port: Number(port) });
      await page.locator("#live.on").waitFor();
      const res = await fetch(`${service.url}/v1/executions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: "return 'after the restart'" }),
      });
      const { executionId } = await res.json();
      await page.locator(`#executions tr[data-id="${executionId}"] [data-status="completed"]`)
        .waitFor();
      // Refused connections while it was away are the browser's, not the page's.
      assert.deepEqual(b.errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e)), []);
    } finally {
      await service?.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
);
