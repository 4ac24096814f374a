/**
 * Snippets as callers see them: one version's facts, one snippet with its code
 * and versions, what saving one takes, and a snippet cleared to run.
 *
 * @module
 */
import type { JsonSchema } from "../../connectors/types.ts";
import type { SnippetRow } from "../../store/snippets.ts";
import type { TypeDiagnostic } from "../typecheck/check.ts";

/**
 * A saved snippet, as `saveSnippet()` returns it and `snippets()` lists it: the documented
 * `Snippet` (`name`, `description`, `code`, `savedAt`, `inputSchema`, `connectors`) plus
 * Cordon's version and staleness.
 */
export interface Snippet {
  /** The name it runs by: a letter, then letters, digits, `_` or `-` (at most 64). */
  name: string;
  /** What it does, for a model choosing by search (empty when saved without one). */
  description: string;
  /** The saved script source: the execution's code as it was sent. */
  code: string;
  /** When this version was saved, in ms since the epoch. */
  savedAt: number;
  /** The JSON Schema its input must match, when it was saved with one. */
  inputSchema?: JsonSchema;
  /**
   * The connectors its code uses (called in the source run, or named in the code); it does
   * not run without them.
   */
  connectors: string[];
  /** This version's number, from 1; each save under the name adds one. */
  version: number;
  /** True when, checked again after the tool declarations changed, it no longer type-checks. */
  stale: boolean;
  /** When this version was saved, in ms since the epoch (the same as `savedAt`). */
  createdAt: number;
  /** The execution its code was saved from. */
  sourceExecutionId?: string;
}

/** Cordon's earlier name for {@link Snippet}. */
export type SnippetInfo = Snippet;

/** One snippet with the versions kept. */
export interface SnippetDetails extends Snippet {
  /** Every version kept, newest first. */
  versions: number[];
}

/** What `saveSnippet()` takes; every field is optional. */
export interface SaveSnippetOptions {
  /**
   * The execution whose code is saved; the snippet goes in its namespace. Defaults to the
   * current execution: the one on whose behalf the calling code runs (a connector tool's
   * `execute`, a listener told of its calls). A past run must have completed.
   */
  executionId?: string;
  /** What it does, for a model choosing by search; at most 2,000 characters. */
  description?: string;
  /** A JSON Schema its input must match (at most 65,536 characters); it also types `input`. */
  inputSchema?: JsonSchema;
}

/** A snippet cleared to run, with its validated input. */
export interface PreparedSnippet {
  row: SnippetRow;
  input: unknown;
  diagnostics: TypeDiagnostic[];
}

/** What callers see of a stored snippet version. */
export function toSnippetInfo(r: SnippetRow): Snippet {
  const info: Snippet = {
    name: r.name,
    description: r.description,
    code: r.code,
    savedAt: r.createdAt,
    connectors: r.connectors,
    version: r.version,
    stale: r.stale,
    createdAt: r.createdAt,
  };
  if (r.inputSchema) info.inputSchema = r.inputSchema;
  if (r.sourceExecutionId) info.sourceExecutionId = r.sourceExecutionId;
  return info;
}
