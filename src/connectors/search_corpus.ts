/**
 * One ranked corpus: a BM25F index over a set of documents, and its listing by path. BM25
 * scores depend on every document in the index (term rarity, average field length), so whoever
 * shares a corpus shares its statistics; `SearchIndex` gives each namespace with snippets a
 * corpus of its own (the shared tools and its snippets) for that reason.
 *
 * BM25F: a term's occurrences in a document's fields are weighted and summed before they
 * saturate, so a word in both a tool's name and its description counts about once, not twice.
 * A query is one concept per term (search_query.ts); a document scores each concept's best
 * alternative, times the share of concepts it matched and how much of its name the query names.
 *
 * @module
 */
import {
  DESCRIPTION_FIELDS,
  FIELDS,
  fieldTerms,
  NAME_FIELD,
  ownField,
  type SearchDocument,
  termsOf,
} from "./search_fields.ts";
import { type NameAction, nameAction } from "./search_actions.ts";
import { queryConcepts } from "./search_query.ts";
import { namesPlural, type ParsedQuery } from "./search_parse.ts";
import { normalizeTerm, splitWords } from "./search_terms.ts";
import { DEFAULT_WEIGHTS, type RankingWeights } from "./search_weights.ts";

export type { SearchDocument };

/** A document with its score, before paging. */
export interface Ranked {
  doc: SearchDocument;
  score: number;
}

const FIELD_COUNT = FIELDS.length;
/** Scores are rounded so float noise never decides an order; ties then go by path. */
const SCORE_DIGITS = 1_000;

/** Unique per document: the path, qualified by the namespace when there is one. */
export function documentKey(doc: { path: string; namespace?: string }): string {
  return doc.namespace === undefined ? doc.path : `${doc.namespace}\u0000${doc.path}`;
}

/** Code-unit order: the same on every machine and locale. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Entry {
  doc: SearchDocument;
  /** A small integer, unique among the corpus's entries: its place in score arrays. */
  slot: number;
  /** Terms per field. */
  lengths: Float64Array;
  /** Each term's frequency per field. */
  terms: Map<string, Float64Array>;
  /** The distinct words of the name (without glued halves), for how much of it a query names. */
  nameWords: string[];
  /** Whether the tool reads or writes, by its name's verb (search_actions.ts). */
  action: NameAction | undefined;
}

/** One document holding a term, with the term's saturated weight once computed. */
interface Posting {
  entry: Entry;
  tf: Float64Array;
  /** The BM25F saturated frequency, valid while `version` is the corpus's. */
  saturated: number;
  version: number;
}

/** The share of the name's words the query names (0 to 1). */
function nameCoverage(entry: Entry, naming: Map<string, number>): number {
  if (entry.nameWords.length === 0) return 0;
  let named = 0;
  for (const t of entry.nameWords) named += naming.get(t) ?? 0;
  return named / entry.nameWords.length;
}

/** A BM25F index over some documents (the caller keeps them; this one only ranks them). */
export class SearchCorpus {
  readonly #entries = new Map<string, Entry>();
  /** Term → the documents holding it. */
  readonly #postings = new Map<string, Posting[]>();
  /**
   * Term → how many entries hold it in their own fields (name, description, hints). A
   * connector's words are in every one of its tools: counted there, "commit" would look common
   * only because the GitHub connector's description says "commits".
   */
  readonly #ownDf = new Map<string, number>();
  /** Sum of each field's length over every entry. */
  readonly #totalLengths = new Float64Array(FIELD_COUNT);
  readonly #weights: RankingWeights;
  /** Slots given back by removed entries, reused first. */
  readonly #freeSlots: number[] = [];
  #slotCount = 0;
  /** Bumped by every change: cached saturated weights of an older version are stale. */
  #version = 0;
  /** Every document by path, built on the first blank query after a change. */
  #listing: SearchDocument[] | undefined;
  #byInitial: { version: number; terms: Map<string, string[]> } | undefined;

  constructor(weights: RankingWeights = DEFAULT_WEIGHTS) {
    this.#weights = weights;
  }

  /** Indexes `doc` (the caller has removed any document with its key). */
  add(doc: SearchDocument): void {
    const entry: Entry = {
      doc,
      slot: this.#freeSlots.pop() ?? this.#slotCount++,
      lengths: new Float64Array(FIELD_COUNT),
      terms: new Map(),
      nameWords: [...new Set(termsOf(doc.name))],
      action: undefined,
    };
    entry.action = nameAction(entry.nameWords, namesPlural(splitWords(doc.name)), normalizeTerm);
    fieldTerms(doc).forEach((terms, f) => {
      entry.lengths[f] = terms.length;
      this.#totalLengths[f] += terms.length;
      for (const t of terms) {
        let tf = entry.terms.get(t);
        if (!tf) entry.terms.set(t, tf = new Float64Array(FIELD_COUNT));
        tf[f]++;
      }
    });
    for (const [t, tf] of entry.terms) {
      let list = this.#postings.get(t);
      if (!list) this.#postings.set(t, list = []);
      list.push({ entry, tf, saturated: 0, version: -1 });
      if (ownField(tf)) this.#ownDf.set(t, (this.#ownDf.get(t) ?? 0) + 1);
    }
    this.#entries.set(documentKey(doc), entry);
    this.#changed();
  }

  /** Drops the document with `key`, if indexed. */
  remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    for (const [t, tf] of entry.terms) {
      const list = this.#postings.get(t)!.filter((p) => p.entry !== entry);
      if (list.length === 0) this.#postings.delete(t);
      else this.#postings.set(t, list);
      if (ownField(tf)) {
        const left = this.#ownDf.get(t)! - 1;
        if (left > 0) this.#ownDf.set(t, left);
        else this.#ownDf.delete(t);
      }
    }
    for (let f = 0; f < FIELD_COUNT; f++) this.#totalLengths[f] -= entry.lengths[f];
    this.#entries.delete(key);
    this.#freeSlots.push(entry.slot);
    this.#changed();
  }

  #changed(): void {
    this.#listing = undefined;
    this.#version++;
  }

  /** Every document by path, each scored 0. */
  listAll(): Ranked[] {
    this.#listing ??= [...this.#entries.values()].map((e) => e.doc)
      .sort((a, b) => comparePaths(a.path, b.path));
    return this.#listing.map((doc) => ({ doc, score: 0 }));
  }

  /**
   * Documents matching any of the query's terms, best first, ties by path.
   */
  rank(query: ParsedQuery): Ranked[] {
    const w = this.#weights;
    const concepts = queryConcepts(
      query,
      (t) => this.#postings.has(t),
      (initial) => this.#initials().get(initial) ?? [],
      w,
    );
    const n = concepts.length;
    // Per slot, each concept's best alternative; `alt` sums one alternative's terms.
    const best = new Float64Array(this.#slotCount * n);
    const alt = new Float64Array(this.#slotCount);
    const touched: Entry[] = [];
    const seen = new Uint8Array(this.#slotCount);
    concepts.forEach((concept, c) => {
      for (const { terms: altTerms, weight } of concept.alternatives) {
        const share = weight / altTerms.length;
        const hit: Entry[] = [];
        for (const t of altTerms) {
          const postings = this.#postings.get(t);
          if (!postings) continue;
          const idf = this.#idf(this.#ownDf.get(t) ?? postings.length);
          for (const p of postings) {
            if (alt[p.entry.slot] === 0) hit.push(p.entry);
            alt[p.entry.slot] += share * idf * this.#saturated(p);
          }
        }
        for (const e of hit) {
          const i = e.slot * n + c;
          if (alt[e.slot] > best[i]) best[i] = alt[e.slot];
          alt[e.slot] = 0;
          if (seen[e.slot] === 0) {
            seen[e.slot] = 1;
            touched.push(e);
          }
        }
      }
    });
    const totalWeight = concepts.reduce((s, c) => s + c.weight, 0);
    // How strongly each term names a tool: the query's own words fully, its synonyms less.
    const naming = new Map<string, number>();
    for (const { alternatives } of concepts) {
      for (const a of alternatives) {
        const named = a.weight < 1 ? a.weight * w.synonymNaming : a.weight;
        for (const t of a.terms) naming.set(t, Math.max(naming.get(t) ?? 0, named));
      }
    }
    // A request read as reading for want of a verb, opening with a word no tool uses, may open
    // with a verb nobody listed or misspelt ("sendd a mesage"): what it does is then unknown.
    const { action, said } = query.action;
    const opening = query.opening;
    const sure = said || opening === undefined || this.#postings.has(opening);
    const ranked: Ranked[] = [];
    for (const e of touched) {
      let score = 0;
      let matched = 0;
      for (let c = 0; c < n; c++) {
        const s = best[e.slot * n + c];
        if (s > 0) {
          score += concepts[c].weight * s;
          matched += concepts[c].weight;
        }
      }
      score *= (matched / totalWeight) ** w.coordination;
      score *= 1 + w.nameCoverage * nameCoverage(e, naming);
      // A tool that writes when the request reads, or reads when it writes, is likely the
      // near-duplicate it did not mean.
      const act = sure ? e.action : undefined;
      if (act !== undefined && act.action !== action) {
        score *= 1 - (act.action === "read" ? w.readWhenWriting : w.writeWhenReading);
      } else if (act?.action === "read" && act.many !== query.many) score *= 1 - w.cardinality;
      ranked.push({ doc: e.doc, score: Math.round(score * SCORE_DIGITS) / SCORE_DIGITS });
    }
    return ranked.sort((a, b) => b.score - a.score || comparePaths(a.doc.path, b.doc.path));
  }

  /** Indexed terms by first letter, for near spellings; rebuilt after a change. */
  #initials(): Map<string, string[]> {
    if (this.#byInitial?.version === this.#version) return this.#byInitial.terms;
    const terms = new Map<string, string[]>();
    for (const t of this.#postings.keys()) {
      const list = terms.get(t[0]);
      if (list) list.push(t);
      else terms.set(t[0], [t]);
    }
    this.#byInitial = { version: this.#version, terms };
    return terms;
  }

  #idf(df: number): number {
    const n = this.#entries.size;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** The term's weighted frequency across fields, saturated (BM25F); cached per version. */
  #saturated(p: Posting): number {
    if (p.version === this.#version) return p.saturated;
    const w = this.#weights;
    const n = this.#entries.size;
    let sum = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      if (p.tf[f] === 0) continue;
      const b = f === NAME_FIELD ? w.bName : DESCRIPTION_FIELDS.has(f) ? w.bDescription : 0;
      const avg = this.#totalLengths[f] / n || 1;
      sum += w.fields[FIELDS[f]] * p.tf[f] / (1 - b + b * p.entry.lengths[f] / avg);
    }
    p.saturated = sum * (w.k1 + 1) / (sum + w.k1);
    p.version = this.#version;
    return p.saturated;
  }
}
