import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector } from "../../../mod.ts";
import {
  compactSignature,
  MAX_HIT_DESCRIPTION_CHARS,
  MAX_HIT_SIGNATURE_CHARS,
  oneLine,
} from "../../../src/engine/catalogue/search_hits.ts";

Deno.test("oneLine() keeps the first paragraph on one line, cut at a word", () => {
  assert.equal(oneLine("List issues.\n\nArgs:\n- owner: who"), "List issues.");
  assert.equal(oneLine("List  issues\nin a   repository."), "List issues in a repository.");
  const long = "Search pull requests across repositories ".repeat(10);
  const cut = oneLine(long);
  assert.ok(cut.length <= MAX_HIT_DESCRIPTION_CHARS, `${cut.length} characters`);
  assert.ok(cut.endsWith("…"));
  assert.ok(long.startsWith(cut.slice(0, -1)), "cut at a word, nothing rewritten");
});

Deno.test("compactSignature() bounds a signature: nested objects, then the result, then fields", () => {
  const short = "math.add(args: { a: number; b: number }): Promise<number>";
  assert.equal(compactSignature(short), short);
  const nested =
    `gh.list(args: { owner: string; filter: { labels: string[]; since: { date: string } } }): ` +
    `Promise<{ items: { number: number }[] }>`;
  assert.equal(
    compactSignature(nested, 80),
    "gh.list(args: { owner: string; filter: {…} }): Promise<{ items: {…}[] }>",
  );
  const wide = `crm.create(args: { ${
    Array.from({ length: 40 }, (_, i) => `field${i}: string`).join("; ")
  } }): Promise<{ id: string }>`;
  const got = compactSignature(wide);
  assert.ok(got.length <= MAX_HIT_SIGNATURE_CHARS, `${got.length} characters`);
  assert.match(got, /^crm\.create\(args: \{ field0: string; .*; … \}\): Promise<…>$/);
});

Deno.test("search() hits carry a one-line description and the tool's compact signature", async () => {
  const issues = defineConnector({
    name: "issues",
    description: "The team's issue tracker",
    tools: {
      list_issues: {
        description:
          "List the issues of a project, filtered by state.\n\nUse search_issues to search by text.",
        input: z.object({ project: z.string(), state: z.enum(["open", "closed"]).optional() }),
        output: z.array(z.object({ number: z.number(), title: z.string() })),
        execute: () => [],
      },
      search_issues: {
        description: "Search issues by text across projects.",
        input: z.object({ query: z.string() }),
        execute: () => [],
      },
    },
  });
  await using rt = await createRuntime({ connectors: [issues], db: ":memory:", pool: { size: 0 } });
  const [hit] = (await rt.search("list issues of a project", { limit: 1 })).items;
  assert.equal(hit.path, "issues.list_issues");
  assert.equal(hit.description, "List the issues of a project, filtered by state.");
  assert.equal(
    hit.signature,
    'issues.list_issues(args: { project: string; state?: "open" | "closed" }): ' +
      "Promise<{ number: number; title: string }[]>",
  );
  // The hint in list_issues' description sends a text search to its sibling.
  assert.equal((await rt.search("search issues by text")).items[0].path, "issues.search_issues");
  // describe() still has the whole description.
  assert.match((await rt.describe("issues.list_issues")).description, /search_issues/);
});
