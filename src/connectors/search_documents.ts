/**
 * What search indexes for each tool of a connector list: one document per tool, with what its
 * connector is for (description, tags, `useWhen`) as context and the routing hints of its
 * siblings' descriptions. The runtime's catalogue and the search-quality benchmark build their
 * documents here, so the benchmark measures exactly what the runtime ranks.
 *
 * @module
 */
import type { SearchDocument } from "./search_corpus.ts";
import { routingHints } from "./search_hints.ts";

/** A connector as search reads it: a `Connector` or a `ConnectorInfo` will do. */
export interface SearchableConnector {
  name: string;
  description: string;
  tags?: readonly string[];
  useWhen?: string;
  tools: readonly { name: string; description: string; title?: string; useWhen?: string }[];
}

/** One search document per tool of `connectors`, in their order. */
export function toolDocuments(connectors: readonly SearchableConnector[]): SearchDocument[] {
  const docs: SearchDocument[] = [];
  for (const info of connectors) {
    const context = [info.description, ...(info.tags ?? []), info.useWhen ?? ""]
      .filter((s) => s !== "").join(". ");
    const routed = routingHints(info.tools);
    for (const t of info.tools) {
      const doc: SearchDocument = {
        kind: "tool",
        path: `${info.name}.${t.name}`,
        name: t.name,
        connector: info.name,
        description: t.description,
      };
      if (context !== "") doc.context = context;
      const r = routed.get(t.name);
      if (r?.hints) doc.hints = r.hints;
      const extra = [t.title ?? "", t.useWhen ?? ""].filter((s) => s !== "").join(". ");
      const ranked = r?.ranked ?? t.description;
      if (ranked !== t.description || extra !== "") {
        doc.rankedDescription = extra === "" ? ranked : `${ranked} ${extra}`;
      }
      docs.push(doc);
    }
  }
  return docs;
}
