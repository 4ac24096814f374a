import assert from "node:assert/strict";
import {
  MAX_CACHED_NAMESPACE_CORPORA,
  type SearchDocument,
  SearchIndex,
} from "../../src/connectors/search.ts";
import { CATALOGUE } from "../fixtures/catalogue.ts";

const TOOLS: SearchDocument[] = CATALOGUE.map((t) => ({
  kind: "tool",
  path: `${t.connector}.${t.name}`,
  name: t.name,
  connector: t.connector,
  description: t.description,
}));

function snippet(namespace: string, name: string, description: string): SearchDocument {
  return { kind: "snippet", path: `snippet:${name}`, name, description, namespace };
}

/** Namespace B's own snippets. */
const B_SNIPPETS = [
  snippet("b", "weekly_report", "Build the weekly sales report from invoices"),
  snippet("b", "close_stale_issues", "Close issues nobody touched in a month"),
];

/**
 * Namespace A's snippets, worded to move BM25 statistics for B's queries: the same words
 * (report, invoice, issue, message) many times over, and names B's queries would match.
 */
const A_SNIPPETS = Array.from({ length: 60 }, (_, i) =>
  snippet(
    "a",
    `report_${i}`,
    `Send the invoice report message about issue ${i} to the channel, report invoice issue`,
  ));

const QUERIES = [
  "weekly report",
  "invoice",
  "create an issue",
  "send a message to a channel",
  "close stale issues",
  "snippet",
  "",
];

Deno.test("SearchIndex.search() in one namespace scores the same with or without another's snippets", () => {
  const without = new SearchIndex([...TOOLS, ...B_SNIPPETS]);
  const withA = new SearchIndex([...TOOLS, ...B_SNIPPETS, ...A_SNIPPETS]);
  for (const query of QUERIES) {
    const expected = without.search(query, { namespace: "b", limit: 50 });
    const got = withA.search(query, { namespace: "b", limit: 50 });
    assert.deepEqual(got, expected, `namespace b's results for "${query}" changed`);
    assert.ok(got.items.every((h) => !h.path.startsWith("snippet:report_")));
  }
  // A namespace with no snippets of its own sees the tools alone, scored the same too.
  assert.deepEqual(
    withA.search("invoice report", { namespace: "c", limit: 50 }),
    new SearchIndex(TOOLS).search("invoice report", { limit: 50 }),
  );
  // And a's own search does see its snippets.
  assert.equal(withA.search("report 7", { namespace: "a" }).items[0].path, "snippet:report_7");
});

Deno.test("SearchIndex.search() stays isolated as snippets come and go and corpora are evicted", () => {
  const index = new SearchIndex([...TOOLS, ...B_SNIPPETS]);
  const before = index.search("weekly report invoice", { namespace: "b", limit: 50 });
  // a's snippets arrive one by one after b's corpus was built, then some go again.
  for (const doc of A_SNIPPETS) index.add(doc);
  assert.deepEqual(index.search("weekly report invoice", { namespace: "b", limit: 50 }), before);
  for (const doc of A_SNIPPETS.slice(0, 30)) index.remove(doc.path, "a");
  // Many namespaces search, pushing b's corpus out of the cache; rebuilt, it scores the same.
  for (let i = 0; i <= MAX_CACHED_NAMESPACE_CORPORA; i++) {
    index.add(snippet(`n${i}`, "weekly_report", "Another tenant's weekly report"));
    index.search("weekly report", { namespace: `n${i}` });
  }
  assert.deepEqual(index.search("weekly report invoice", { namespace: "b", limit: 50 }), before);
  // b's own change does move b's results.
  index.remove("snippet:weekly_report", "b");
  const after = index.search("weekly report invoice", { namespace: "b", limit: 50 });
  assert.ok(!after.items.some((h) => h.path === "snippet:weekly_report"));
});
