/**
 * What search indexes for each tool of a connector list: one document per tool. The runtime's
 * catalogue and the search-quality benchmark build their documents here, so the benchmark
 * measures exactly what the runtime ranks.
 *
 * @module
 */
import type { SearchDocument } from "./search_corpus.ts";
import type { ConnectorInfo } from "./types.ts";

/** One search document per tool of `connectors`, in their order. */
export function toolDocuments(connectors: readonly ConnectorInfo[]): SearchDocument[] {
  const docs: SearchDocument[] = [];
  for (const info of connectors) {
    for (const t of info.tools) {
      docs.push({
        kind: "tool",
        path: `${info.name}.${t.name}`,
        name: t.name,
        connector: info.name,
        description: t.description,
      });
    }
  }
  return docs;
}
