/**
 * Ranked search over tools and snippets, the way a model discovers what it
 * can call: `search("open a bug report on the repo")` puts
 * `github.createIssue` first. Ranking is BM25 from
 * [MiniSearch](https://lucaong.github.io/minisearch/) over three weighted
 * fields (name, connector, description) with names split into words
 * (`createIssue` → `create issue`), prefix and light fuzzy matching, and
 * ties broken by path so the same query always gives the same order.
 * Results page with an opaque cursor bound to the query.
 *
 * @module
 */
import MiniSearch from "minisearch";
import { CordonError } from "../errors.ts";
import { normalizeTerm, searchTerms, splitWords, synonymsOf } from "./search_terms.ts";

/** A tool or snippet as search sees it. */
export interface SearchDocument {
  /** A tool, or a snippet. */
  kind: "tool" | "snippet";
  /** Unique: `connector.tool` for tools, `snippet:name` for snippets. */
  path: string;
  /** The tool's or snippet's own name, without connector or `snippet:`. */
  name: string;
  /** The tool's connector; absent for snippets. */
  connector?: string;
  /** What it does, as its author wrote it (its words count half a name's). */
  description: string;
  /**
   * The namespace that sees it (snippets). A document without one is seen by every search;
   * one with a namespace only by searches in it.
   */
  namespace?: string;
}

/** A ranked result: the document and its score (higher is better; 0 when listing). */
export interface SearchHit extends SearchDocument {
  /** BM25 relevance, rounded to three decimals. */
  score: number;
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
/** Our own cursors are ~40 characters; a longer one is garbage, refused before decoding. */
const MAX_CURSOR_LENGTH = 256;

/**
 * Field weights. A word in the tool's name, or the connector a query names
 * ("slack", "stripe"), says most about a match; descriptions are long and
 * wordy, so their words count half. (Weighting names higher still let
 * `drive.uploadFile` beat `s3.putObject` for "upload a file to a bucket".)
 */
const FIELD_BOOST = { name: 2, connector: 2, description: 1 };
/** Prefix matching from three letters ("repo" → "repository"); shorter prefixes match noise. */
const MIN_PREFIX_LENGTH = 3;
/** One typo allowed from four letters ("slak"), two from eight; shorter words have too many neighbours. */
const FUZZY_ONE_EDIT_LENGTH = 4;
const FUZZY_TWO_EDITS_LENGTH = 8;
/** A synonym is weaker evidence than the word itself. */
const SYNONYM_WEIGHT = 0.5;
/** Scores are rounded so float noise never decides an order; ties then go by path. */
const SCORE_DIGITS = 1_000;

function fuzzyFor(term: string): number | false {
  if (term.length >= FUZZY_TWO_EDITS_LENGTH) return 2;
  if (term.length >= FUZZY_ONE_EDIT_LENGTH) return 1;
  return false;
}

/** FNV-1a, 32 bits: binds a cursor to its query. Not a secret; cursors grant nothing. */
function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

function encodeCursor(offset: number, queryHash: string): string {
  const json = JSON.stringify({ o: offset, q: queryHash });
  return btoa(json).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function badCursor(reason: string): CordonError {
  return new CordonError(
    "invalid_request",
    `Cannot use cursor: ${reason}; pass the nextCursor of the same query, or omit it to start over`,
  );
}

function decodeCursor(cursor: string, queryHash: string): number {
  if (typeof cursor !== "string" || cursor === "" || cursor.length > MAX_CURSOR_LENGTH) {
    throw badCursor("it is not a cursor this search returned");
  }
  let parsed: unknown;
  try {
    const b64 = cursor.replace(/-/g, "+").replace(/_/g, "/");
    parsed = JSON.parse(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)));
  } catch {
    throw badCursor("it is not a cursor this search returned");
  }
  const { o, q } = (parsed ?? {}) as { o?: unknown; q?: unknown };
  if (!Number.isSafeInteger(o) || (o as number) < 0 || typeof q !== "string") {
    throw badCursor("it is not a cursor this search returned");
  }
  if (q !== queryHash) throw badCursor("it belongs to a different query");
  return o as number;
}

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

function checkDocument(doc: SearchDocument): void {
  const ok = doc !== null && typeof doc === "object" &&
    (doc.kind === "tool" || doc.kind === "snippet") &&
    typeof doc.path === "string" && doc.path !== "" &&
    typeof doc.name === "string" && typeof doc.description === "string" &&
    (doc.connector === undefined || typeof doc.connector === "string") &&
    (doc.namespace === undefined || typeof doc.namespace === "string");
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
  readonly #docs = new Map<string, SearchDocument>();
  /** Every document by path, built on the first blank query after a change. */
  #listing: SearchDocument[] | undefined;
  readonly #mini = new MiniSearch<SearchDocument>({
    idField: "key",
    fields: ["name", "connector", "description"],
    // Snippets have no connector; the word "snippet" lets a query ask for them.
    extractField: (doc, field) =>
      field === "key"
        ? keyOf(doc)
        : field === "connector"
        ? doc.kind === "snippet" ? `snippet ${doc.connector ?? ""}` : doc.connector ?? ""
        : (doc as unknown as Record<string, string>)[field],
    tokenize: splitWords,
    processTerm: normalizeTerm,
    // Removal is exact (we keep each document), so no background vacuum timers.
    autoVacuum: false,
  });

  constructor(documents: SearchDocument[] = []) {
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
    if (doc.connector !== undefined) copy.connector = doc.connector;
    if (doc.namespace !== undefined) copy.namespace = doc.namespace;
    this.#docs.set(keyOf(copy), copy);
    this.#mini.add(copy);
    this.#listing = undefined;
  }

  /** Removes the document at `path` (in `namespace`); false if there was none. */
  remove(path: string, namespace?: string): boolean {
    const key = keyOf({ path, namespace });
    const doc = this.#docs.get(key);
    if (!doc) return false;
    this.#mini.remove(doc);
    this.#docs.delete(key);
    this.#listing = undefined;
    return true;
  }

  /** Replaces every document at once (later duplicates of a path win). */
  replaceAll(documents: SearchDocument[]): void {
    for (const doc of documents) checkDocument(doc);
    this.#docs.clear();
    this.#mini.removeAll();
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
    const terms = searchTerms(query);
    const queryHash = hashText(terms.join(" "));
    const offset = options.cursor === undefined ? 0 : decodeCursor(options.cursor, queryHash);

    let ranked = terms.length === 0 ? this.#listAll() : this.#rank(terms);
    const ns = options.namespace;
    if (ns !== undefined) {
      ranked = ranked.filter(({ doc }) => doc.namespace === undefined || doc.namespace === ns);
    }
    // Hits are copied only for the page: callers may keep or change them.
    const items = ranked.slice(offset, offset + limit).map(({ doc, score }) => {
      const { namespace: _ns, ...rest } = doc;
      return { ...rest, score };
    });
    const page: SearchPage = { items, total: ranked.length };
    if (offset + limit < ranked.length) page.nextCursor = encodeCursor(offset + limit, queryHash);
    return page;
  }

  #listAll(): Ranked[] {
    this.#listing ??= [...this.#docs.values()].sort((a, b) => comparePaths(a.path, b.path));
    return this.#listing.map((doc) => ({ doc, score: 0 }));
  }

  #rank(terms: string[]): Ranked[] {
    const asked = new Set(terms);
    const all = new Set(terms);
    for (const t of terms) for (const s of synonymsOf(t)) all.add(s);
    const results = this.#mini.search([...all].join(" "), {
      // The terms are already split and normalized.
      tokenize: (text) => text.split(" "),
      processTerm: (term) => term,
      boost: FIELD_BOOST,
      prefix: (term) => term.length >= MIN_PREFIX_LENGTH,
      fuzzy: fuzzyFor,
      maxFuzzy: 2,
      combineWith: "OR",
      boostTerm: (term) => asked.has(term) ? 1 : SYNONYM_WEIGHT,
    });
    const ranked: Ranked[] = [];
    for (const r of results) {
      const doc = this.#docs.get(r.id as string);
      if (doc) ranked.push({ doc, score: Math.round(r.score * SCORE_DIGITS) / SCORE_DIGITS });
    }
    return ranked.sort((a, b) => b.score - a.score || comparePaths(a.doc.path, b.doc.path));
  }
}

interface Ranked {
  doc: SearchDocument;
  score: number;
}

/** Unique per document: the path, qualified by the namespace when there is one. */
function keyOf(doc: { path: string; namespace?: string }): string {
  return doc.namespace === undefined ? doc.path : `${doc.namespace}\u0000${doc.path}`;
}

/** Code-unit order: the same on every machine and locale. */
function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
