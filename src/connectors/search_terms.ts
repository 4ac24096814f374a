/**
 * How search sees text: identifiers split into words (`createIssue` →
 * `create`, `issue`), lowercased, plurals folded, common words dropped, and
 * the everyday words of a request paired with the API verbs tools use.
 * Documents and queries go through the same steps, so they meet.
 *
 * @module
 */

/**
 * Requests use everyday words where tool names use API verbs ("send" a
 * message is `postMessage`, "upload" to a bucket is `putObject`). A query
 * term also searches for these (with less weight). Kept small: each
 * entry is a pairing seen across many real APIs, not tuning for one tool.
 */
const QUERY_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  send: ["post"],
  post: ["send"],
  make: ["create"],
  new: ["create"],
  add: ["create"],
  create: ["add"],
  remove: ["delete"],
  delete: ["remove"],
  edit: ["update"],
  change: ["update"],
  modify: ["update"],
  fetch: ["get"],
  retrieve: ["get"],
  show: ["get", "list"],
  find: ["search"],
  lookup: ["search"],
  upload: ["put"],
  download: ["get"],
  link: ["url"],
  url: ["link"],
  text: ["sms"],
  sms: ["text"],
  meeting: ["event"],
  bug: ["issue"],
  ticket: ["issue"],
};
/** The API words a query term also searches for (none for most terms). */
export function synonymsOf(term: string): readonly string[] {
  return Object.hasOwn(QUERY_SYNONYMS, term) ? QUERY_SYNONYMS[term] : [];
}

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

/** Plurals to singular, the same on both sides: `issues` → `issue`, `boxes` → `box`. */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y";
  if (word.length > 4 && /(?:ss|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 2 && /[^su]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** A word as indexed and queried, or `null` to drop it. */
export function normalizeTerm(word: string): string | null {
  const w = word.toLowerCase();
  if (STOP_WORDS.has(w) || (w.length < 2 && !/\d/.test(w))) return null;
  return singular(w);
}

/**
 * The distinct search terms of `text`, in order.
 *
 * @example
 * ```ts
 * import { searchTerms } from "./search_terms.ts";
 * console.assert(searchTerms("createIssue in the repos").join(" ") === "create issue repo");
 * ```
 */
export function searchTerms(text: string): string[] {
  const out = new Set<string>();
  for (const word of splitWords(text)) {
    const term = normalizeTerm(word);
    if (term !== null) out.add(term);
  }
  return [...out];
}
