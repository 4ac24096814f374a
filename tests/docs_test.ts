/**
 * The docs match the repository: every file or folder README.md and docs/*.md name exists, every
 * link within them lands on a heading, every route of the service is named in README.md with its
 * method, and every request body README.md shows for a route has only fields the route takes and
 * every field it needs.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { serviceRoutes } from "../src/service/server/app.ts";
import type { ServiceDeps } from "../src/service/routes/deps.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Top-level folders whose paths the docs name from the repository's root. */
const ROOTED = /(?<![\w./~<>-])(?:\.\/)?((?:src|docs|examples|bench|tests|scripts)\/[\w./-]*)/g;
/** `engine/mod.ts`, `runtime/types.ts`: source paths written from a folder under src/. */
const SHORT_SOURCE = /`((?:[\w-]+\/)+[\w-]+\.ts)`/g;
const LINK = /\]\(([^)\s]+)\)/g;

async function documents(): Promise<{ file: string; text: string }[]> {
  const out = [{ file: join(ROOT, "README.md"), text: "" }];
  for await (const e of Deno.readDir(join(ROOT, "docs"))) {
    if (e.isFile && e.name.endsWith(".md")) {
      out.push({ file: join(ROOT, "docs", e.name), text: "" });
    }
  }
  for (const d of out) d.text = await Deno.readTextFile(d.file);
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
}

function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = !fenced && line.match(/^#{1,6} (.+)$/);
    if (m) out.add(slug(m[1]));
  }
  return out;
}

/** Every path or link in `text` that leads nowhere, as `file: target (why)`. */
function brokenReferences(file: string, text: string, headings: Map<string, Set<string>>) {
  const where = relative(ROOT, file);
  const broken = new Set<string>();
  const named = new Set<string>();
  for (const m of text.matchAll(ROOTED)) {
    const path = m[1].replace(/[.)]+$/, "");
    named.add(path);
    if (!existsSync(join(ROOT, path))) broken.add(`${where}: ${path} (no such file)`);
  }
  for (const m of text.matchAll(SHORT_SOURCE)) {
    const path = m[1];
    if ([...named].some((n) => n.endsWith(path))) continue;
    const found = ["", "src", "src/engine", "src/service"].some((b) =>
      existsSync(join(ROOT, b, path))
    );
    if (!found) {
      broken.add(`${where}: ${path} (not under the root, src/, src/engine/ or src/service/)`);
    }
  }
  // Links are Markdown outside code: `f["x"](…)` in a code span is a call, not a link.
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  for (const m of prose.matchAll(LINK)) {
    const target = m[1];
    if (/^(?:https?|mailto):/.test(target)) continue;
    const [path, anchor] = target.split("#");
    const into = path ? join(dirname(file), path) : file;
    if (path && !existsSync(into)) {
      broken.add(`${where}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined && into.endsWith(".md") && !headings.get(into)?.has(anchor)) {
      broken.add(`${where}: ${target} (no such heading)`);
    }
  }
  return [...broken];
}

Deno.test("brokenReferences() finds missing files, missing headings and stray short paths", () => {
  const file = join(ROOT, "README.md");
  const headings = new Map([[file, new Set(["the-service"])]]);
  const text = "See `src/nowhere.ts`, `src/errors.ts`, [a](docs/none.md), [b](#the-service), " +
    "[c](#gone), `engine/mod.ts`, `engine/missing.ts` and https://example.com/src/x.ts.";
  assert.deepEqual(brokenReferences(file, text, headings), [
    "README.md: src/nowhere.ts (no such file)",
    "README.md: docs/none.md (no such file)",
    "README.md: engine/missing.ts (not under the root, src/, src/engine/ or src/service/)",
    "README.md: #gone (no such heading)",
  ]);
});

Deno.test("README.md and docs/*.md name no file that does not exist, and link only to headings that do", async () => {
  const docs = await documents();
  const headings = new Map(docs.map((d) => [d.file, anchors(d.text)]));
  const broken = docs.flatMap((d) => brokenReferences(d.file, d.text, headings));
  assert.deepEqual(broken, []);
});

/** The service's routes as a reader finds them: `METHOD /path/:param`, with their body schema. */
function routes(): { name: string; body?: z.ZodObject }[] {
  // The table only describes the routes; no handler runs here, so no part of the service is needed.
  return serviceRoutes({} as ServiceDeps).map((r) => ({
    name: `${r.method.toUpperCase()} ${r.path.replace(/\{[^}]*\}/g, "")}`,
    ...(r.body instanceof z.ZodObject ? { body: r.body } : {}),
  }));
}

function mentions(name: string): RegExp {
  return new RegExp(`${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?![\\w/:-])`);
}

/** The field list of the first `{ … }` after a table row's first cell, or undefined. */
function shownBody(row: string): { name: string; optional: boolean }[] | undefined {
  const rest = row.split("|").slice(2).join("|");
  const open = rest.indexOf("{");
  if (open === -1) return undefined;
  let depth = 0;
  let end = open;
  for (; end < rest.length; end++) {
    if (rest[end] === "{") depth++;
    if (rest[end] === "}" && --depth === 0) break;
  }
  const inner = rest.slice(open + 1, end);
  const items: string[] = [];
  depth = 0;
  let current = "";
  for (const ch of inner) {
    if (ch === "{") depth++;
    if (ch === "}") depth--;
    if (ch === "," && depth === 0) {
      items.push(current);
      current = "";
    } else current += ch;
  }
  items.push(current);
  return items.map((i) => i.split(":")[0].trim()).filter((i) => i && i !== "…" && i !== "...")
    .map((i) => ({ name: i.replace(/\?$/, ""), optional: i.endsWith("?") }));
}

Deno.test("shownBody() reads the first body of a row, optional marks and nesting included", () => {
  assert.deepEqual(shownBody("| `POST /x` | `{ a, b?, c: { d } }`: then `{ e }` |"), [
    { name: "a", optional: false },
    { name: "b", optional: true },
    { name: "c", optional: false },
  ]);
  assert.equal(shownBody("| `GET /x` | no body |"), undefined);
});

Deno.test("README.md names every route of the service with its method", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const all = routes();
  assert.ok(all.length > 30, `only ${all.length} routes`);
  const missing = all.filter((r) => !mentions(r.name).test(readme)).map((r) => r.name);
  assert.deepEqual(missing, [], "routes README.md does not name (as `METHOD /path`)");
});

Deno.test("every request body README.md shows has the route's fields: none it lacks, all it needs", async () => {
  const rows = (await Deno.readTextFile(join(ROOT, "README.md"))).split("\n")
    .filter((l) => l.startsWith("|"));
  const wrong: string[] = [];
  for (const r of routes()) {
    if (!r.body) continue;
    const shape = r.body.shape as Record<string, z.ZodType>;
    const shown = rows.filter((l) => mentions(r.name).test(l.split("|")[1] ?? ""))
      .map(shownBody).filter((b) => b !== undefined);
    if (shown.length === 0) wrong.push(`${r.name}: no table row shows its body`);
    for (const body of shown) {
      const names = body.map((f) => f.name);
      for (const f of body) {
        if (!(f.name in shape)) wrong.push(`${r.name}: shows "${f.name}", which it does not take`);
        else if (f.optional && !shape[f.name].safeParse(undefined).success) {
          wrong.push(`${r.name}: marks "${f.name}" optional, but it is required`);
        }
      }
      for (const [k, v] of Object.entries(shape)) {
        if (!v.safeParse(undefined).success && !names.includes(k)) {
          wrong.push(`${r.name}: leaves out "${k}", which it needs`);
        }
      }
    }
  }
  assert.deepEqual(wrong, []);
});
