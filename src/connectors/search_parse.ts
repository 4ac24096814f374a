/**
 * A request as the ranking reads it: its terms, the word it opens with, adjacent words glued,
 * what its values say (search_values.ts), whether it reads or writes and wants one thing or
 * many (search_actions.ts).
 *
 * @module
 */
import {
  isVerbForm,
  joinParticleVerbs,
  type RequestAction,
  requestAction,
  withoutArguments,
} from "./search_actions.ts";
import {
  CHANNEL_MENTION,
  isStopWord,
  normalizeTerm,
  searchTerms,
  singular,
  splitWords,
} from "./search_terms.ts";
import { readValues, type ValueEvidence } from "./search_values.ts";

/** Words that may come before a request's verb without being it. */
const POLITE = new Set(["please", "pls", "kindly"]);

/** A query as the ranking reads it. */
export interface ParsedQuery {
  /** Its distinct terms, in order (`searchTerms` of search_terms.ts). */
  terms: string[];
  /**
   * The term of the word it opens with, when that word is not a stop word: the request's verb
   * when it is phrased as one ("page the DBA" → `page`; "what's on my schedule" → none).
   */
  opening?: string;
  /**
   * Two adjacent words written as one, by the term of the second: "on call" gives `call` →
   * `oncall`, "free busy" `busy` → `freebusy`, so a query meets identifiers that glue them.
   */
  joined: Map<string, string>;
  /**
   * What the values taken out of it say (search_values.ts), one concept each: alternatives of
   * terms (`cus_123` → `customer`); an id adds one concept of `id` or `number`.
   */
  values: string[][][];
  /** Whether it reads or writes, and whether a verb says so (search_actions.ts). */
  action: RequestAction;
  /** Whether it names things in the plural and no id: it wants many, not one. */
  many: boolean;
}

/** Nouns for a collection of things: "what's on my agenda" wants many. */
const COLLECTIONS = new Set([
  "agenda",
  "inbox",
  "history",
  "feed",
  "timeline",
  "backlog",
  "queue",
  "roster",
  "catalog",
  "catalogue",
]);

/**
 * Whether some of `words` is a plural noun (`incidents`, `PRs`), not a verb's form (`updates`),
 * or a collection (`agenda`, `inbox`).
 */
export function namesPlural(words: readonly string[]): boolean {
  return words.some((word) => {
    const w = word.toLowerCase();
    if (COLLECTIONS.has(w)) return true;
    if (!/^\p{L}{3,}$/u.test(w) || isStopWord(w)) return false;
    const one = singular(w);
    return one !== w && !isVerbForm(w, one);
  });
}

/** A phrase's terms. */
function phraseTerms(phrase: string): string[] {
  return splitWords(phrase).map(normalizeTerm).filter((t): t is string => t !== null);
}

/** The concepts of a request's values, in order, without those its words already say. */
function valueConcepts(evidence: readonly ValueEvidence[], terms: string[]): string[][][] {
  const said = new Set(terms);
  const out: string[][][] = [];
  const seen = new Set<string>();
  let id = false;
  for (const e of evidence) {
    id ||= e.id;
    const alternatives = e.kinds.map(phraseTerms).filter((a) => a.length > 0);
    const key = alternatives.map((a) => a.join(" ")).join("|");
    if (alternatives.length === 0 || seen.has(key)) continue;
    if (alternatives.some((a) => a.every((t) => said.has(t)))) continue;
    seen.add(key);
    out.push(alternatives);
  }
  if (id && !said.has("id")) out.push([["id"], ["number"]]);
  return out;
}

/**
 * Reads a query: its terms, the word it opens with, and its adjacent words glued.
 *
 * @example
 * ```ts
 * import { parseQuery } from "./search_parse.ts";
 * const q = parseQuery("page who is on call");
 * console.assert(q.opening === "page" && q.joined.get("call") === "oncall");
 * ```
 */
export function parseQuery(request: string): ParsedQuery {
  const values = readValues(request);
  const { evidence } = values;
  const text = joinParticleVerbs(withoutArguments(values.text));
  const words = splitWords(text.replace(CHANNEL_MENTION, "$1channel"));
  const first = words.find((w) => !POLITE.has(w.toLowerCase()));
  // A possessive opens a noun phrase ("octocat's PRs"), never a verb.
  const possessive = /^[\s\p{P}]*[\p{L}\p{N}_-]+['\u2019]s\b/u.test(text);
  const opening = first === undefined || possessive ? undefined : normalizeTerm(first) ?? undefined;
  const joined = new Map<string, string>();
  for (let i = 1; i < words.length; i++) {
    const second = normalizeTerm(words[i]);
    const glued = normalizeTerm(words[i - 1] + words[i].toLowerCase());
    if (second !== null && glued !== null && /^\p{L}+$/u.test(words[i - 1])) {
      joined.set(second, glued);
    }
  }
  const terms = searchTerms(text);
  const lower = words.map((w) => w.toLowerCase());
  const query: ParsedQuery = {
    terms,
    joined,
    values: valueConcepts(evidence, terms),
    action: requestAction(lower),
    many: namesPlural(words) && !evidence.some((e) => e.id),
  };
  if (opening !== undefined) query.opening = opening;
  return query;
}
