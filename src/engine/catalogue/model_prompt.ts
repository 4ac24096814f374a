/**
 * The compact description a model sees for the `execute` tool: what the
 * sandbox offers, the connectors by name with a few words each, and how to
 * discover the rest. It lists connectors, never tools, so it stays about
 * the same size as the catalogue grows; past {@link MAX_LISTED_CONNECTORS}
 * it names the rest without descriptions.
 *
 * @module
 */
import type { ConnectorInfo } from "../../connectors/types.ts";

/** Connectors described one per line; more are listed by name only. */
export const MAX_LISTED_CONNECTORS = 40;
/** A connector's line keeps its first sentence, cut to this many characters. */
export const MAX_CONNECTOR_BLURB_CHARS = 80;

function blurb(text: string): string {
  const first = text.split(/(?<=[.!?])\s/)[0].replace(/\s+/g, " ").trim();
  return first.length <= MAX_CONNECTOR_BLURB_CHARS
    ? first
    : first.slice(0, MAX_CONNECTOR_BLURB_CHARS - 1).trimEnd() + "…";
}

/** The model-facing description of code mode for this catalogue. */
export function describeForModel(connectors: readonly ConnectorInfo[], snippets: number): string {
  const sorted = [...connectors].sort((a, b) => a.name.localeCompare(b.name));
  const tools = sorted.reduce((n, c) => n + c.tools.length, 0);
  const lines = [
    "Run a TypeScript program in a locked-down sandbox. Write a script body (top-level await and `return` allowed; the value returned is the result) or `async (input) => { … }`.",
    `Tools are async functions on globals, one per connector (${sorted.length} connectors, ${tools} tools${
      snippets ? `, ${snippets} saved snippets` : ""
    }): \`await connector.tool({ …args })\`. Call many in one program; use Promise.all for independent calls.`,
    'Discover before calling: `await codemode.search("what you need")` ranks tools and snippets; `await codemode.describe("connector.tool")` gives the exact TypeScript signature, output type and an example. `await codemode.run("snippet", input)` runs saved code.',
    "Each connector is also a Caplet handle `caplets.<connector>`: `check()`, `searchTools(query, { limit })`, `tools({ limit, cursor })`, `resources(…)`, `prompts(…)` return pages `{ items, nextCursor? }`; `describeTool(name)`, `callTool(name, args)`, `readResource(uri)`, `getPrompt(name, args)` return `{ ok: true, data } | { ok: false, error }`. `caplets.debug.readLogs({ logRef })` reads logs.",
    "console.log output comes back with the result. Return only what you need: a result over the inline limit (32 KiB by default) comes back as a reference with a preview, read in pages with `codemode.readResult({ resultRef, cursor })`. No file system, environment or network unless the host allows it.",
    "Connectors:",
  ];
  for (const c of sorted.slice(0, MAX_LISTED_CONNECTORS)) {
    lines.push(`- ${c.name} (${c.tools.length}): ${blurb(c.description)}`);
  }
  const rest = sorted.slice(MAX_LISTED_CONNECTORS);
  if (rest.length > 0) lines.push(`- and ${rest.map((c) => c.name).join(", ")}`);
  return lines.join("\n");
}
