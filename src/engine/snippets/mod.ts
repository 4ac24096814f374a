/**
 * Snippets: a completed execution's code saved under a name, versioned,
 * with its input schema, searchable and runnable by name.
 *
 * @module
 */
export { Snippets } from "./snippets.ts";
export { MAX_SNIPPET_DESCRIPTION_CHARS, SNIPPET_NAME } from "./rules.ts";
export type {
  PreparedSnippet,
  SaveSnippetOptions,
  Snippet,
  SnippetDetails,
  SnippetInfo,
} from "./types.ts";
