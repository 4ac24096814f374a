import assert from "node:assert/strict";
import { type SearchDocument, SearchIndex } from "../../src/connectors/search.ts";
import { parseQuery } from "../../src/connectors/search_parse.ts";
import { readValues } from "../../src/connectors/search_values.ts";

function tool(connector: string, name: string, description: string): SearchDocument {
  return { kind: "tool", path: `${connector}.${name}`, name, connector, description };
}

function top(index: SearchIndex, query: string, limit = 3): string[] {
  return index.search(query, { limit }).items.map((h) => h.path);
}

/** What `readValues` found in `text`: each value's first kind, or `id` for a bare id. */
function kinds(text: string): string[] {
  return readValues(text).evidence.map((e) => e.kinds[0] ?? (e.id ? "id" : "?"));
}

function left(text: string): string {
  return readValues(text).text.trim().split(/\s+/).join(" ");
}

Deno.test("readValues() takes ids out and says what their form names", () => {
  assert.deepEqual(kinds("refund ch_3Ab"), ["charge"]);
  assert.deepEqual(kinds("subscriptions of cus_NffrFeUfNV2Hib"), ["customer"]);
  assert.deepEqual(kinds("retrieve pi_3MtwBwLkdIwHu7ix28a3tqPa"), ["payment intent"]);
  assert.deepEqual(kinds("checks on PR #412"), ["issue"]);
  assert.deepEqual(kinds("get PROJ-412"), ["issue"]);
  assert.deepEqual(kinds("transcription of RE1234"), ["recording"]);
  assert.deepEqual(kinds("stop i-0abc123def456"), ["instance"]);
  assert.deepEqual(kinds("what changed in 3f2a9c1"), ["commit"]);
  assert.deepEqual(kinds("logs of api-7f9c4 and run 9876543"), ["id", "id"]);
  assert.deepEqual(kinds("replies in 1712345678.000100"), ["id"]);
  assert.equal(left("refund ch_3Ab now"), "refund now");
});

Deno.test("readValues() reads addresses, numbers, times and files as what they are", () => {
  assert.deepEqual(kinds("mail jane@example.com"), ["email"]);
  assert.deepEqual(kinds("open https://example.com/a?b=1"), ["link"]);
  assert.deepEqual(kinds("is +1 415 555 0100 a mobile"), ["phone"]);
  assert.deepEqual(kinds("call (415) 555-0100"), ["phone"]);
  assert.deepEqual(kinds("post at 9am"), ["time"]);
  assert.deepEqual(kinds("events on 2024-01-02"), ["date"]);
  assert.deepEqual(kinds("give 20% off"), ["percent"]);
  assert.deepEqual(kinds("charge $20"), ["amount"]);
  assert.deepEqual(kinds("release v2.3.0"), ["version"]);
  assert.deepEqual(kinds("upload report.pdf"), ["file"]);
  assert.deepEqual(kinds("tree of /home/me/project"), ["file"]);
  assert.deepEqual(kinds("message @priya"), ["user"]);
  assert.deepEqual(kinds("push the 1:1"), ["meeting"]);
  assert.deepEqual(kinds("pods in namespace prod"), ["env"]);
  assert.deepEqual(kinds("PRs opened by octocat"), ["author"]);
});

Deno.test("readValues() keeps words that only hold a number", () => {
  const words = "oauth2 base64 sha256 k8s i18n ListObjectsV2 PM2.5 500s 24h x86_64 free/busy UTF-8";
  assert.equal(left(words), words);
  assert.deepEqual(kinds(words), []);
  assert.deepEqual(kinds("last 5 commits on port 80"), []);
});

Deno.test("parseQuery() turns values into weak concepts, and an id into `id` or `number`", () => {
  const q = parseQuery("invoices of cus_9s6XKzkNRiz8i3");
  assert.ok(!q.terms.some((t) => /\d/.test(t) || t === "cus"), q.terms.join());
  assert.deepEqual(q.values, [[["customer"]], [["id"], ["number"]]]);
  // A value says nothing the words said already.
  assert.deepEqual(parseQuery("customer cus_123").values, [[["id"], ["number"]]]);
  // A request of values alone still ranks.
  const index = new SearchIndex([
    tool("stripe", "list_customers", "List customers, optionally filtered by email."),
    tool("stripe", "list_invoices", "List invoices, optionally for one customer."),
    tool("stripe", "create_refund", "Refund a payment intent, in full or in part."),
  ]);
  assert.equal(top(index, "cus_NffrFeUfNV2Hib")[0], "stripe.list_customers");
});

Deno.test("SearchIndex.search() is not led astray by the pieces of ids and names", () => {
  const index = new SearchIndex([
    tool("stripe", "create_refund", "Refund a payment intent, in full or in part."),
    tool("stripe", "retrieve_payment_intent", "Retrieve a payment intent with its status."),
    tool("hub", "get_fe_uf", "Get the FE and UF settings of a hub."),
    tool("k8s", "pods_list_in_namespace", "List the pods in one namespace."),
    tool("datadog", "query_metrics", "Query metric points (avg:system.cpu{env:prod})."),
    tool("jira", "getJiraIssue", "Get the details of a Jira issue by key (PROJ-123)."),
    tool("github", "get_pull_request", "Get the details of a pull request by its number."),
    tool("github", "list_pull_requests", "List pull requests in a repository."),
  ]);
  // `cus_NffrFeUfNV2Hib` split into words would be `fe` and `uf`.
  assert.deepEqual(top(index, "refund cus_NffrFeUfNV2Hib", 1), ["stripe.create_refund"]);
  assert.ok(!top(index, "refund cus_NffrFeUfNV2Hib", 10).includes("hub.get_fe_uf"));
  assert.equal(
    top(index, "pi_3MtwBwLkdIwHu7ix28a3tqPa status")[0],
    "stripe.retrieve_payment_intent",
  );
  // An environment's name is an argument: it does not send pods to the metrics tool.
  assert.equal(top(index, "list pods in namespace prod")[0], "k8s.pods_list_in_namespace");
  // `#412` is a number: one pull request, not the list.
  assert.equal(top(index, "pull request #412")[0], "github.get_pull_request");
  assert.equal(top(index, "PROJ-412")[0], "jira.getJiraIssue");
});
