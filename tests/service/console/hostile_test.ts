/**
 * The console against hostile and outsized data, in Chromium: markup in console lines, tool
 * arguments and results, error messages, snippet descriptions, connector and tool
 * descriptions and a waiting call's question shows as text and runs nothing; a 20,000-character
 * line and a result stored for being too large keep the page inside its width; a value for a
 * string typed without quotes gets a hint. One service and one browser for the whole file.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { defineConnector } from "../../../mod.ts";
import { openService } from "../_service.ts";
import { chromiumTest, openBrowser } from "./_browser.ts";

/** Markup that records `tag` in `window.hit` if a browser ever treats it as HTML. */
const evil = (tag: string) =>
  `<img src=x onerror="(window.hit=window.hit||[]).push('${tag}')">` +
  `<script>(window.hit=window.hit||[]).push('s-${tag}')</script><b>evil-${tag}</b>`;

const hostile = defineConnector({
  name: "hostile",
  description: `A connector described with markup ${evil("connector")}`,
  tools: {
    echo: {
      description: `Echoes its text ${evil("tool")}`,
      input: z.object({ text: z.string() }),
      execute: ({ text }) => ({ echoed: text }),
    },
    ask: {
      description: `Waits for the caller ${evil("ask-tool")}`,
      input: z.object({ question: z.string() }),
      output: z.string(),
      resolution: "client",
    },
  },
});

chromiumTest(
  "console in Chromium: hostile markup shows as text everywhere; huge lines and results fit",
  async (t) => {
    await using svc = await openService({ connectors: [hostile] });
    const run = async (code: string, wait = true) => {
      const r = await svc.call("POST", "/v1/executions", { code, wait });
      assert.ok(r.status === 200 || r.status === 202, JSON.stringify(r.json));
      return r.json.executionId as string;
    };
    const logged = await run(
      `console.log(${JSON.stringify(evil("log"))});\n` +
        `console.error(${JSON.stringify(evil("error-line"))});\n` +
        `return await hostile.echo({ text: ${JSON.stringify(evil("args"))} });`,
    );
    const thrown = await run(`throw new Error(${JSON.stringify(evil("thrown"))});`);
    const asked = await run(
      `return await hostile.ask({ question: ${JSON.stringify(evil("question"))} });`,
      false,
    );
    const long = await run(`console.log("y".repeat(20000)); return "w".repeat(5000);`);
    const big = await run(
      `return Array.from({ length: 3000 }, (_, i) => ({ i, text: "x".repeat(90) }));`,
    );
    const saved = await svc.call("POST", "/v1/snippets", {
      name: "marked-up",
      executionId: logged,
      description: evil("snippet"),
    });
    assert.equal(saved.status, 201, JSON.stringify(saved.json));
    const untilPaused = async (id: string) => {
      for (let i = 0; i < 200; i++) {
        if ((await svc.call("GET", `/v1/executions/${id}`)).json.status === "paused") return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`${id} never paused`);
    };
    await untilPaused(asked);

    await using b = await openBrowser(svc.service.url);
    const { page } = b;
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const open = async (hash: string, ready: string) => {
      await page.goto(`${svc.service.url}/${hash}`);
      await page.locator(ready).first().waitFor();
    };
    const assertInert = async (what: string, shown: string[]) => {
      const hit = await page.evaluate(() => (globalThis as { hit?: string[] }).hit ?? []);
      assert.deepEqual(hit, [], `${what}: markup ran`);
      // No markup became an element: no image, no script, no <b> of the markup's own.
      assert.equal(await page.locator("#view img, #view script").count(), 0, what);
      const bold = await page.locator("#view b").allInnerTexts();
      assert.deepEqual(bold.filter((x) => x.startsWith("evil-")), [], what);
      const text = await page.locator("#view").innerText();
      for (const tag of shown) {
        assert.ok(text.includes(`<b>evil-${tag}</b>`), `${what}: "${tag}" is shown as text`);
      }
      const width = await page.locator("html").evaluate((el) => el.scrollWidth);
      assert.ok(width <= 1280, `${what}: the page is ${width}px wide`);
    };

    await t.step(
      "markup in every place the page shows shows as text and runs nothing",
      async () => {
        await open("#/executions", `tr[data-id="${thrown}"]`);
        await assertInert("executions", ["thrown"]);
        await open(`#/executions/${logged}`, "#console-lines .log");
        await page.locator('tr[data-seq="1"] [data-status="applied"]').waitFor();
        await assertInert("execution", ["log", "error-line", "args"]);
        await open(`#/executions/${thrown}`, ".error");
        await assertInert("failed execution", ["thrown"]);
        await open("#/pending", `.pending[data-execution="${asked}"]`);
        await page.locator(".tool-description", { hasText: "Waits for the caller" }).waitFor();
        await assertInert("pending", ["question", "ask-tool"]);
        await open("#/snippets/marked-up", ".code");
        await assertInert("snippet", ["snippet", "log"]);
        await open("#/connectors", "text=hostile");
        await assertInert("connectors", ["connector"]);
        await open("#/connectors/hostile", "text=echo");
        await assertInert("connector", ["connector", "tool"]);
        assert.deepEqual(dialogs, []);
      },
    );

    await t.step(
      "a 20,000-character line and a stored result fit; the result downloads",
      async () => {
        await open(`#/executions/${long}`, "#console-lines .log");
        await assertInert("long line", []);
        await open(`#/executions/${big}`, "#stored-result");
        await assertInert("stored result", []);
        const card = await page.locator("#stored-result").innerText();
        assert.match(
          card,
          /Too large to show inline: 324\.1 KiB of JSON \(an array of 3000 items\)/,
        );
        assert.match(card, new RegExp(`stored as results/${big}\\.json@1`));
        const [file] = await Promise.all([
          page.waitForEvent("download"),
          page.locator("#stored-result").getByRole("button", { name: "Download" }).click(),
        ]);
        assert.equal(file.suggestedFilename(), `${big}.json`);
        const whole = JSON.parse(await Deno.readTextFile((await file.path())!));
        assert.equal(whole.length, 3000);
        assert.deepEqual(whole[2999], { i: 2999, text: "x".repeat(90) });
        // The list's times stay on one line beside a long error.
        await open("#/executions", `tr[data-id="${thrown}"]`);
        const heights = await page.locator(`tr[data-id="${big}"] td.when`).evaluateAll((cells) =>
          cells.map((c) => c.getBoundingClientRect().height)
        );
        assert.ok(heights.every((h) => h < 40), `one line each: ${heights}`);
      },
    );

    await t.step(
      "a result shaped like a stored one, and a path out of #/artifacts, lead nowhere",
      async () => {
        const fake = await run(
          'return { truncated: true, resultRef: "../../v1/keys@1", preview: "fake", totalBytes: 1 };',
        );
        await open(`#/executions/${fake}`, ".timeline .done");
        assert.equal(await page.locator("#stored-result").count(), 0, "shown as the JSON it is");
        assert.match(
          await page.locator("#view").innerText(),
          /"resultRef": "\.\.\/\.\.\/v1\/keys@1"/,
        );
        const asked: string[] = [];
        const onRequest = (r: { url(): string }) => void asked.push(new URL(r.url()).pathname);
        page.on("request", onRequest);
        await open("#/artifacts/../../v1/keys", ".error");
        page.off("request", onRequest);
        assert.match(await page.locator(".error").innerText(), /invalid_request/);
        assert.deepEqual(asked.filter((p) => p.startsWith("/v1/keys")), []);
      },
    );

    await t.step(
      "a waiting call says what it waits for; a typed value survives redraws; a bare string gets a hint",
      async () => {
        await open(`#/executions/${asked}`, 'tr[data-seq="1"]');
        assert.match(await page.locator('tr[data-seq="1"]').innerText(), /waits for a value/);
        const card = page.locator(`.pending[data-execution="${asked}"]`);
        const editor = card.getByLabel("Value (JSON)");
        await editor.fill("1.5.0");
        await card.getByText('A string is written in double quotes: "1.5.0"').waitFor();
        // The page redraws as the run's events arrive; what was typed stays.
        await new Promise((r) => setTimeout(r, 600));
        assert.equal(await editor.inputValue(), "1.5.0");
        await editor.fill('"1.5.0"');
        const resolve = card.locator('[data-action="resolve"]');
        for (let i = 0; i < 100 && !(await resolve.isEnabled()); i++) {
          await new Promise((r) => setTimeout(r, 20));
        }
        await resolve.click();
        await page.locator('#view .bar [data-status="completed"]').waitFor();
        assert.equal((await svc.call("GET", `/v1/executions/${asked}`)).json.result, "1.5.0");
      },
    );

    await t.step("a decided card on the Pending page stays, read-only", async () => {
      const again = await run('return await hostile.ask({ question: "again?" });', false);
      await untilPaused(again);
      await open("#/pending", `.pending[data-execution="${again}"]`);
      const card = page.locator(`.pending[data-execution="${again}"]`);
      await card.getByLabel("Value (JSON)").fill('"yes"');
      const resolve = card.locator('[data-action="resolve"]');
      for (let i = 0; i < 100 && !(await resolve.isEnabled()); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await resolve.click();
      await card.getByText("the run is now completed").waitFor();
      assert.equal(await card.getByLabel("Value (JSON)").isDisabled(), true);
      assert.equal(await card.getByLabel("Value (JSON)").inputValue(), '"yes"');
    });
    assert.deepEqual(b.foreign, [], "the page reached nothing but the server");
    assert.deepEqual(b.errors, []);
  },
);
