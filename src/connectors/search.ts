/**
 * Ranked search over tools and snippets, the way a model discovers what it
 * can call: `search("open a bug report on the repo")` puts
 * `github.createIssue` first. Ranking is BM25F (search_corpus.ts) over the
 * name split into words, the description, the connector's name, what the
 * connector is for and routing hints from sibling tools (search_fields.ts),
 * with a vocabulary of how requests name API words (search_vocabulary.ts),
 * and ties broken by path so the same query always gives the same order.
 * Results page with an opaque cursor bound to the query.
 *
 * A namespace is a tenant, and BM25 scores depend on every document ranked together, so a
 * search in a namespace ranks over the shared documents (tools) and that namespace's own
 * (snippets) only: another tenant's snippets change neither its results nor its scores.
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import { documentKey, SearchCorpus, type SearchDocument } from "./search_corpus.ts";
import { decodeCursor, encodeCursor, hashText } from "./search_cursor.ts";
import { parseQuery } from "./search_parse.ts";
import { DEFAULT_WEIGHTS, type RankingWeights } from "./search_weights.ts";

export type { SearchDocument } from "./search_corpus.ts";

/** A ranked result: what the model sees of a document, and its score (0 when listing). */
export interface SearchHit
  extends Pick<SearchDocument, "kind" | "path" | "name" | "connector" | "description"> {
  /** Relevance, rounded to three decimals. */
  score: number;
  /**
   * How to call it, compact (`github.get_issue(args: { owner: string; … }): Promise<…>`), so a
   * model can choose among close candidates without describing each. Set by the catalogue.
   */
  signature?: string;
}

/** Options for {@link SearchIndex}'s constructor. */
export interface SearchIndexOptions {
  /** Ranking weights instead of the measured defaults (for measuring other weights). */
  weights?: RankingWeights;
}

/** Options for {@link SearchIndex.search}. */
export interface SearchOptions {
  /** Results per page, 1 to {@link MAX_SEARCH_LIMIT}; {@link DEFAULT_SEARCH_LIMIT} if absent. */
  limit?: number;
  /** `nextCursor` of the previous page of the same query. */
  cursor?: string;
  /** Only documents without a namespace or in this one; all when absent. */
  namespace?: string;
}

/** One page of results. */
export interface SearchPage {
  /** This page's hits, best first (by path when a blank query lists everything). */
  items: SearchHit[];
  /** Present when more results follow; pass it back as `cursor`. */
  nextCursor?: string;
  /** How many documents matched in all. */
  total: number;
}

/** A model reads the first few hits; ten leaves room for near-misses without crowding its context. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** A page must sit comfortably in a model's context; longer listings page with cursors. */
export const MAX_SEARCH_LIMIT = 100;
/** Queries are a few words; anything longer is a mistake, and each term costs a fuzzy lookup. */
export const MAX_QUERY_LENGTH = 1_000;
/**
 * Namespaces whose own corpus (the shared documents and theirs) is kept built. A namespace
 * with snippets needs one so its snippets score against the tools alone, never against
 * another tenant's words; building one costs about as much as indexing the tools, so the
 * most recently searched are kept and the rest rebuilt when searched again.
 */
export const MAX_CACHED_NAMESPACE_CORPORA = 64;

/** The corpus of the documents without a namespace: every namespace without its own uses it. */
const SHARED_SCOPE = "\u0000shared";
/** The corpus of every document: searches that name no namespace. */
const ALL_SCOPE = "\u0000all";

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new CordonError(
      "invalid_request",
      `Cannot search with limit ${
        String(limit)
      }: it must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`,
      { details: { limit: String(limit), max: MAX_SEARCH_LIMIT } },
    );
  }
  return limit;
}

/** The optional text fields of a document. */
const OPTIONAL_TEXT = [
  "connector",
  "namespace",
  "context",
  "hints",
  "rankedDescription",
] as const;

function checkDocument(doc: SearchDocument): void {
  const ok = doc !== null && typeof doc === "object" &&
    (doc.kind === "tool" || doc.kind === "snippet") &&
    typeof doc.path === "string" && doc.path !== "" &&
    typeof doc.name === "string" && typeof doc.description === "string" &&
    OPTIONAL_TEXT.every((k) => doc[k] === undefined || typeof doc[k] === "string");
  if (!ok) {
    throw new CordonError(
      "invalid_request",
      "Cannot index document: it needs kind, path, name and description",
      {
        details: { path: typeof doc?.path === "string" ? doc.path : undefined },
      },
    );
  }
}

/**
 * An in-memory index of tools and snippets.
 *
 * @example
 * ```ts
 * import { SearchIndex } from "./search.ts";
 * const index = new SearchIndex([
 *   { kind: "tool", path: "github.createIssue", name: "createIssue", connector: "github", description: "Open a new issue" },
 *   { kind: "tool", path: "slack.postMessage", name: "postMessage", connector: "slack", description: "Send a message to a channel" },
 * ]);
 * console.assert(index.search("create issue").items[0].path === "github.createIssue");
 * console.assert(index.search("").total === 2);
 * ```
 */
export class SearchIndex {
  /** Every document, by {@link documentKey}. */
  readonly #docs = new Map<string, SearchDocument>();
  /** Documents per namespace: a namespace with none searches the shared corpus. */
  readonly #perNamespace = new Map<string, number>();
  /** Built corpora by scope, least recently searched first. */
  readonly #corpora = new Map<string, SearchCorpus>();

  readonly #weights: RankingWeights;

  /** An index of `documents`; `options.weights` replaces the measured ranking weights. */
  constructor(documents: SearchDocument[] = [], options: SearchIndexOptions = {}) {
    this.#weights = options.weights ?? DEFAULT_WEIGHTS;
    this.replaceAll(documents);
  }

  /** Adds `doc`, replacing the document with the same path if there is one. */
  add(doc: SearchDocument): void {
    checkDocument(doc);
    this.remove(doc.path, doc.namespace);
    const copy: SearchDocument = {
      kind: doc.kind,
      path: doc.path,
      name: doc.name,
      description: doc.description,
    };
    for (const k of OPTIONAL_TEXT) if (doc[k] !== undefined) copy[k] = doc[k];
    if (doc.namespace !== undefined) {
      copy.namespace = doc.namespace;
      this.#perNamespace.set(doc.namespace, (this.#perNamespace.get(doc.namespace) ?? 0) + 1);
    }
    this.#docs.set(documentKey(copy), copy);
    for (const [scope, corpus] of this.#corpora) if (inScope(scope, copy)) corpus.add(copy);
  }

  /** Removes the document at `path` (in `namespace`); false if there was none. */
  remove(path: string, namespace?: string): boolean {
    const key = documentKey({ path, namespace });
    const doc = this.#docs.get(key);
    if (!doc) return false;
    this.#docs.delete(key);
    for (const [scope, corpus] of this.#corpora) if (inScope(scope, doc)) corpus.remove(key);
    if (doc.namespace !== undefined) {
      const left = this.#perNamespace.get(doc.namespace)! - 1;
      if (left > 0) this.#perNamespace.set(doc.namespace, left);
      else {
        // Its last document gone, the namespace searches the shared corpus again.
        this.#perNamespace.delete(doc.namespace);
        this.#corpora.delete(namespaceScope(doc.namespace));
      }
    }
    return true;
  }

  /** Replaces every document at once (later duplicates of a path win). */
  replaceAll(documents: SearchDocument[]): void {
    for (const doc of documents) checkDocument(doc);
    this.#docs.clear();
    this.#perNamespace.clear();
    this.#corpora.clear();
    for (const doc of documents) this.add(doc);
  }

  /** How many documents are indexed. */
  get size(): number {
    return this.#docs.size;
  }

  /**
   * Ranks documents for `query`. A blank query (or one of only common words)
   * lists every document by path, so a catalogue can be paged through.
   * Throws `invalid_request` for a bad limit or a cursor that is garbage or
   * from another query.
   *
   * With a `namespace`, the ranking sees only the documents without one and that namespace's:
   * its scores and results are the same whatever other namespaces hold.
   */
  search(query: string, options: SearchOptions = {}): SearchPage {
    if (typeof query !== "string") {
      throw new CordonError("invalid_request", "Cannot search: the query must be a string");
    }
    if (query.length > MAX_QUERY_LENGTH) {
      throw new CordonError(
        "invalid_request",
        `Cannot search: the query is ${query.length} characters, at most ${MAX_QUERY_LENGTH}; use a few words`,
      );
    }
    const limit = checkLimit(options.limit);
    const parsed = parseQuery(query);
    const { terms } = parsed;
    // Everything the ranking reads of the query; the same words differently written hash alike.
    const queryHash = hashText(
      `${terms.join(" ")}|${parsed.opening ?? ""}|${[...parsed.joined].join(" ")}|${
        JSON.stringify([parsed.values, parsed.action, parsed.many])
      }`,
    );
    const offset = options.cursor === undefined ? 0 : decodeCursor(options.cursor, queryHash);

    const corpus = this.#corpus(options.namespace);
    const blank = terms.length === 0 && parsed.values.length === 0;
    const ranked = blank ? corpus.listAll() : corpus.rank(parsed);
    // Hits are copied only for the page: callers may keep or change them.
    const items = ranked.slice(offset, offset + limit).map(({ doc, score }) => {
      const { kind, path, name, connector, description } = doc;
      const hit: SearchHit = connector === undefined
        ? { kind, path, name, description, score }
        : { kind, path, name, connector, description, score };
      return hit;
    });
    const page: SearchPage = { items, total: ranked.length };
    if (offset + limit < ranked.length) page.nextCursor = encodeCursor(offset + limit, queryHash);
    return page;
  }

  /** The corpus a search in `namespace` ranks over, built if it is not. */
  #corpus(namespace: string | undefined): SearchCorpus {
    const scope = namespace === undefined
      ? ALL_SCOPE
      : this.#perNamespace.has(namespace)
      ? namespaceScope(namespace)
      : SHARED_SCOPE;
    let corpus = this.#corpora.get(scope);
    if (corpus) {
      // Most recently searched last.
      this.#corpora.delete(scope);
    } else {
      corpus = new SearchCorpus(this.#weights);
      for (const doc of this.#docs.values()) if (inScope(scope, doc)) corpus.add(doc);
      const namespaced = [...this.#corpora.keys()].filter((s) => s.startsWith(NAMESPACE_SCOPE));
      if (scope.startsWith(NAMESPACE_SCOPE) && namespaced.length >= MAX_CACHED_NAMESPACE_CORPORA) {
        this.#corpora.delete(namespaced[0]);
      }
    }
    this.#corpora.set(scope, corpus);
    return corpus;
  }
}

/** Scopes of one namespace's corpus start so, which no other scope does. */
const NAMESPACE_SCOPE = "ns:";

function namespaceScope(namespace: string): string {
  return NAMESPACE_SCOPE + namespace;
}

/** Whether `doc` belongs in the corpus of `scope`. */
function inScope(scope: string, doc: SearchDocument): boolean {
  if (scope === ALL_SCOPE) return true;
  if (doc.namespace === undefined) return true;
  return scope === namespaceScope(doc.namespace);
}
