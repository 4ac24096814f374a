import assert from "node:assert/strict";
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  type SearchDocument,
  SearchIndex,
} from "../../src/connectors/search.ts";
import { searchTerms } from "../../src/connectors/search_terms.ts";
import { CordonError } from "../../src/errors.ts";
import { CATALOGUE, NATURAL_QUERIES, SNIPPETS } from "../fixtures/catalogue.ts";

function catalogueDocuments(): SearchDocument[] {
  return [
    ...CATALOGUE.map((t): SearchDocument => ({
      kind: "tool",
      path: `${t.connector}.${t.name}`,
      name: t.name,
      connector: t.connector,
      description: t.description,
    })),
    ...SNIPPETS.map((s): SearchDocument => ({
      kind: "snippet",
      path: `snippet:${s.name}`,
      name: s.name,
      description: s.description,
    })),
  ];
}

function tool(connector: string, name: string, description: string): SearchDocument {
  return { kind: "tool", path: `${connector}.${name}`, name, connector, description };
}

function paths(index: SearchIndex, query: string, limit = DEFAULT_SEARCH_LIMIT): string[] {
  return index.search(query, { limit }).items.map((h) => h.path);
}

/** Every result of `query`, page by page. */
function allPaths(index: SearchIndex, query: string): string[] {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = index.search(query, { limit: MAX_SEARCH_LIMIT, cursor });
    out.push(...page.items.map((h) => h.path));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return out;
}

function assertInvalidRequest(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CordonError, `expected a CordonError, got ${err}`);
    assert.equal(err.code, "invalid_request");
    assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("CATALOGUE fixture has 200+ distinct tools across 15+ connectors", () => {
  const docs = catalogueDocuments();
  const tools = docs.filter((d) => d.kind === "tool");
  assert.ok(tools.length >= 200, `only ${tools.length} tools`);
  const connectors = new Set(tools.map((d) => d.connector));
  assert.ok(connectors.size >= 15, `only ${connectors.size} connectors`);
  assert.equal(new Set(docs.map((d) => d.path)).size, docs.length, "paths must be unique");
  assert.equal(
    new Set(tools.map((d) => d.description)).size,
    tools.length,
    "no copied descriptions",
  );
});

Deno.test("SearchIndex.search() puts the expected tool in the top 3 for natural queries", async (t) => {
  const index = new SearchIndex(catalogueDocuments());
  for (const [query, expected] of NATURAL_QUERIES) {
    await t.step(`"${query}" finds ${expected}`, () => {
      const top = paths(index, query, 3);
      assert.ok(top.includes(expected), `top 3 for "${query}" was ${top.join(", ")}`);
    });
  }
});

Deno.test("SearchIndex.search() finds camelCase names by their words", () => {
  const index = new SearchIndex([
    tool("github", "createIssue", "Open a new ticket in a repository"),
    tool("github", "listPullRequests", "Pull requests in a repository"),
    tool("http", "HTTPRequest", "Any request"),
    tool("s3", "getS3Object", "Download"),
    {
      kind: "snippet",
      path: "snippet:weekly_report",
      name: "weekly_report",
      description: "Summary",
    },
    tool("docs", "read-page", "Read a page"),
  ]);
  assert.equal(paths(index, "create issue")[0], "github.createIssue");
  assert.equal(paths(index, "issue")[0], "github.createIssue");
  assert.equal(paths(index, "createIssue")[0], "github.createIssue");
  assert.equal(paths(index, "pull request")[0], "github.listPullRequests");
  assert.equal(paths(index, "http")[0], "http.HTTPRequest");
  assert.equal(paths(index, "s3 object")[0], "s3.getS3Object");
  assert.equal(paths(index, "weekly")[0], "snippet:weekly_report");
  assert.equal(paths(index, "page")[0], "docs.read-page");
});

Deno.test("searchTerms() splits identifiers, folds plurals, stems and drops common words", () => {
  assert.deepEqual(searchTerms("createIssue"), ["creat", "issu"]);
  assert.deepEqual(searchTerms("HTTPRequest getS3Object"), [
    "http",
    "request",
    "get",
    "s3",
    "object",
  ]);
  assert.deepEqual(searchTerms("weekly_report kebab-case a.b"), [
    "weekly",
    "report",
    "kebab",
    "case",
  ]);
  assert.deepEqual(searchTerms("List the Issues and APIs of my repos"), [
    "list",
    "issu",
    "api",
    "repo",
  ]);
  // Inflections meet their word.
  assert.deepEqual(searchTerms("scheduled schedules scheduling schedule"), ["schedul"]);
  assert.deepEqual(searchTerms("running closed replies statuses aliases"), [
    "run",
    "close",
    "reply",
    "status",
    "alias",
  ]);
  assert.deepEqual(searchTerms("   "), []);
});

Deno.test("SearchIndex.search() matches prefixes and typos of words of five letters or more", () => {
  const index = new SearchIndex(catalogueDocuments());
  assert.equal(paths(index, "repo")[0].startsWith("github."), true);
  assert.ok(paths(index, "subscr", 3).includes("stripe.cancelSubscription"));
  assert.ok(paths(index, "refnd", 3).includes("stripe.createRefund"));
});

Deno.test("SearchIndex.search() ranks snippets alongside tools", () => {
  const index = new SearchIndex(catalogueDocuments());
  const page = index.search("standup digest for the team");
  assert.equal(page.items[0].path, "snippet:standup_digest");
  assert.equal(page.items[0].kind, "snippet");
  assert.ok(page.items.some((h) => h.kind === "tool"), "tools still rank below it");
  // The word "snippet" asks for snippets.
  assert.ok(
    index.search("snippet", { limit: SNIPPETS.length }).items.every((h) => h.kind === "snippet"),
  );
});

Deno.test("SearchIndex.search() is deterministic and breaks ties by path", () => {
  const docs = [
    tool("zeta", "ping", "Check the service"),
    tool("alpha", "ping", "Check the service"),
    tool("mid", "ping", "Check the service"),
  ];
  const forward = new SearchIndex(docs);
  const reverse = new SearchIndex([...docs].reverse());
  const a = forward.search("ping");
  const b = reverse.search("ping");
  assert.deepEqual(a.items.map((h) => h.path), ["alpha.ping", "mid.ping", "zeta.ping"]);
  assert.deepEqual(a, b);
  const big = new SearchIndex(catalogueDocuments());
  assert.deepEqual(
    big.search("list issues", { limit: 50 }),
    big.search("list issues", { limit: 50 }),
  );
});

Deno.test("SearchIndex.search() lists everything by path for a blank query", () => {
  const index = new SearchIndex(catalogueDocuments());
  for (const blank of ["", "   ", "the a to"]) {
    const page = index.search(blank, { limit: MAX_SEARCH_LIMIT });
    assert.equal(page.total, index.size);
    const listed = page.items.map((h) => h.path);
    assert.deepEqual(listed, [...listed].sort());
    assert.ok(page.items.every((h) => h.score === 0));
  }
});

Deno.test("SearchIndex.search() pages are disjoint and cover every result", () => {
  const index = new SearchIndex(catalogueDocuments());
  for (const query of ["", "list"]) {
    const all = index.search(query, { limit: MAX_SEARCH_LIMIT });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = index.search(query, { limit: 7, cursor });
      assert.ok(page.items.length > 0 && page.items.length <= 7);
      assert.equal(page.total, all.total);
      seen.push(...page.items.map((h) => h.path));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    assert.equal(new Set(seen).size, seen.length, "pages overlap");
    assert.equal(seen.length, all.total);
    assert.equal(pages, Math.ceil(all.total / 7));
    if (all.total <= MAX_SEARCH_LIMIT) assert.deepEqual(seen, all.items.map((h) => h.path));
  }
  const total = index.search("invoice").total;
  assert.ok(total > 1 && total <= MAX_SEARCH_LIMIT);
  const exact = index.search("invoice", { limit: total });
  assert.equal(exact.items.length, total);
  assert.equal(exact.nextCursor, undefined, "no cursor when the page ends the results");
});

Deno.test("SearchIndex.search() uses the default limit when none is given", () => {
  const index = new SearchIndex(catalogueDocuments());
  const page = index.search("");
  assert.equal(page.items.length, DEFAULT_SEARCH_LIMIT);
  assert.ok(page.nextCursor);
});

Deno.test("SearchIndex.search() refuses bad limits", () => {
  const index = new SearchIndex(catalogueDocuments());
  for (const limit of [0, -1, 1.5, NaN, MAX_SEARCH_LIMIT + 1, Infinity]) {
    assertInvalidRequest(() => index.search("x", { limit }), /limit/);
  }
  assert.equal(index.search("", { limit: MAX_SEARCH_LIMIT }).items.length, MAX_SEARCH_LIMIT);
});

Deno.test("SearchIndex.search() refuses garbage cursors and cursors from another query", () => {
  const index = new SearchIndex(catalogueDocuments());
  const first = index.search("send message", { limit: 2 });
  assert.ok(first.nextCursor);
  assertInvalidRequest(
    () => index.search("refund", { cursor: first.nextCursor }),
    /different query/,
  );
  const garbage = [
    "",
    "not-a-cursor",
    "%%%",
    btoa("{}"),
    btoa(JSON.stringify({ o: -1, q: "x" })),
    btoa(JSON.stringify({ o: "3", q: "x" })),
    "A".repeat(5000),
  ];
  for (const cursor of garbage) {
    assertInvalidRequest(() => index.search("send message", { cursor }), /cursor/);
  }
  // The same words, differently written, are the same query.
  const second = index.search("Send  MESSAGE", { limit: 2, cursor: first.nextCursor });
  assert.notDeepEqual(second.items, first.items);
});

Deno.test("SearchIndex.search() refuses overlong queries", () => {
  const index = new SearchIndex(catalogueDocuments());
  assertInvalidRequest(() => index.search("word ".repeat(1000)), /characters/);
});

Deno.test("SearchIndex.add() replaces the document with the same path", () => {
  const index = new SearchIndex([tool("github", "createIssue", "Open an issue about a teapot")]);
  index.add(tool("github", "createIssue", "File a complaint about a kettle"));
  assert.equal(index.size, 1);
  assert.equal(index.search("issue open").total, 1, "the name still matches");
  assert.equal(index.search("kettle").items[0].description, "File a complaint about a kettle");
  assert.equal(index.search("teapot").total, 0, "the old description is gone");
});

Deno.test("SearchIndex.remove() drops a document from results and listings", () => {
  const index = new SearchIndex(catalogueDocuments());
  const before = index.size;
  assert.equal(index.remove("slack.postMessage"), true);
  assert.equal(index.remove("slack.postMessage"), false);
  assert.equal(index.size, before - 1);
  assert.ok(!allPaths(index, "post a message to a channel").includes("slack.postMessage"));
  const listed = allPaths(index, "");
  assert.equal(listed.length, before - 1);
  assert.ok(!listed.includes("slack.postMessage"));
});

Deno.test("SearchIndex.replaceAll() swaps the whole catalogue", () => {
  const index = new SearchIndex(catalogueDocuments());
  index.replaceAll([
    tool("math", "add", "Add two numbers"),
    tool("math", "add", "Sum two numbers"),
  ]);
  assert.equal(index.size, 1);
  assert.deepEqual(paths(index, "sum"), ["math.add"]);
  assert.equal(index.search("slack").total, 0);
});

Deno.test("SearchIndex.add() refuses a document without a path", () => {
  const index = new SearchIndex();
  assertInvalidRequest(
    () => index.add({ kind: "tool", path: "", name: "x", description: "y" }),
    /document/,
  );
  assertInvalidRequest(
    () => index.replaceAll([{ kind: "widget", path: "a.b", name: "b", description: "" } as never]),
    /document/,
  );
  assert.equal(index.size, 0);
});
