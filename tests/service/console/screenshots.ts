/**
 * `deno task screenshots`: the README's pictures of the console (docs/console/*.png, 1280x800),
 * taken with the browser test's driver over a real service with a few runs in it.
 *
 *   deno task screenshots
 */
import { fileURLToPath } from "node:url";
import { openService } from "../_service.ts";
import { ASKS, GATED, haveChromium, openBrowser, pngStats, start, until } from "./_browser.ts";

const OUT = fileURLToPath(new URL("../../../docs/console/", import.meta.url));

if (import.meta.main) {
  if (!haveChromium()) {
    console.error("screenshots: needs Chromium at /usr/bin/chromium (apt-get install chromium)");
    Deno.exit(1);
  }
  await Deno.mkdir(OUT, { recursive: true });
  await using t = await openService();
  // A few runs of each kind: one done with output, one failed, two waiting.
  const done = await t.call("POST", "/v1/executions", {
    code: `const sums = [];
for (const n of [1, 2, 3]) {
  sums.push(await math.add({ a: n, b: n * 10 }));
  console.log("added", n);
}
await state.set({ key: "last-sums", value: sums });
return { sums, total: sums.reduce((a, b) => a + b, 0) };`,
  });
  await t.call("POST", "/v1/executions", {
    code: `const rows = await state.get({ key: "report" });\nreturn rows.length;`,
  });
  const gated = await start(t, GATED);
  const asks = await start(t, ASKS);
  await until(t, gated, "paused");
  await until(t, asks, "paused");

  await using b = await openBrowser(t.service.url);
  const { page } = b;
  const save = async (name: string) => {
    const png = await page.screenshot({ path: `${OUT}${name}.png` });
    const { distinct } = pngStats(new Uint8Array(png));
    console.log(`docs/console/${name}.png: ${png.length} bytes, ${distinct} distinct values`);
  };
  await page.goto(`${t.service.url}/#/executions`);
  await page.locator(`#executions tr[data-id="${asks}"]`).waitFor();
  await page.locator("#pending-count", { hasText: "2" }).waitFor();
  await save("executions");
  await page.goto(`${t.service.url}/#/pending`);
  await page.locator(`.pending[data-execution="${asks}"]`).waitFor();
  await page.locator(`.pending[data-execution="${asks}"] textarea`).fill('"Ada"');
  await page.locator(`.pending[data-execution="${asks}"] [data-action="resolve"]:not([disabled])`)
    .waitFor();
  await save("pending");
  await page.goto(`${t.service.url}/#/executions/${gated}`);
  await page.locator("#console-lines", { hasText: "drafting" }).waitFor();
  await save("execution-paused");
  await page.goto(`${t.service.url}/#/executions/${done.json.executionId}`);
  await page.locator(".timeline .done").waitFor();
  await save("execution");
  if (b.errors.length || b.foreign.length) {
    console.error("screenshots: the page had problems", b.errors, b.foreign);
    Deno.exit(1);
  }
}
