/**
 * What is embedded for each tool and snippet, and the hash that says when to embed it again.
 * A tool's text is its name in words, its path and description, its connector's description
 * and its TypeScript signature (parameter names carry meaning: `owner`, `repo`, `pull_number`);
 * a snippet's is its name and description. The hash covers the model and the text, so a new
 * description, signature or snippet version (or another model) is a new vector, and nothing
 * else is.
 *
 * @module
 */
import type { SearchDocument } from "../../connectors/search.ts";
import type { ConnectorInfo, ToolInfo } from "../../connectors/types.ts";
import { toolSignature } from "../../connectors/typegen/mod.ts";
import { sha256Hex } from "../../hash.ts";

/**
 * Texts are cut here: about 500 tokens, within the input limit of small local models
 * (512 tokens) and far within OpenAI's (8,191); a tool's first lines say what it is.
 */
export const MAX_EMBED_TEXT_CHARS = 2_000;

/** A document as the semantic index keeps it: the search document and how to describe it. */
export interface SemanticDocument {
  /** The document search hits are made of (the same the lexical index holds). */
  doc: SearchDocument;
  /** The text to embed (built when first needed: a signature costs typegen time). */
  text: () => string;
}

/** `list_pull_requests`, `listPullRequests`, `list-pull-requests` → `list pull requests`. */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_\-.\s]+/g, " ")
    .trim()
    .toLowerCase();
}

function cut(text: string): string {
  return text.length <= MAX_EMBED_TEXT_CHARS ? text : text.slice(0, MAX_EMBED_TEXT_CHARS);
}

/** The text embedded for a tool. */
export function toolText(info: ConnectorInfo, tool: ToolInfo): string {
  const lines = [
    `${nameWords(tool.name)} (${info.name}.${tool.name}): ${tool.description}`,
    `${info.name}: ${info.description}`,
    toolSignature(info.name, tool).signature,
  ];
  return cut(lines.join("\n"));
}

/** The text embedded for a snippet. */
export function snippetText(doc: SearchDocument): string {
  return cut(`${nameWords(doc.name)} (saved snippet ${doc.name}): ${doc.description}`);
}

/** The tools' documents with their texts: each search document matched to its tool. */
export function toolDocuments(
  infos: readonly ConnectorInfo[],
  docs: readonly SearchDocument[],
): SemanticDocument[] {
  const tools = new Map<string, { info: ConnectorInfo; tool: ToolInfo }>();
  for (const info of infos) {
    for (const tool of info.tools) {
      tools.set(`${info.name}.${tool.name}`, { info, tool });
    }
  }
  const out: SemanticDocument[] = [];
  for (const doc of docs) {
    const found = tools.get(doc.path);
    if (doc.kind !== "tool" || !found) continue;
    out.push({ doc, text: () => toolText(found.info, found.tool) });
  }
  return out;
}

/** The hash a stored vector is kept under: the model and the exact text. */
export function documentHash(model: string, text: string): Promise<string> {
  return sha256Hex(`${model}\u0000${text}`);
}
