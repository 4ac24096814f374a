/**
 * Snippets: a completed execution's code saved under a name, versioned,
 * with its input schema, searchable and runnable by name.
 *
 * @module
 */
export {
  MAX_SNIPPET_DESCRIPTION_CHARS,
  type PreparedSnippet,
  type SaveSnippetOptions,
  SNIPPET_NAME,
  type SnippetDetails,
  type SnippetInfo,
  Snippets,
} from "./snippets.ts";
