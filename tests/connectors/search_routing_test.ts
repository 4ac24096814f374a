import assert from "node:assert/strict";
import { SearchIndex } from "../../src/connectors/search.ts";
import { type SearchableConnector, toolDocuments } from "../../src/connectors/search_documents.ts";
import { routingHints } from "../../src/connectors/search_hints.ts";

function top(index: SearchIndex, query: string, limit = 10): string[] {
  return index.search(query, { limit }).items.map((h) => h.path);
}

const GITHUB: SearchableConnector = {
  name: "github",
  description: "GitHub: repositories, issues and pull requests.",
  tools: [
    {
      name: "list_pull_requests",
      description:
        "List pull requests in a repository by state and base branch. To find pull requests by author, do not use this tool: use search_pull_requests.",
    },
    {
      name: "search_pull_requests",
      description: "Search pull requests across repositories with search syntax.",
    },
    {
      name: "get_pull_request_status",
      description: "Combined status of the head commit's checks.",
    },
    { name: "create_issue", description: "Open a new issue in a repository." },
  ],
};

const CONNECTORS: SearchableConnector[] = [
  GITHUB,
  {
    name: "hubspot",
    description: "HubSpot CRM: contacts, companies and deals.",
    tags: ["sales"],
    tools: [
      { name: "create_contact", description: "Create a contact with an email and a name." },
      { name: "list_deals", description: "List deals by stage." },
    ],
  },
  {
    name: "confluence",
    description: "Confluence, the team wiki: spaces and pages.",
    tools: [
      { name: "create_page", description: "Create a page in a space." },
      { name: "search_content", description: "Search pages with CQL." },
    ],
  },
  {
    name: "notes",
    description: "A local notes app.",
    useWhen: "for personal to-do lists and reminders",
    tools: [
      { name: "add_note", description: "Add a note." },
      { name: "create_list", description: "Create a list of items." },
    ],
  },
  {
    name: "mail",
    description: "Email.",
    tools: [
      { name: "add_contact", description: "Add an address to the address book." },
      { name: "list_messages", description: "List messages in the inbox." },
    ],
  },
];

Deno.test("routingHints() moves a sentence naming a sibling to that sibling", () => {
  const routed = routingHints(GITHUB.tools);
  assert.equal(
    routed.get("list_pull_requests")?.ranked,
    "List pull requests in a repository by state and base branch.",
  );
  assert.match(routed.get("search_pull_requests")?.hints ?? "", /by author/);
  assert.equal(routed.get("create_issue"), undefined, "no hint either way");
});

Deno.test("routingHints() keeps a tool's first sentence and sentences without a routing word", () => {
  const routed = routingHints([
    { name: "transition", description: "Move an issue. Takes an ID from get_transitions." },
    { name: "get_transitions", description: "The statuses an issue can move to." },
    { name: "create", description: "Use get_transitions first to see the statuses." },
  ]);
  assert.equal(routed.get("transition"), undefined, "no routing word: the sentence stays");
  assert.equal(routed.get("create"), undefined, "the first sentence always stays");
});

Deno.test("SearchIndex.search() follows a description's routing hint to the sibling it names", () => {
  const index = new SearchIndex(toolDocuments(CONNECTORS));
  assert.equal(top(index, "pull requests by author")[0], "github.search_pull_requests");
  assert.equal(top(index, "list pull requests of a repository")[0], "github.list_pull_requests");
});

Deno.test("SearchIndex.search() routes by what a connector is for: CRM, wiki, PR", () => {
  const index = new SearchIndex(toolDocuments(CONNECTORS));
  // "contact" is in two connectors; "CRM" is only in HubSpot's description.
  assert.equal(top(index, "add a contact to the CRM")[0], "hubspot.create_contact");
  assert.ok(top(index, "contacts in the CRM")[0].startsWith("hubspot."));
  assert.equal(top(index, "CRM")[0].startsWith("hubspot."), true);
  assert.equal(top(index, "add a contact to my address book")[0], "mail.add_contact");
  // "page" is only Confluence's own word here, "wiki" its connector's.
  assert.equal(top(index, "write a wiki page")[0], "confluence.create_page");
  assert.equal(top(index, "search the wiki")[0], "confluence.search_content");
  // PR is a pull request; CI is a status check.
  assert.equal(top(index, "did CI pass on my PR")[0], "github.get_pull_request_status");
  // A connector's `useWhen` and tags count too.
  assert.equal(top(index, "make a to-do list")[0], "notes.create_list");
  assert.ok(top(index, "sales deals").indexOf("hubspot.list_deals") === 0);
});
