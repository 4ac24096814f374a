import assert from "node:assert/strict";
import { type SearchDocument, SearchIndex } from "../../src/connectors/search.ts";
import {
  joinParticleVerbs,
  nameAction,
  requestAction,
  withoutArguments,
} from "../../src/connectors/search_actions.ts";
import { parseQuery } from "../../src/connectors/search_parse.ts";
import { normalizeTerm, splitWords } from "../../src/connectors/search_terms.ts";

function tool(connector: string, name: string, description: string): SearchDocument {
  return { kind: "tool", path: `${connector}.${name}`, name, connector, description };
}

function first(index: SearchIndex, query: string): string | undefined {
  return index.search(query, { limit: 1 }).items[0]?.path;
}

function action(request: string): string {
  const { action, said } = requestAction(request.toLowerCase().split(/[^a-z0-9]+/));
  return `${action}${said ? "" : "?"}`;
}

Deno.test("requestAction() reads what a request wants done from its own verb", () => {
  assert.equal(action("approve the pull request"), "write");
  assert.equal(action("log a call on a contact"), "write");
  assert.equal(action("please can you cancel my subscription"), "write");
  assert.equal(action("we closed the deal, mark it won"), "write");
  assert.equal(action("roll back the deploy"), "write");
  assert.equal(action("list the open issues"), "read");
  assert.equal(action("tell me who is on call"), "read?");
  // Questions read, unless they ask how to do something.
  assert.equal(action("which statuses can this issue move to"), "read?");
  assert.equal(action("how do I create a webhook"), "write");
  // Participles and nouns are not the request's verb.
  assert.equal(action("which files changed in PR 42"), "read?");
  assert.equal(action("error logs of the checkout service"), "read?");
  assert.equal(action("datadog incidents"), "read?");
});

Deno.test("nameAction() reads a tool's kind from its name's first verb", () => {
  const of = (name: string) => {
    const words = splitWords(name);
    const terms = words.map(normalizeTerm).filter((t): t is string => t !== null);
    const plural = words.some((w) => /s$/.test(w) && !/ss$|us$/.test(w));
    return nameAction(terms, plural, normalizeTerm);
  };
  assert.deepEqual(of("get_issue"), { action: "read", many: false });
  assert.deepEqual(of("getJiraIssueComments"), { action: "read", many: true });
  assert.deepEqual(of("list_incidents"), { action: "read", many: true });
  assert.deepEqual(of("slack_search_messages"), { action: "read", many: true });
  assert.deepEqual(of("createJiraIssue"), { action: "write", many: false });
  assert.deepEqual(of("rollout_undo"), { action: "write", many: false });
  assert.equal(of("table_sizes"), undefined);
});

Deno.test("withoutArguments() and joinParticleVerbs() leave what the request wants done", () => {
  assert.equal(withoutArguments("tell #eng that the build is green").trim(), "tell #eng");
  assert.equal(withoutArguments("post to #ops: deploy done").trim(), "post to #ops");
  assert.equal(
    withoutArguments('create an issue "Login fails on Safari" in web').trim().split(/\s+/).join(
      " ",
    ),
    "create an issue in web",
  );
  assert.equal(
    withoutArguments("create a calendar called Team Offsites for me").split(/\s+/).join(" "),
    "create a calendar for me",
  );
  // A request that says nothing is left whole.
  assert.equal(
    withoutArguments("list channels that are archived"),
    "list channels that are archived",
  );
  assert.equal(joinParticleVerbs("who am I logged in as"), "who am I authenticated login as");
  assert.equal(joinParticleVerbs("look up a number"), "lookup a number");
});

Deno.test("parseQuery() says whether a request wants one thing or many", () => {
  assert.equal(parseQuery("datadog incidents").many, true);
  assert.equal(parseQuery("what's on my agenda today").many, true);
  assert.equal(parseQuery("the latest release of a repository").many, false);
  // An id names one.
  assert.equal(parseQuery("incidents like Q1ABCD7").many, false);
  // A verb's form is not a plural.
  assert.equal(parseQuery("who updates the page").many, false);
  // A possessive opens a noun phrase, not a verb.
  assert.equal(parseQuery("octocat's open PRs").opening, undefined);
});

Deno.test("SearchIndex.search() tells near-duplicates apart by what the request does", () => {
  const index = new SearchIndex([
    tool("jira", "getJiraIssueComments", "Get the comments of a Jira issue."),
    tool("jira", "addCommentToJiraIssue", "Add a comment to a Jira issue."),
    tool("github", "get_pull_request_reviews", "Get the reviews on a pull request: who approved."),
    tool("github", "create_pull_request_review", "Submit a review on a pull request: approve it."),
    tool("datadog", "get_incident", "Get a Datadog incident's timeline."),
    tool("datadog", "list_incidents", "List Datadog incidents with their severity."),
    tool("slack", "slack_post_message", "Post a new message to a Slack channel."),
    tool("slack", "slack_search_messages", "Search messages in the workspace."),
  ]);
  assert.equal(first(index, "comments on PROJ-7"), "jira.getJiraIssueComments");
  assert.equal(first(index, "add a comment to PROJ-7"), "jira.addCommentToJiraIssue");
  assert.equal(first(index, "approve the pull request"), "github.create_pull_request_review");
  assert.equal(first(index, "who approved the pull request"), "github.get_pull_request_reviews");
  assert.equal(first(index, "datadog incidents"), "datadog.list_incidents");
  assert.equal(first(index, "datadog incident Q1ABCD7"), "datadog.get_incident");
  // A request opening with an unknown word (a typo) is not taken for a read.
  assert.equal(first(index, "sendd a mesage to slack"), "slack.slack_post_message");
});
