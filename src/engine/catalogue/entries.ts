/**
 * How tools and snippets appear in the catalogue: a snippet's search
 * document and key, the error for a path nothing is found under, and the
 * example call `describe()` shows.
 *
 * @module
 */
import type { SearchDocument } from "../../connectors/search.ts";
import { CordonError } from "../../errors.ts";
import type { SnippetRow } from "../../store/snippets.ts";

/** A saved snippet as the search index holds it. */
export function snippetDocument(s: SnippetRow): SearchDocument {
  return {
    kind: "snippet",
    path: `snippet:${s.name}`,
    name: s.name,
    description: s.description,
    namespace: s.namespace,
  };
}

/** Where a namespace's snippet is kept in the catalogue. */
export function snippetKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The error for a path `describe()` finds nothing under, with a hint at what to pass. */
export function notFound(path: string, code: "tool_not_found" | "snippet_not_found"): CordonError {
  const what = code === "tool_not_found" ? "tool" : "snippet";
  const hint = code === "snippet_not_found" && !path.startsWith("snippet:")
    ? " (describe a tool as connector.tool)"
    : "";
  return new CordonError(code, `There is no ${what} "${path}"${hint}; use search() to find one`, {
    details: { path },
  });
}

/** A line of code calling a tool, for `describe()`'s examples. */
export function exampleCall(connector: string, tool: string): string {
  const access = /^[A-Za-z_$][\w$]*$/.test(tool) ? `.${tool}` : `[${JSON.stringify(tool)}]`;
  return `const result = await ${connector}${access}({ /* args */ });`;
}
