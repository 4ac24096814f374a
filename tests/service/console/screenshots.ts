/**
 * `deno task screenshots`: the README's pictures of the console (docs/console/*.png, 1280x800),
 * taken with the browser test's driver over a real service with a few runs in it.
 *
 *   deno task screenshots
 */
import { fileURLToPath } from "node:url";
import { openService } from "../_service.ts";
import { haveChromium, openBrowser, pngStats, start, until } from "./_browser.ts";

const OUT = fileURLToPath(new URL("../../../docs/console/", import.meta.url));

/** A deploy that waits for a person's approval, after a line of output. */
const DEPLOYS = `const [api] = (await demo.services({})).filter((s) => s.service === "api");
console.log(\`rolling out api \${api.version} -> 1.5.0\`);
// A person approves each deploy.
return await demo.deploy({ service: "api", version: "1.5.0" });`;

/** A question the caller answers, then a deploy of that answer. */
const ASKS_VERSION = `const version = await demo.ask({ question: "Which version of web?" });
return await demo.deploy({ service: "web", version });`;

if (import.meta.main) {
  if (!haveChromium()) {
    console.error("screenshots: needs Chromium at /usr/bin/chromium (apt-get install chromium)");
    Deno.exit(1);
  }
  await Deno.mkdir(OUT, { recursive: true });
  // What `deno task serve` offers without a config: the built-ins and the example connector.
  await using t = await openService({ connectors: [], examples: true });
  // A few runs of each kind: one done with output, one failed, two waiting.
  const done = await t.call("POST", "/v1/executions", {
    code: `const services = await demo.services({});
for (const s of services) console.log(\`\${s.service} runs \${s.version}\`);
await state.set({ key: "checked", value: services.length });
return services;`,
  });
  await t.call("POST", "/v1/executions", {
    code: `const report = await state.get({ key: "report" });\nreturn report.rows.length;`,
  });
  const gated = await start(t, DEPLOYS);
  const asks = await start(t, ASKS_VERSION);
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
  await page.locator(`.pending[data-execution="${asks}"] textarea`).fill('"2.2.0"');
  await page.locator(`.pending[data-execution="${asks}"] [data-action="resolve"]:not([disabled])`)
    .waitFor();
  await save("pending");
  await page.goto(`${t.service.url}/#/executions/${gated}`);
  await page.locator("#console-lines", { hasText: "rolling out" }).waitFor();
  await save("execution-paused");
  await page.goto(`${t.service.url}/#/executions/${done.json.executionId}`);
  await page.locator(".timeline .done").waitFor();
  await save("execution");
  if (b.errors.length || b.foreign.length) {
    console.error("screenshots: the page had problems", b.errors, b.foreign);
    Deno.exit(1);
  }
}
