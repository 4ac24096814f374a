/**
 * Drives Debian's Chromium with playwright-core for the console's browser test and the
 * README's screenshots: a fresh profile per browser, every request to anything but the
 * server refused and recorded, page errors recorded, and a PNG check that a screenshot shows
 * something.
 */
import assert from "node:assert/strict";
import { inflateSync } from "node:zlib";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import type { TestService } from "../_service.ts";

/** Where Chromium is (Debian's package). */
export const CHROMIUM = "/usr/bin/chromium";

/** Flags for a quiet headless Chromium that reaches nothing by itself. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** True when Chromium is installed. */
export function haveChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const PRESENT = haveChromium();
const CI = Deno.env.get("CI") !== undefined;

/**
 * A test that drives Chromium: skipped with a message where it is not installed, except in CI,
 * where it fails. Browsers and servers outlive single steps, so the sanitizers are off.
 */
export function chromiumTest(name: string, fn: (t: Deno.TestContext) => Promise<void>): void {
  if (!PRESENT && !CI) {
    console.log(`skipped (no ${CHROMIUM}; apt-get install chromium): ${name}`);
  }
  Deno.test({
    name,
    ignore: !PRESENT && !CI,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      assert.ok(PRESENT, `CI needs Chromium at ${CHROMIUM} (.ci/run installs it)`);
      await fn(t);
    },
  });
}

/** A browser with one page, bound to one server. */
export interface ConsoleBrowser extends AsyncDisposable {
  context: BrowserContext;
  page: Page;
  /** Requests the page tried to send anywhere but the server (refused). */
  foreign: string[];
  /** Uncaught errors and console errors of the page. */
  errors: string[];
}

/** Opens Chromium at 1280x800 with a new empty profile; only `origin` is reachable. */
export async function openBrowser(origin: string): Promise<ConsoleBrowser> {
  const profile = await Deno.makeTempDir({ prefix: "cordon-chromium-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
  });
  const foreign: string[] = [];
  const errors: string[] = [];
  await context.route((url) => url.origin !== origin, (route) => {
    foreign.push(route.request().url());
    return route.abort();
  });
  const page = context.pages()[0] ?? await context.newPage();
  // A step that has not happened in 20 s will not (a busy CI machine included): fail early.
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // A refused request (401 before the key is given, 403 without a scope) is the API's answer.
    if (m.type() === "error" && !/status of 40[13]/.test(m.text())) {
      errors.push(`console: ${m.text()}`);
    }
  });
  return {
    context,
    page,
    foreign,
    errors,
    async [Symbol.asyncDispose]() {
      await context.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** What a PNG holds, read from its bytes (its header, size, and how varied its pixels are). */
export function pngStats(png: Uint8Array): { width: number; height: number; distinct: number } {
  const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!SIGNATURE.every((b, i) => png[i] === b)) throw new Error("not a PNG");
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let width = 0;
  let height = 0;
  const data: Uint8Array[] = [];
  for (let at = 8; at < png.length;) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
    } else if (type === "IDAT") data.push(body);
    at += 12 + length;
  }
  const joined = new Uint8Array(data.reduce((n, d) => n + d.length, 0));
  data.reduce((at, d) => (joined.set(d, at), at + d.length), 0);
  const raw = inflateSync(joined);
  // Distinct byte values over the image: a blank page filters to a handful.
  const seen = new Set<number>();
  for (let i = 0; i < raw.length; i += 7) seen.add(raw[i]);
  return { width, height, distinct: seen.size };
}

/** Code that pauses at a call needing approval, after a line of output. */
export const GATED = `console.log("drafting the weekly report");
const total = await math.add({ a: 40, b: 2 });
// A person approves the mail before it goes.
return await mail.send({ to: \`team-\${total}@example.com\` });`;

/** Code that waits for a value the client supplies. */
export const ASKS = `const name = await client.ask({ question: "Who is on call?" });
return \`paging \${name}\`;`;

/** Starts a run without waiting; its id. */
export async function start(t: TestService, code: string, language?: string): Promise<string> {
  const r = await t.call("POST", "/v1/executions", {
    code,
    wait: false,
    ...(language ? { language } : {}),
  });
  if (r.status !== 202) throw new Error(`run not started: ${JSON.stringify(r.json)}`);
  return r.json.executionId;
}

/** Waits until the execution has `status`. */
export async function until(t: TestService, id: string, status: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if ((await t.call("GET", `/v1/executions/${id}`)).json.status === status) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${id} never became ${status}`);
}
