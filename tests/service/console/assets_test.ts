/**
 * The console's files as a browser gets them: types, security headers, ETags, no key needed,
 * nothing loaded from anywhere but the server, and cross-site requests refused.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { openService } from "../_service.ts";
import { CONSOLE_CSP, CONSOLE_FILES } from "../../../src/service/console/mod.ts";

const STATIC = fileURLToPath(new URL("../../../src/service/console/static/", import.meta.url));

function assertSecure(res: Response, what: string): void {
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.equal(csp, CONSOLE_CSP, what);
  for (const d of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"]) {
    assert.ok(csp.split("; ").includes(d), `${what}: ${d}`);
  }
  assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), what);
  assert.equal(res.headers.get("x-frame-options"), "DENY", what);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff", what);
  assert.equal(res.headers.get("referrer-policy"), "no-referrer", what);
}

Deno.test("console: the page and its files, with types, security headers and ETags, need no key", async () => {
  // A server with keys: the files still load without one; the data does not.
  await using t = await openService({ auth: "keys" });
  const page = await fetch(`${t.service.url}/`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  assertSecure(page, "/");
  const html = await page.text();
  assert.match(html, /<script type="module" src="\/console\/app\.js"><\/script>/);
  assert.equal((await t.call("GET", "/v1/executions")).status, 401);

  let total = html.length;
  for (const [name, type] of Object.entries(CONSOLE_FILES)) {
    if (name === "index.html") continue;
    const res = await fetch(`${t.service.url}/console/${name}`);
    assert.equal(res.status, 200, name);
    assert.equal(res.headers.get("content-type"), type, name);
    assertSecure(res, name);
    assert.equal(res.headers.get("cache-control"), "no-cache");
    const etag = res.headers.get("etag")!;
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    const body = await res.text();
    assert.equal(body, await Deno.readTextFile(`${STATIC}${name}`), name);
    total += body.length;
    const again = await fetch(`${t.service.url}/console/${name}`, {
      headers: { "if-none-match": etag },
    });
    assert.equal(again.status, 304, name);
    assert.equal(await again.text(), "");
    assertSecure(again, `${name} (304)`);
  }
  // The whole console stays small (it is read on every first load).
  assert.ok(total < 100_000, `${total} bytes`);
  const head = await fetch(`${t.service.url}/console/app.css`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");

  for (const path of ["/console/nope.js", "/console/../deno.json", "/console/", "/index.html"]) {
    const res = await fetch(`${t.service.url}${path}`);
    assert.equal(res.status, 404, path);
    assert.equal((await res.json()).error.code, "not_found");
  }
  const post = await fetch(`${t.service.url}/`, { method: "POST" });
  assert.equal(post.status, 405);
  await post.body?.cancel();
});

Deno.test("console: cross-site requests are refused; a link from another site opens the page only", async () => {
  await using t = await openService();
  const navigate = { "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };
  const opened = await fetch(`${t.service.url}/`, {
    headers: { "sec-fetch-site": "cross-site", ...navigate },
  });
  assert.equal(opened.status, 200, "following a link to the console works");
  assertSecure(opened, "/ from a link");
  await opened.body?.cancel();
  for (
    const [path, headers] of [
      ["/", { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" }],
      ["/console/app.js", { "sec-fetch-site": "cross-site", "sec-fetch-dest": "script" }],
      ["/v1/executions", { "sec-fetch-site": "cross-site", ...navigate }],
      ["/v1/events", { "sec-fetch-site": "same-site" }],
      ["/v1/keys", { origin: "https://evil.example" }],
    ] as const
  ) {
    const res = await fetch(`${t.service.url}${path}`, { headers });
    assert.equal(res.status, 403, `${path} ${JSON.stringify(headers)}`);
    assert.equal((await res.json()).error.code, "forbidden");
  }
  const post = await t.call("POST", "/v1/keys", { name: "x", scopes: ["admin"] }, {
    origin: "http://127.0.0.1:1",
  });
  assert.equal(post.status, 403, "a page elsewhere cannot make a key");
  assert.equal((await t.call("GET", "/v1/keys")).json.items.length, 0);
  // The console's own requests (same origin) pass.
  const own = await t.call("GET", "/v1/keys", undefined, {
    origin: t.service.url,
    "sec-fetch-site": "same-origin",
  });
  assert.equal(own.status, 200);
});

Deno.test("console files: every file is served, small, and loads nothing from elsewhere", async () => {
  const onDisk = [];
  for await (const e of Deno.readDir(STATIC)) onDisk.push(e.name);
  assert.deepEqual(onDisk.sort(), Object.keys(CONSOLE_FILES).sort(), "served = on disk");
  for (const name of onDisk) {
    const text = await Deno.readTextFile(`${STATIC}${name}`);
    assert.ok(text.split("\n").length <= 300, `${name} is over 300 lines`);
    // No other host: no CDN, no font service, no analytics.
    assert.doesNotMatch(text, /https?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i, name);
    if (name.endsWith(".js")) {
      assert.doesNotMatch(
        text,
        /\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|\beval\(|new Function/,
        name,
      );
      assert.doesNotMatch(text, /\blocalStorage\b/, `${name}: the key stays per tab`);
    }
  }
  const html = await Deno.readTextFile(`${STATIC}index.html`);
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script");
  assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, "no inline style or handler");
});
