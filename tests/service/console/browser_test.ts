/**
 * The console in a real browser (Debian's Chromium driven by playwright-core) over a real
 * service: runs appear live, a person approves, rejects and resolves in the page, a finished
 * run is saved as a snippet, a server with keys asks for one, and screenshots show the pages.
 * Without Chromium the test is skipped with a message, except in CI, where it fails.
 */
import assert from "node:assert/strict";
import { openService, type TestService } from "../_service.ts";
import {
  ASKS,
  chromiumTest,
  type ConsoleBrowser,
  GATED,
  openBrowser,
  pngStats,
  start,
} from "./_browser.ts";

async function shot(b: ConsoleBrowser, dir: string, name: string): Promise<void> {
  const png = await b.page.screenshot({ path: `${dir}/${name}.png` });
  const stats = pngStats(new Uint8Array(png));
  assert.equal(stats.width, 1280, name);
  assert.equal(stats.height, 800, name);
  assert.ok(png.length > 20_000, `${name}: ${png.length} bytes is too small to show a page`);
  assert.ok(stats.distinct > 40, `${name} looks blank (${stats.distinct} distinct values)`);
  assert.deepEqual([...(await Deno.readFile(`${dir}/${name}.png`)).subarray(1, 4)], [80, 78, 71]);
}

/** The view shows no stray `null` or `undefined` (a value the page failed to render). */
async function assertClean(b: ConsoleBrowser, what: string): Promise<void> {
  const text = await b.page.locator("#view").innerText();
  assert.doesNotMatch(text, /^(?:null|undefined)$|\bundefined\b|\[object Object\]/m, what);
}

const badgeOf = (id: string, status: string) =>
  `#executions tr[data-id="${id}"] [data-status="${status}"]`;

chromiumTest(
  "console in Chromium: live list, approve, reject, resolve, snippets, connectors, artifacts, sessions, screenshots",
  async () => {
    const shots = await Deno.makeTempDir({ prefix: "cordon-shots-" });
    await using t = await openService();
    await using b = await openBrowser(t.service.url);
    const { page } = b;
    await page.goto(`${t.service.url}/#/executions`);
    await page.locator("#live.on").waitFor();
    await page.getByText("No executions yet").waitFor();
    await page.evaluate(() => Object.assign(globalThis, { stayed: true }));

    // Runs started elsewhere appear in the list as they pause, without a reload.
    const approveMe = await start(t, GATED);
    await page.locator(badgeOf(approveMe, "paused")).waitFor();
    const rejectMe = await start(t, GATED);
    const resolveMe = await start(t, ASKS);
    await page.locator(badgeOf(rejectMe, "paused")).waitFor();
    await page.locator(badgeOf(resolveMe, "paused")).waitFor();
    const quick = await t.call("POST", "/v1/executions", { code: "return 6 * 7" });
    assert.equal(quick.json.result, 42);
    await page.locator(badgeOf(quick.json.executionId, "completed")).waitFor();
    assert.equal(await page.evaluate(() => (globalThis as { stayed?: boolean }).stayed), true);
    await page.locator("#pending-count", { hasText: "3" }).waitFor();
    await shot(b, shots, "executions");

    // Pending: reject one with a reason, resolve the client's call after a value that fails.
    await page.click('nav a[data-view="pending"]');
    const cardOf = (id: string) => page.locator(`.pending[data-execution="${id}"]`);
    await cardOf(resolveMe).waitFor();
    await shot(b, shots, "pending");
    await assertClean(b, "pending");
    await cardOf(rejectMe).getByLabel("Reason").fill("not this week");
    await cardOf(rejectMe).locator('[data-action="reject"]').click();
    await cardOf(rejectMe).getByText("the run is now rejected").waitFor();
    const editor = cardOf(resolveMe).getByLabel("Value (JSON)");
    const resolve = cardOf(resolveMe).locator('[data-action="resolve"]');
    await editor.fill("42");
    await cardOf(resolveMe).getByText("expected string, got integer").waitFor();
    assert.equal(await resolve.isDisabled(), true, "a value the schema refuses cannot be sent");
    await editor.fill('"Ada"');
    for (let i = 0; i < 100 && !(await resolve.isEnabled()); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await resolve.click();
    await cardOf(resolveMe).getByText("the run is now completed").waitFor();

    // The execution page: approve in place, watch it end, save it as a snippet.
    await page.goto(`${t.service.url}/#/executions/${approveMe}`);
    await page.locator("#console-lines", { hasText: "drafting the weekly report" }).waitFor();
    await page.locator(".code .t-k", { hasText: "await" }).first().waitFor();
    await page.locator('.pending [data-action="approve"]').click();
    await page.locator('#view .bar [data-status="completed"]').waitFor();
    await page.locator('tr[data-seq="2"] [data-status="applied"]').waitFor();
    await page.locator(".timeline .done").waitFor();
    // The page redraws once the run's events end (and when a late check reports). A redraw must
    // not move the save form: a field that moves loses its focus, and a click on it can be lost.
    const nameField = page.getByLabel("Snippet name");
    await nameField.focus();
    await page.evaluate(() => new Promise((r) => setTimeout(r, 400)));
    assert.ok(
      await nameField.evaluate((el) =>
        el.isConnected &&
        el === (globalThis as unknown as { document: { activeElement: unknown } }).document
            .activeElement
      ),
      "the snippet name field lost its focus to a redraw",
    );
    await nameField.fill("weekly-report");
    await page.getByRole("button", { name: "Save as snippet" }).click();
    await page.locator("#save-snippet a.ok", { hasText: "Saved weekly-report v1" }).waitFor();
    await shot(b, shots, "execution");
    await assertClean(b, "execution");

    // What the page did is what the API holds.
    assert.equal((await t.call("GET", `/v1/executions/${approveMe}`)).json.status, "completed");
    const rejected = (await t.call("GET", `/v1/executions/${rejectMe}`)).json;
    assert.equal(rejected.status, "rejected");
    assert.match(JSON.stringify(rejected), /not this week/);
    const resolved = (await t.call("GET", `/v1/executions/${resolveMe}`)).json;
    assert.equal(resolved.result, "paging Ada");
    const snippet = await t.call("GET", "/v1/snippets/weekly-report");
    assert.equal(snippet.status, 200);
    assert.equal(snippet.json.code, GATED);
    assert.equal((await t.call("GET", "/v1/pending")).json.items.length, 0);

    // Snippets: listed, read, run with input (the run opens, and pauses at its mail).
    await page.click('nav a[data-view="snippets"]');
    await page.getByRole("link", { name: "weekly-report" }).click();
    await page.locator(".code", { hasText: "drafting the weekly report" }).waitFor();
    await assertClean(b, "snippet");
    await page.getByLabel("Input (JSON)").fill('{ "week": 12 }');
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.locator('#view .bar [data-status="paused"]').waitFor();
    const rerun = decodeURIComponent(page.url().split("#/executions/")[1]);
    assert.deepEqual((await t.call("GET", `/v1/executions/${rerun}`)).json.input, { week: 12 });

    // Connectors: check one, search, describe a tool.
    await page.click('nav a[data-view="connectors"]');
    const mailRow = page.locator("tr", {
      has: page.getByRole("link", { name: "mail", exact: true }),
    });
    await mailRow.getByRole("button", { name: "Check" }).click();
    await mailRow.getByText("ready").waitFor();
    await page.getByLabel("Search").fill("mail");
    await page.getByLabel("Search").press("Enter");
    await page.getByRole("link", { name: "mail.send" }).click();
    await page.locator("#described", { hasText: "Promise<string>" }).waitFor();
    await assertClean(b, "connector");

    // Artifacts: listed with their versions, downloaded with the key.
    for (const text of ["week,total\n11,42\n", "week,total\n12,40\n"]) {
      const put = await fetch(`${t.service.url}/v1/artifacts/reports/weekly.csv`, {
        method: "PUT",
        headers: { "content-type": "text/csv" },
        body: text,
      });
      assert.equal(put.status, 201);
      await put.body?.cancel();
    }
    await page.click('nav a[data-view="artifacts"]');
    await page.getByRole("link", { name: "reports/weekly.csv" }).click();
    await page.getByText("v1", { exact: true }).waitFor();
    await assertClean(b, "artifact");
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.locator("tr", { hasText: "v2" }).getByRole("button", { name: "Download" }).click(),
    ]);
    assert.equal(file.suggestedFilename(), "weekly.csv");
    assert.equal(await Deno.readTextFile((await file.path())!), "week,total\n12,40\n");

    // Sessions: a live one is listed and closed from the page.
    const session = await t.call("POST", "/v1/executions", { code: "return 1", session: true });
    const sessionId = session.json.meta.sessionId;
    await page.click('nav a[data-view="sessions"]');
    const sessionRow = page.locator("tr", { hasText: sessionId });
    await sessionRow.getByRole("button", { name: "Close" }).click();
    await page.getByText("No live sessions.").waitFor();
    assert.deepEqual((await t.call("GET", "/v1/sessions")).json.items, []);

    // The list caught every end live too.
    await page.goto(`${t.service.url}/#/executions`);
    await page.locator(badgeOf(rejectMe, "rejected")).waitFor();
    assert.deepEqual(b.foreign, [], "the page reached nothing but the server");
    assert.deepEqual(b.errors, []);
    await Deno.remove(shots, { recursive: true });
  },
);

async function keyedService(): Promise<{ t: TestService; token: string; admin: string }> {
  const t = await openService({ auth: "keys" });
  const { token } = await t.service.keys.create({ name: "ops", scopes: ["execute", "approve"] });
  const { token: admin } = await t.service.keys.create({ name: "root", scopes: ["admin"] });
  return { t, token, admin };
}

chromiumTest(
  "console in Chromium: a server with keys asks for one, keeps it per tab, shows 403s",
  async () => {
    const { t, token, admin } = await keyedService();
    await using _t = t;
    await using b = await openBrowser(t.service.url);
    const { page } = b;
    await page.goto(`${t.service.url}/#/executions`);
    await page.locator("#key-form").waitFor();
    assert.equal(await page.locator("#view").isHidden(), true);
    await page.fill("#key-input", "cordon_this_is_not_a_key_at_all");
    await page.click('#key-form button[type="submit"]');
    await page.getByText("The key was refused").waitFor();
    await page.fill("#key-input", token);
    await page.click('#key-form button[type="submit"]');
    await page.getByText("No executions yet").waitFor();
    await page.locator("#live.on").waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem("cordon.key")), token);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    // A view this key's scopes do not allow shows the API's refusal.
    await page.click('nav a[data-view="keys"]');
    await page.locator(".error", { hasText: "forbidden" }).waitFor();
    assert.match(await page.locator(".error").innerText(), /admin/);
    // A reload keeps the key (same tab); a new tab would ask again.
    await page.reload();
    await page.locator("#live.on").waitFor();
    assert.equal(await page.locator("#key-form").isHidden(), true);

    // "forget" drops it; an admin key then makes a key (its token shown once) and revokes it.
    await page.getByRole("button", { name: "forget" }).click();
    await page.locator("#key-form").waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem("cordon.key")), null);
    await page.fill("#key-input", admin);
    await page.click('#key-form button[type="submit"]');
    await page.locator("#create-key").waitFor();
    await page.getByLabel("Key name").fill("ci");
    await page.getByRole("button", { name: "Create key" }).click();
    const made = await page.locator("#new-token").innerText();
    assert.match(made, /^cordon_/);
    const ran = await t.call("POST", "/v1/executions", { code: "return 3" }, {
      authorization: `Bearer ${made}`,
    });
    assert.equal(ran.json.result, 3, "the token shown works");
    const listed = await t.call("GET", "/v1/keys", undefined, { authorization: `Bearer ${admin}` });
    const ci = listed.json.items.find((k: { name: string }) => k.name === "ci");
    const ciRow = page.locator(`tr[data-key="${ci.id}"]`);
    page.once("dialog", (d) => d.accept());
    await ciRow.getByRole("button", { name: "Revoke" }).click();
    await ciRow.locator('[data-status="revoked"]').waitFor();
    const refused = await t.call("GET", "/v1/executions", undefined, {
      authorization: `Bearer ${made}`,
    });
    assert.equal(refused.status, 401);
    assert.deepEqual(b.foreign, []);
    assert.deepEqual(b.errors, []);
  },
);
