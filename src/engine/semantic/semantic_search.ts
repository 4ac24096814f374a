/**
 * Search with an embedder: the lexical index's ranking and the vector ranking fused by
 * reciprocal rank fusion, paged with cursors of its own. What the catalogue calls.
 *
 * - The lexical ranking is the whole of what `SearchIndex.search` ranks for the query in the
 *   namespace (read page by page: about 1 ms at 1,000 tools); the vector ranking is the
 *   {@link VECTOR_CANDIDATES} documents nearest the query among the tools and the namespace's
 *   snippets. Hits keep the lexical index's shape; `score` becomes the fused score, scaled so
 *   that first in both rankings is 1.
 * - A blank query, or one the lexical index answers with a listing (every score 0), is not
 *   fused: it lists, as without an embedder.
 * - When the query cannot be embedded (the embedder failed, timed out, or is being left alone
 *   after a failure) the ranking is the lexical one, with its scores.
 * - A fused ranking is kept for a minute (or until a tool, snippet or vector changes), so its
 *   pages come from one ranking.
 *
 * @module
 */
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  type SearchDocument,
  type SearchHit,
  type SearchIndex,
  type SearchOptions,
  type SearchPage,
} from "../../connectors/search.ts";
import type { ConnectorInfo } from "../../connectors/types.ts";
import { CordonError } from "../../errors.ts";
import type { Db } from "../../store/client.ts";
import { bindingOf, decodeFusedCursor, encodeFusedCursor, isFusedCursor } from "./cursor.ts";
import { snippetText, toolDocuments } from "./documents.ts";
import { bestFusedScore, reciprocalRankFusion } from "./fusion.ts";
import type { SemanticSettings } from "./options.ts";
import { type NearDocument, SemanticIndex, type SemanticStatus } from "./semantic_index.ts";

/**
 * Vector neighbours fused per search: two pages of ten (what a model reads first), room to
 * lift a tool the words missed. Nearest neighbours always exist, however far; more would only
 * pad the tail and the total with documents the query is not about.
 */
export const VECTOR_CANDIDATES = 20;
/** Fused rankings kept, most recently used: a few queries being paged at once. */
export const FUSED_RANKINGS_KEPT = 32;
/** How long a fused ranking is reused for its next pages (ms). */
export const FUSED_RANKING_TTL_MS = 60_000;

interface KeptRanking {
  generation: number;
  version: number;
  at: number;
  hits: SearchHit[];
}

function hitOf(doc: SearchDocument, score: number): SearchHit {
  const { namespace: _ns, ...rest } = doc;
  return { ...rest, score };
}

/** Lexical and semantic search over one catalogue. */
export class SemanticSearch {
  readonly #index: SearchIndex;
  readonly #vectors: SemanticIndex;
  readonly #settings: SemanticSettings;
  readonly #kept = new Map<string, KeptRanking>();
  #generation = 0;

  constructor(index: SearchIndex, db: Db, settings: SemanticSettings) {
    this.#index = index;
    this.#settings = settings;
    this.#vectors = new SemanticIndex(db, settings);
  }

  /** The tools changed (`docs` are their search documents): they are embedded as needed. */
  toolsChanged(infos: readonly ConnectorInfo[], docs: readonly SearchDocument[]): void {
    this.#generation++;
    this.#vectors.setTools(toolDocuments(infos, docs));
  }

  /** A snippet's document was saved, or (`removed`) deleted. */
  snippetChanged(namespace: string, doc: SearchDocument, removed = false): void {
    this.#generation++;
    const sd = removed ? undefined : { doc, text: () => snippetText(doc) };
    this.#vectors.setSnippet(namespace, doc.path, sd);
  }

  /** Ranks tools and `namespace`'s snippets for `query`, by words and by meaning. */
  async search(
    query: string,
    options: SearchOptions & { namespace: string },
  ): Promise<SearchPage> {
    const { limit, cursor, namespace } = options;
    if (cursor !== undefined && !isFusedCursor(cursor)) return this.#index.search(query, options);
    // The lexical index checks the query; a bad limit gets its words too.
    const first = this.#index.search(query, { limit: MAX_SEARCH_LIMIT, namespace });
    if (
      limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_SEARCH_LIMIT)
    ) {
      this.#index.search(query, { limit, namespace });
      throw new CordonError("invalid_request", `Cannot search with limit ${String(limit)}`);
    }
    const size = limit ?? DEFAULT_SEARCH_LIMIT;
    const normalized = query.trim().replace(/\s+/g, " ");
    const binding = bindingOf(`${namespace}\u0000${normalized}`);
    const offset = cursor === undefined ? 0 : decodeFusedCursor(cursor, binding);
    const hits = await this.#ranking(query, normalized, namespace, first);
    const page: SearchPage = {
      items: hits.slice(offset, offset + size).map((h) => ({ ...h })),
      total: hits.length,
    };
    if (offset + size < hits.length) page.nextCursor = encodeFusedCursor(offset + size, binding);
    return page;
  }

  /** Counts and state of the vector side. */
  status(): SemanticStatus {
    return this.#vectors.status();
  }

  /** Resolves once every tool and snippet has its vector (or embedding failed for now). */
  settled(): Promise<void> {
    return this.#vectors.settled();
  }

  /** Stops embedding. */
  close(): Promise<void> {
    return this.#vectors.close();
  }

  async #ranking(
    query: string,
    normalized: string,
    namespace: string,
    first: SearchPage,
  ): Promise<SearchHit[]> {
    const key = `${namespace}\u0000${normalized}`;
    const kept = this.#kept.get(key);
    if (kept) {
      this.#kept.delete(key);
      const fresh = kept.generation === this.#generation &&
        kept.version === this.#vectors.version && Date.now() - kept.at < FUSED_RANKING_TTL_MS;
      if (fresh) {
        this.#kept.set(key, kept);
        return kept.hits;
      }
    }
    const lexical = [...first.items];
    for (let next = first.nextCursor; next !== undefined;) {
      const page = this.#index.search(query, { limit: MAX_SEARCH_LIMIT, cursor: next, namespace });
      lexical.push(...page.items);
      next = page.nextCursor;
    }
    if (normalized === "" || (lexical.length > 0 && lexical.every((h) => h.score === 0))) {
      return lexical;
    }
    const generation = this.#generation;
    const near = await this.#vectors.nearest(normalized, namespace, VECTOR_CANDIDATES);
    if (!near) return lexical;
    const hits = this.#fuse(lexical, near);
    if (generation === this.#generation) {
      this.#kept.set(key, { generation, version: this.#vectors.version, at: Date.now(), hits });
      if (this.#kept.size > FUSED_RANKINGS_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    }
    return hits;
  }

  #fuse(lexical: SearchHit[], near: NearDocument[]): SearchHit[] {
    const { k, lexicalWeight, vectorWeight } = this.#settings.fusion;
    const lists = [
      { paths: lexical.map((h) => h.path), weight: lexicalWeight },
      { paths: near.map((n) => n.doc.path), weight: vectorWeight },
    ];
    const byPath = new Map<string, SearchHit>(lexical.map((h) => [h.path, h]));
    for (const n of near) if (!byPath.has(n.doc.path)) byPath.set(n.doc.path, hitOf(n.doc, 0));
    const best = bestFusedScore(lists, k);
    return reciprocalRankFusion(lists, k)
      .filter((f) => f.score > 0)
      .map((f) => ({ ...byPath.get(f.path)!, score: Math.round((f.score / best) * 1000) / 1000 }));
  }
}
