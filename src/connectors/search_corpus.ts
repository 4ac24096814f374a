/**
 * One ranked corpus: a MiniSearch (BM25) index over a set of documents, and its listing by
 * path. BM25 scores depend on every document in the index (term rarity, average field
 * length), so whoever shares a corpus shares its statistics; `SearchIndex` gives each
 * namespace with snippets a corpus of its own (the shared tools and its snippets) for that
 * reason.
 *
 * @module
 */
import MiniSearch from "minisearch";
import { normalizeTerm, splitWords, synonymsOf } from "./search_terms.ts";

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

/** A document with its score, before paging. */
export interface Ranked {
  doc: SearchDocument;
  score: number;
}

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

/** Unique per document: the path, qualified by the namespace when there is one. */
export function documentKey(doc: { path: string; namespace?: string }): string {
  return doc.namespace === undefined ? doc.path : `${doc.namespace}\u0000${doc.path}`;
}

/** Code-unit order: the same on every machine and locale. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A BM25 index over some documents (the caller keeps them; this one only ranks them). */
export class SearchCorpus {
  readonly #docs = new Map<string, SearchDocument>();
  /** Every document by path, built on the first blank query after a change. */
  #listing: SearchDocument[] | undefined;
  readonly #mini = new MiniSearch<SearchDocument>({
    idField: "key",
    fields: ["name", "connector", "description"],
    // Snippets have no connector; the word "snippet" lets a query ask for them.
    extractField: (doc, field) =>
      field === "key"
        ? documentKey(doc)
        : field === "connector"
        ? doc.kind === "snippet" ? `snippet ${doc.connector ?? ""}` : doc.connector ?? ""
        : (doc as unknown as Record<string, string>)[field],
    tokenize: splitWords,
    processTerm: normalizeTerm,
    // Removal is exact (we keep each document), so no background vacuum timers.
    autoVacuum: false,
  });

  /** Indexes `doc` (the caller has removed any document with its key). */
  add(doc: SearchDocument): void {
    this.#docs.set(documentKey(doc), doc);
    this.#mini.add(doc);
    this.#listing = undefined;
  }

  /** Drops the document with `key`, if indexed. */
  remove(key: string): void {
    const doc = this.#docs.get(key);
    if (!doc) return;
    this.#mini.remove(doc);
    this.#docs.delete(key);
    this.#listing = undefined;
  }

  /** Every document by path, each scored 0. */
  listAll(): Ranked[] {
    this.#listing ??= [...this.#docs.values()].sort((a, b) => comparePaths(a.path, b.path));
    return this.#listing.map((doc) => ({ doc, score: 0 }));
  }

  /** Documents matching any of `terms` (split and normalized), best first, ties by path. */
  rank(terms: string[]): Ranked[] {
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
