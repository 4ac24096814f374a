/**
 * Search hits a model can choose from without a `describe()` per candidate: each carries its
 * description cut to one line and its call signature, compacted to a bounded length. A default
 * page of ten hits then costs a bounded number of tokens (measured in bench/search_quality.ts).
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import type { SearchHit, SearchPage } from "../../connectors/search.ts";
import { toolSignature } from "../../connectors/typegen/mod.ts";

/**
 * Longest description a hit carries: about one line of a terminal, enough for the sentence
 * that says what the tool does; `describe()` has the rest.
 */
export const MAX_HIT_DESCRIPTION_CHARS = 160;
/**
 * Longest signature a hit carries: the arguments' top-level names and types fit for most
 * tools; nested objects are shown as `{…}` first, then the result type, then trailing fields.
 */
export const MAX_HIT_SIGNATURE_CHARS = 240;

/**
 * The first sentence of `text`'s first paragraph, whitespace collapsed, cut at a word before
 * `max` characters: what the tool does, without the details `describe()` gives.
 */
export function oneLine(text: string, max = MAX_HIT_DESCRIPTION_CHARS): string {
  const paragraph = (text.split(/\r?\n\s*\r?\n|\r?\n(?=\s*[-*#])/)[0] ?? "")
    .replace(/\s+/g, " ").trim();
  const line = paragraph.split(/(?<=[a-z0-9)\]][.!?])\s+(?=[A-Z])/)[0];
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, "")}…`;
}

/** `text` with every `{ … }` nested `depth` or more braces deep written `{…}`. */
function collapseBraces(text: string, depth: number): string {
  let out = "";
  let level = 0;
  for (const ch of text) {
    if (ch === "{") {
      level++;
      if (level < depth) out += ch;
      else if (level === depth) out += "{…}";
    } else if (ch === "}") {
      if (level < depth) out += ch;
      level--;
    } else if (level < depth) out += ch;
  }
  return out;
}

/**
 * A call signature at most `max` characters long: nested object types collapsed to `{…}`,
 * then the result type to `Promise<…>`, then trailing argument fields dropped (`…`).
 *
 * @example
 * ```ts
 * import { compactSignature } from "./search_hits.ts";
 * const sig = "a.b(args: { x: { y: { z: string } }; w: number }): Promise<{ ok: boolean }>";
 * console.assert(compactSignature(sig, 50) === "a.b(args: { x: {…}; w: number }): Promise<…>");
 * ```
 */
export function compactSignature(signature: string, max = MAX_HIT_SIGNATURE_CHARS): string {
  if (signature.length <= max) return signature;
  let sig = collapseBraces(signature, 2);
  if (sig.length <= max) return sig;
  const at = sig.lastIndexOf("): Promise<");
  const tail = at > 0 ? "): Promise<…>" : ")";
  if (at > 0) sig = sig.slice(0, at) + tail;
  if (sig.length <= max) return sig;
  const head = sig.slice(0, max - "; … }".length - tail.length);
  const field = head.lastIndexOf("; ");
  return `${field > 0 ? head.slice(0, field) : head}; … }${tail}`;
}

/** `page` with each hit's description on one line and its signature, when `signatureOf` has one. */
export function withSignatures(
  page: SearchPage,
  signatureOf: (hit: SearchHit) => string | undefined,
): SearchPage {
  return {
    ...page,
    items: page.items.map((hit) => {
      const out: SearchHit = { ...hit, description: oneLine(hit.description) };
      const signature = signatureOf(hit);
      if (signature !== undefined) out.signature = compactSignature(signature);
      return out;
    }),
  };
}

/** Hits' call signatures: a tool's from its schemas (kept per tool), a snippet's run call. */
export class HitSignatures {
  readonly #registry: ConnectorRegistry;
  readonly #byPath = new Map<string, string>();

  constructor(registry: ConnectorRegistry) {
    this.#registry = registry;
  }

  /** The signature of `hit`, or `undefined` for a tool the registry no longer has. */
  of(hit: SearchHit): string | undefined {
    if (hit.kind === "snippet") return `codemode.run(${JSON.stringify(hit.name)}, input)`;
    let sig = this.#byPath.get(hit.path);
    if (sig === undefined) {
      const tool = hit.connector === undefined
        ? undefined
        : this.#registry.tool(hit.connector, hit.name);
      if (!tool) return undefined;
      sig = toolSignature(hit.connector!, tool).signature;
      this.#byPath.set(hit.path, sig);
    }
    return sig;
  }

  /** Tools changed: signatures are computed again. */
  clear(): void {
    this.#byPath.clear();
  }
}
