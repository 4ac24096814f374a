/**
 * The words requests use for what APIs call something else: `cancel` a meeting is
 * `delete_event`, a `discount` is a `coupon`, a `PR` is a pull request, `CI` is a status check.
 * Written from how common APIs (code hosting, chat, mail, calendars, trackers, payments, CRM,
 * storage, databases, clusters, monitoring, on-call, telephony, weather, maps) name things,
 * not from any query set; a query word also searches for its entries with less weight
 * ({@link import("./search_corpus.ts").RankingWeights}).
 *
 * Two kinds of entry (search_words.ts): groups of words APIs use interchangeably (each stands
 * for the others), and one-way entries from an everyday word to the API words it means. An
 * entry may be a phrase (`pull request`): it matches when all its words do.
 *
 * @module
 */
import { normalizeTerm, splitWords } from "./search_terms.ts";
import { MEANS, OPENING_VERBS, SAME } from "./search_words.ts";
import { BUSINESS_MEANS, BUSINESS_SAME } from "./search_words_business.ts";
import { OPS_MEANS, OPS_SAME } from "./search_words_ops.ts";
import { WORK_MEANS, WORK_SAME } from "./search_words_work.ts";

/** A term's alternatives: each a list of terms that must all match. */
export type Expansion = readonly (readonly string[])[];

function phraseTerms(phrase: string): string[] {
  return splitWords(phrase).map(normalizeTerm).filter((t): t is string => t !== null);
}

function buildVocabulary(
  same: readonly (readonly string[])[],
  ...means: Readonly<Record<string, readonly string[]>>[]
): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  const add = (word: string, meanings: readonly string[]) => {
    const key = phraseTerms(word);
    // Phrases are looked up by their words joined with a space.
    const k = key.join(" ");
    if (k === "") return;
    const list = out.get(k) ?? [];
    for (const m of meanings) {
      const terms = phraseTerms(m);
      if (terms.length === 0 || terms.join(" ") === k) continue;
      if (!list.some((l) => l.join(" ") === terms.join(" "))) list.push(terms);
    }
    out.set(k, list);
  };
  for (const group of same) for (const w of group) add(w, group.filter((o) => o !== w));
  for (const m of means) for (const [w, meanings] of Object.entries(m)) add(w, meanings);
  return out;
}

const VOCABULARY = buildVocabulary(
  [...SAME, ...WORK_SAME, ...OPS_SAME, ...BUSINESS_SAME],
  MEANS,
  WORK_MEANS,
  OPS_MEANS,
  BUSINESS_MEANS,
);
const OPENING = buildVocabulary([], OPENING_VERBS);

/**
 * What a query term (or two adjacent terms joined by a space: `on call`, `pull request`)
 * also searches for: alternatives of one or more terms each. Empty for most terms.
 *
 * @example
 * ```ts
 * import { expansionsOf } from "./search_vocabulary.ts";
 * console.assert(expansionsOf("pr").some((alt) => alt.join(" ") === "pull request"));
 * ```
 */
export function expansionsOf(key: string): Expansion {
  return VOCABULARY.get(key) ?? [];
}

/** The verb sense of a noun that opens a request (`page` → incident, alert, notify), if any. */
export function openingSenseOf(term: string): Expansion | undefined {
  return OPENING.get(term);
}

/**
 * Verbs every API has many tools for. A query's verb says less about which tool it wants than
 * its nouns do (`cancel` a meeting is not `cancel_subscription`), so verbs weigh less.
 */
const GENERIC_VERBS_TEXT =
  "list get create update delete remove add search find show set send post read write fetch " +
  "run make cancel move archive open close edit change start stop view see check mark tell " +
  "give take put keep need want use help look bring turn go come";

/** {@link GENERIC_VERBS_TEXT} as normalized terms. */
export const GENERIC_VERBS: ReadonlySet<string> = new Set(
  GENERIC_VERBS_TEXT.split(" ").map(normalizeTerm).filter((t): t is string => t !== null),
);
