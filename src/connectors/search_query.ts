/**
 * A query as the ranking sees it: one concept per query term, each with its alternatives (the
 * term itself, the vocabulary's words for it, or near spellings when no document has the term)
 * and a weight (generic verbs less). A document scores the best alternative of each concept.
 *
 * @module
 */
import { expansionsOf, GENERIC_VERBS, openingSenseOf } from "./search_vocabulary.ts";
import type { ParsedQuery } from "./search_parse.ts";
import type { RankingWeights } from "./search_weights.ts";

/** Terms that together stand for a query term, and how much they count. */
export interface Alternative {
  terms: readonly string[];
  weight: number;
}

/** One query term with its alternatives. */
export interface Concept {
  term: string;
  /** A generic verb counts less than a noun. */
  weight: number;
  alternatives: Alternative[];
}

/** Near spellings kept per misspelt word: enough for a typo, few enough to stay precise. */
const MAX_NEAR_SPELLINGS = 4;
/** From this length a word may be two edits from its spelling. */
const TWO_EDITS_LENGTH = 8;

/** Rows of the edit-distance table, reused: terms are short. */
let rowA = new Uint8Array(64);
let rowB = new Uint8Array(64);

/** Levenshtein distance of `a` and `b`, or `max + 1` once it exceeds `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (b.length >= rowA.length) {
    [rowA, rowB] = [new Uint8Array(b.length + 1), new Uint8Array(b.length + 1)];
  }
  let prev = rowA;
  let row = rowB;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (row[j] < best) best = row[j];
    }
    if (best > max) return max + 1;
    [prev, row] = [row, prev];
  }
  return prev[b.length];
}

/**
 * Indexed terms near an unknown `term`, from `candidates` (the indexed terms starting with
 * its first or second letter: a typo seldom changes both): those it is a prefix of
 * (`subscr` → `subscription`) and those within one edit (two from {@link TWO_EDITS_LENGTH}
 * letters), closest first.
 */
function nearSpellings(term: string, candidates: readonly string[]): string[] {
  const max = term.length >= TWO_EDITS_LENGTH ? 2 : 1;
  const found: [string, number][] = [];
  for (const v of candidates) {
    if (v.length > term.length && v.startsWith(term)) found.push([v, 0.5]);
    else {
      const d = editDistance(term, v, max);
      if (d <= max) found.push([v, d]);
    }
  }
  found.sort((a, b) => a[1] - b[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1));
  return found.slice(0, MAX_NEAR_SPELLINGS).map(([v]) => v);
}

/** The concepts of a query's `terms`; terms nothing could match are left out. */
export function queryConcepts(
  query: ParsedQuery,
  known: (term: string) => boolean,
  startingWith: (initial: string) => readonly string[],
  w: RankingWeights,
): Concept[] {
  const { terms, opening, joined } = query;
  const concepts: Concept[] = [];
  terms.forEach((term, i) => {
    const alternatives: Alternative[] = [];
    // A noun opening the request is its verb ("page the DBA"): that sense first, the noun less.
    const sense = i === 0 && term === opening ? openingSenseOf(term) : undefined;
    // Its first sense is the usual one ("open a PR" creates one); the others count as synonyms.
    (sense ?? []).forEach((alt, k) => {
      if (alt.every(known)) alternatives.push({ terms: alt, weight: k === 0 ? 1 : w.synonym });
    });
    if (known(term)) alternatives.push({ terms: [term], weight: sense ? w.synonym : 1 });
    else if (term.length >= w.fuzzyMinLength) {
      const candidates = [
        ...startingWith(term[0]),
        ...(term[1] === term[0] ? [] : startingWith(term[1])),
      ];
      for (const near of nearSpellings(term, candidates)) {
        alternatives.push({ terms: [near], weight: w.fuzzy });
      }
    }
    // "on call" meets `oncall`: the word glued to the one before it, when an index has that.
    const glued = joined.get(term);
    if (glued !== undefined && known(glued)) alternatives.push({ terms: [glued], weight: 1 });
    // The term's own entries, and those of the phrases it starts or ends.
    const keys = [term];
    if (i > 0) keys.push(`${terms[i - 1]} ${term}`);
    if (i + 1 < terms.length) keys.push(`${term} ${terms[i + 1]}`);
    const hops: string[] = [];
    for (const key of keys) {
      for (const alt of expansionsOf(key)) {
        if (alt.length === 1) hops.push(alt[0]);
        if (alt.some((t) => !known(t))) continue;
        alternatives.push({ terms: alt, weight: w.synonym });
      }
    }
    // A word no tool uses widens once more ("give" → grant → share), at a lower weight.
    if (!known(term) && w.secondHop > 0) {
      const seen = new Set(alternatives.map((a) => a.terms.join(" ")));
      for (const hop of hops) {
        for (const alt of expansionsOf(hop)) {
          const key = alt.join(" ");
          if (seen.has(key) || alt.some((t) => !known(t))) continue;
          seen.add(key);
          alternatives.push({ terms: alt, weight: w.synonym * w.secondHop });
        }
      }
    }
    if (alternatives.length === 0) return;
    const verb = sense !== undefined || GENERIC_VERBS.has(term);
    concepts.push({ term, weight: verb ? w.verb : 1, alternatives });
  });
  // Values (ids, addresses, times) are weak evidence of what the request is about.
  for (const value of query.values) {
    const alternatives = value.filter((alt) => alt.every(known)).map((terms) => ({
      terms,
      weight: 1,
    }));
    if (alternatives.length === 0) continue;
    concepts.push({ term: value[0].join(" "), weight: w.value, alternatives });
  }
  return concepts;
}
