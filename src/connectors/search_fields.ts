/**
 * What search reads of a document, field by field: the tool's name split into words (with the
 * halves of glued words such as `oncalls`), its description, its connector's name, what the
 * connector is for, and the routing hints its siblings give it.
 *
 * @module
 */
import { gluedParts, lettersOf, normalizeTerm, splitWords } from "./search_terms.ts";

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
  /** What it does, as its author wrote it. */
  description: string;
  /**
   * The namespace that sees it (snippets). A document without one is seen by every search;
   * one with a namespace only by searches in it.
   */
  namespace?: string;
  /** What its connector is for (description, tags, when to use it): ranked, never shown. */
  context?: string;
  /** Sentences of sibling tools' descriptions that send the reader to this tool. */
  hints?: string;
  /** The description as ranked, when it differs (its sentences routing elsewhere removed). */
  rankedDescription?: string;
}

/** The fields, in the order their term frequencies are kept. */
export const FIELDS = ["name", "description", "connector", "context", "hints"] as const;

/** Index of the name field; descriptions and hints are normalized by length like it. */
export const NAME_FIELD = 0;
/** Fields whose length normalizes like a description's. */
export const DESCRIPTION_FIELDS: ReadonlySet<number> = new Set([1, 4]);

/** Whether a term's frequencies put it in a document's own fields (name, description, hints). */
export function ownField(tf: Float64Array): boolean {
  return tf[0] > 0 || tf[1] > 0 || tf[4] > 0;
}

export function termsOf(text: string): string[] {
  const out: string[] = [];
  for (const w of splitWords(text)) {
    const t = normalizeTerm(w);
    if (t !== null) out.push(t);
  }
  return out;
}

/** The name's terms: its words, glued words' halves, and letters before trailing digits. */
function nameTerms(doc: SearchDocument): string[] {
  const known = new Set(
    `${doc.description} ${doc.context ?? ""}`.toLowerCase().split(/[^\p{L}\p{N}]+/u),
  );
  const out: string[] = [];
  for (const w of splitWords(doc.name)) {
    const t = normalizeTerm(w);
    if (t !== null) out.push(t);
    const parts = gluedParts(w, known);
    const letters = lettersOf(w);
    for (const p of letters ? [...parts, letters] : parts) {
      const pt = normalizeTerm(p);
      if (pt !== null && pt !== t) out.push(pt);
    }
  }
  return out;
}

/**
 * Terms per field, kept per document object: every corpus a document is in (the shared one,
 * each namespace's) reads the same terms, so they are computed once.
 */
const TERMS = new WeakMap<SearchDocument, string[][]>();

/** A document's terms, field by field in {@link FIELDS} order. */
export function fieldTerms(doc: SearchDocument): string[][] {
  let terms = TERMS.get(doc);
  if (!terms) TERMS.set(doc, terms = computeFieldTerms(doc));
  return terms;
}

function computeFieldTerms(doc: SearchDocument): string[][] {
  // Snippets have no connector: the word "snippet" stands in its place and beside the name,
  // so a query can ask for them.
  const snippet = doc.kind === "snippet";
  const name = nameTerms(doc);
  if (snippet) name.push("snippet");
  return [
    name,
    termsOf(doc.rankedDescription ?? doc.description),
    termsOf(snippet ? `snippet ${doc.connector ?? ""}` : doc.connector ?? ""),
    termsOf(doc.context ?? ""),
    termsOf(doc.hints ?? ""),
  ];
}
