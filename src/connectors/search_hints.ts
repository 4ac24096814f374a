/**
 * Routing hints in tool descriptions: servers tell the model which sibling to use
 * ("To find pull requests by author, do not use this tool: use search_pull_requests"). Such a
 * sentence describes the sibling, not the tool it is written in, so search ranks it with the
 * sibling (its `hints`) and leaves it out of the tool's own words: a query for "pull requests
 * by author" then finds `search_pull_requests`, not `list_pull_requests`.
 *
 * @module
 */

/** A tool's name and description. */
export interface HintedTool {
  name: string;
  description: string;
}

/** A tool's description as ranked, and the sentences of siblings that route to it. */
export interface RoutedText {
  ranked: string;
  hints: string;
}

/** Words that mark a sentence as routing the reader elsewhere. */
const ROUTING_CUE = /\b(?:use|instead|prefer|rather|see)\b/i;

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?;])\s+(?=[A-Z`'"(])/).filter((s) => s.trim() !== "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * For each tool of one connector (by name), its description without the sentences that route
 * to a sibling, and the sentences siblings route to it with. The first sentence (what the
 * tool does) always stays. Tools without hints either way are left out of the map.
 *
 * @example
 * ```ts
 * import { routingHints } from "./search_hints.ts";
 * const routed = routingHints([
 *   { name: "list_prs", description: "List pull requests. To filter by author use search_prs." },
 *   { name: "search_prs", description: "Search pull requests." },
 * ]);
 * console.assert(routed.get("list_prs")?.ranked === "List pull requests.");
 * console.assert(routed.get("search_prs")?.hints === "To filter by author use search_prs.");
 * ```
 */
export function routingHints(tools: readonly HintedTool[]): Map<string, RoutedText> {
  const out = new Map<string, RoutedText>();
  const entry = (name: string, description: string) => {
    let e = out.get(name);
    if (!e) out.set(name, e = { ranked: description, hints: "" });
    return e;
  };
  const names = tools.map((t) => t.name).filter((n) => n.length > 2);
  if (names.length < 2) return out;
  // Longest first, so `get_issue_comments` is found before `get_issue`.
  const pattern = new RegExp(
    `(?<![\\w-])(${
      [...names].sort((a, b) => b.length - a.length).map(escapeRegExp).join("|")
    })(?![\\w-])`,
    "g",
  );
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const tool of tools) {
    const parts = sentences(tool.description);
    const kept = [parts[0]];
    for (const sentence of parts.slice(1)) {
      const targets = ROUTING_CUE.test(sentence)
        ? [...new Set([...sentence.matchAll(pattern)].map((m) => m[1]))]
          .filter((n) => n !== tool.name)
        : [];
      if (targets.length === 0) {
        kept.push(sentence);
        continue;
      }
      for (const target of targets) {
        const t = entry(target, byName.get(target)!.description);
        t.hints = t.hints === "" ? sentence : `${t.hints} ${sentence}`;
      }
    }
    if (kept.length < parts.length) entry(tool.name, tool.description).ranked = kept.join(" ");
  }
  return out;
}
