import assert from "node:assert/strict";
import { type SearchDocument, SearchIndex } from "../../src/connectors/search.ts";
import { parseQuery } from "../../src/connectors/search_parse.ts";
import { gluedParts, searchTerms, splitWords, stem } from "../../src/connectors/search_terms.ts";

function tool(connector: string, name: string, description: string): SearchDocument {
  return { kind: "tool", path: `${connector}.${name}`, name, connector, description };
}

function top(index: SearchIndex, query: string, limit = 10): string[] {
  return index.search(query, { limit }).items.map((h) => h.path);
}

Deno.test("splitWords() splits snake_case, camelCase, PascalCase, kebab-case and acronyms", () => {
  assert.deepEqual(splitWords("list_pull_requests"), ["list", "pull", "requests"]);
  assert.deepEqual(splitWords("searchJiraIssuesUsingJql"), [
    "search",
    "Jira",
    "Issues",
    "Using",
    "Jql",
  ]);
  assert.deepEqual(splitWords("hubspot-create-deal"), ["hubspot", "create", "deal"]);
  assert.deepEqual(splitWords("PutBucketLifecycleConfiguration"), [
    "Put",
    "Bucket",
    "Lifecycle",
    "Configuration",
  ]);
  assert.deepEqual(splitWords("ListObjectsV2 HTTPRequest URLs"), [
    "List",
    "Objects",
    "V2",
    "HTTP",
    "Request",
    "URLS",
  ]);
});

Deno.test("stem() folds -ing, -ed and a final e without merging different words", () => {
  for (const [a, b] of [["scheduled", "schedule"], ["running", "run"], ["closed", "close"]]) {
    assert.equal(stem(a), stem(b), `${a} and ${b}`);
  }
  assert.equal(stem("added"), stem("add"));
  assert.equal(stem("embedded"), stem("embed"));
  assert.notEqual(stem("string"), stem("str"));
  assert.notEqual(stem("need"), stem("ne"));
  assert.equal(stem("speed"), "speed");
  // Derivations stay apart: an approval is not the act of approving.
  assert.notEqual(stem("approval"), stem("approve"));
  // British spelling doubles a final l; short words keep theirs.
  for (const [a, b] of [["labelled", "label"], ["cancelled", "cancel"], ["travelling", "travel"]]) {
    assert.equal(stem(a), stem(b), `${a} and ${b}`);
  }
  assert.equal(stem("called"), stem("call"));
  assert.equal(stem("spelled"), "spell");
});

Deno.test("searchTerms() folds plurals but keeps words that only end like one", () => {
  assert.deepEqual(searchTerms("statuses aliases replies boxes"), [
    "status",
    "alias",
    "reply",
    "box",
  ]);
  assert.deepEqual(searchTerms("status alias canvas"), ["status", "alias", "canvas"]);
  assert.deepEqual(searchTerms("the of a to"), []);
  // A `#channel` is a channel; `#42` is not.
  assert.ok(searchTerms("post in #general").includes("channel"));
  assert.ok(!searchTerms("close #42").includes("channel"));
});

Deno.test("gluedParts() splits a glued identifier word only into words its own text uses", () => {
  const known = new Set("list the on call entries who is on call".split(" "));
  assert.deepEqual(gluedParts("oncalls", known), ["on", "calls"]);
  assert.deepEqual(gluedParts("freebusy", new Set(["free", "busy"])), ["free", "busy"]);
  assert.deepEqual(gluedParts("oncalls", new Set(["list"])), []);
  assert.deepEqual(gluedParts("call", known), [], "too short to be glued");
});

Deno.test("parseQuery() reads the opening verb and adjacent words glued", () => {
  assert.equal(parseQuery("page the database team").opening, "page");
  assert.equal(parseQuery("Please schedule a meeting").opening, stem("schedule"));
  assert.equal(parseQuery("what's on my schedule").opening, undefined);
  assert.equal(parseQuery("").opening, undefined);
  assert.equal(parseQuery("who is on call").joined.get("call"), "oncall");
  assert.equal(parseQuery("free/busy for Ana").joined.get("busy"), "freebusy");
});

Deno.test("SearchIndex.search() finds a glued plural by its halves (list_oncalls: on call)", () => {
  const index = new SearchIndex([
    tool("pagerduty", "list_oncalls", "List the on-call entries for escalation policies."),
    tool("pagerduty", "list_users", "List the users of the account."),
    tool("twilio", "createCall", "Start an outbound voice call."),
  ]);
  assert.equal(top(index, "who is on call")[0], "pagerduty.list_oncalls");
  assert.equal(top(index, "oncalls")[0], "pagerduty.list_oncalls");
});

Deno.test("SearchIndex.search() does not invent matches for short words: call≠cell, Texas≠text, page≠pagerduty", () => {
  const index = new SearchIndex([
    tool("towers", "cellInfo", "The carrier and cell tower a number last used."),
    tool("docs", "textSearch", "Full-text search over documents."),
    tool("pagerduty", "list_schedules", "List on-call schedules."),
    tool("weather", "getAlerts", "Active weather alerts for a US state."),
  ]);
  assert.ok(!top(index, "call").includes("towers.cellInfo"), "call is not cell");
  assert.ok(!top(index, "texas").includes("docs.textSearch"), "texas is not text");
  assert.ok(!top(index, "page").includes("pagerduty.list_schedules"), "page is not pagerduty");
  assert.deepEqual(top(index, "weather alerts in Texas"), ["weather.getAlerts"]);
});

Deno.test("SearchIndex.search() corrects typos of words of five letters or more, only when no document has the word", () => {
  const index = new SearchIndex([
    tool("stripe", "create_refund", "Refund a payment."),
    tool("stripe", "cancel_subscription", "Cancel a subscription."),
    tool("docs", "refind", "Find a document again."),
  ]);
  assert.equal(top(index, "refnd a payment")[0], "stripe.create_refund");
  assert.equal(top(index, "subscripton")[0], "stripe.cancel_subscription");
  assert.equal(top(index, "subscr")[0], "stripe.cancel_subscription", "a prefix of five or more");
  // "refind" is a word of the index: it is not read as a typo of "refund".
  assert.deepEqual(top(index, "refind"), ["docs.refind"]);
  // Four letters: no correction.
  assert.deepEqual(top(index, "refd"), []);
});
