/**
 * How search sees text: identifiers split into words (`createIssue`, `list_oncalls`,
 * `notion-create-pages`, `ListObjectsV2`), lowercased, common words dropped, plurals folded
 * and a light stem taken (`-ing`, `-ed`, a final `e`), so `scheduled`, `schedules` and
 * `scheduling` meet `schedule`. Documents and queries go through the same steps.
 *
 * @module
 */

/** Words that appear in every description and in most questions, and so rank nothing. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and any are as at be by can do does for from has have how i in into is it its me my of " +
    "no not on or our please s so some than that the their them then there these this those to up us " +
    "was we what whats when where which who will with would you your")
    .split(" "),
);

/**
 * Splits text into words: on anything that is not a letter or digit, and
 * inside identifiers at camelCase and PascalCase boundaries
 * (`createIssue`, `HTTPRequest`, `getS3Object`, `weekly_report`).
 */
export function splitWords(text: string): string[] {
  return text
    // An acronym's plural stays one word: `APIs`, `URLs` (not `AP Is`).
    .replace(/(\p{Lu}{2,})s(?!\p{Ll})/gu, "$1S")
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}

/**
 * Plurals to singular, the same on both sides: `issues` → `issue`, `boxes` → `box`,
 * `replies` → `reply`. Words ending in `ss`, `us` (`status`) or `ias`/`vas`/`las`
 * (`alias`, `canvas`, `atlas`) are not plurals.
 */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y";
  if (word.length > 4 && /(?:ss|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && /(?:ia|va|la)s$/.test(word)) return word;
  if (word.length > 2 && /[^su]s$/.test(word)) return word.slice(0, -1);
  return word;
}

const VOWEL = /[aeiouy]/;
/** Words that end like an inflection but are not one. */
const NOT_INFLECTED: ReadonlySet<string> = new Set(["embed", "hundred", "naked", "sacred"]);

/** Whether `word` ends consonant–vowel–consonant, the last not w, x or y (`hop`, `clos`). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const c = (i: number) => !"aeiou".includes(word[i]) && !(word[i] === "y" && i > 0);
  return c(n - 3) && !c(n - 2) && c(n - 1) && !"wxy".includes(word[n - 1]);
}

/** Vowel–consonant runs in `word`: `tr` 0, `tree` 0, `trouble` 1, `schedul` 2. */
function measure(word: string): number {
  const pattern = word.replace(/[^aeiouy]+/g, "C").replace(/[aeiouy]+/g, "V");
  return (pattern.match(/VC/g) ?? []).length;
}

/**
 * A light stem: `-ing` and `-ed` removed (`running` → `run`, `closed` → `close`), then a final
 * `e` dropped from longer words (`schedule` → `schedul`, the stem `scheduled` also reaches).
 * Only inflections: derivations (`-ation`, `-ment`) are different words to a model.
 */
export function stem(word: string): string {
  let w = word;
  const suffix = /(?:ing|ed)$/.exec(w);
  if (suffix && w.length >= 5 && !w.endsWith("eed") && !NOT_INFLECTED.has(w)) {
    const base = w.slice(0, -suffix[0].length);
    if (base.length >= 3 && VOWEL.test(base)) {
      w = base;
      if (/(?:at|bl|iz)$/.test(w)) w += "e";
      else if (/([^aeioulsz])\1$/.test(w)) w = w.length > 3 ? w.slice(0, -1) : w;
      // British spelling doubles a final l: `labelled`, `cancelled`, `travelled`.
      else if (w.length >= 6 && w.endsWith("ell")) w = w.slice(0, -1);
      else if (measure(w) === 1 && endsCvc(w)) w += "e";
      else if (w.endsWith("i")) w = w.slice(0, -1) + "y";
    }
  }
  if (w.length > 4 && w.endsWith("e") && !w.endsWith("ee")) {
    const base = w.slice(0, -1);
    if (measure(base) > 1 || (measure(base) === 1 && !endsCvc(base))) w = base;
  }
  return w;
}

/** Whether `word` (lowercased) is a common word search drops. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** A word as indexed and queried (lowercased, singular, stemmed), or `null` to drop it. */
export function normalizeTerm(word: string): string | null {
  const w = word.toLowerCase();
  if (STOP_WORDS.has(w) || (w.length < 2 && !/\d/.test(w))) return null;
  return stem(singular(w));
}

/** `#general`, `#ops-alerts`: a channel named the way chat writes it (not `#42`, an issue). */
export const CHANNEL_MENTION = /(^|[\s(])#\p{L}[\p{L}\p{N}_-]*/gu;

/**
 * The distinct search terms of a query, in order.
 *
 * @example
 * ```ts
 * import { searchTerms } from "./search_terms.ts";
 * console.assert(searchTerms("listIssues in the repos").join(" ") === "list issu repo");
 * ```
 */
export function searchTerms(text: string): string[] {
  const out = new Set<string>();
  // A `#name` in a request is a chat channel (`#general`); its name is an argument.
  for (const word of splitWords(text.replace(CHANNEL_MENTION, "$1channel"))) {
    const term = normalizeTerm(word);
    if (term !== null) out.add(term);
  }
  return [...out];
}

/** The shortest glued word worth splitting, and the shortest part it may split into. */
const MIN_GLUED_LENGTH = 5;
const MIN_GLUED_PART = 2;

/**
 * The parts of a glued identifier word, when both halves are words its own text uses:
 * `oncalls` of `list_oncalls` ("who is on call") gives `on` and `calls`; `freebusy`
 * ("free/busy information") gives `free` and `busy`. Each half must appear in `known`
 * (the lowercased words of the tool's description and connector), so nothing is split on a
 * guess. An empty list when no split fits.
 */
export function gluedParts(word: string, known: ReadonlySet<string>): string[] {
  const w = word.toLowerCase();
  if (w.length < MIN_GLUED_LENGTH || known.has(w)) return [];
  for (let i = MIN_GLUED_PART; i <= w.length - MIN_GLUED_PART; i++) {
    const left = w.slice(0, i);
    const right = w.slice(i);
    const rightKnown = known.has(right) || known.has(singular(right));
    if (known.has(left) && rightKnown) return [left, right];
  }
  return [];
}

/**
 * The letters of a word that ends in a version or count (`ListObjectsV2` → `v2` stays, but
 * `base64` → `base`, `oauth2` → `oauth`), so a query without the digits still meets it.
 */
export function lettersOf(word: string): string | undefined {
  const m = /^(\p{L}{3,})\p{N}+$/u.exec(word);
  return m ? m[1] : undefined;
}
