/**
 * Snippets as callers see them: one version's facts, one snippet with its code
 * and versions, what saving one takes, and a snippet cleared to run.
 *
 * @module
 */
import type { JsonSchema } from "../../connectors/types.ts";
import type { SnippetRow } from "../../store/snippets.ts";
import type { TypeDiagnostic } from "../typecheck/check.ts";

/** A snippet as callers see it. */
export interface SnippetInfo {
  /** The name it runs by: a letter, then letters, digits, `_` or `-` (at most 64). */
  name: string;
  /** This version's number, from 1; each save under the name adds one. */
  version: number;
  /** What it does, for a model choosing by search. */
  description: string;
  /** The JSON Schema its input must match, when it was saved with one. */
  inputSchema?: JsonSchema;
  /** The connectors its code uses; it does not run without them. */
  connectors: string[];
  /** True when, checked again after the tool declarations changed, it no longer type-checks. */
  stale: boolean;
  /** When this version was saved, in ms since the epoch. */
  createdAt: number;
  /** The completed execution its code was saved from. */
  sourceExecutionId?: string;
}

/** One snippet with its code and the versions kept. */
export interface SnippetDetails extends SnippetInfo {
  /** The code of this (the newest) version. */
  code: string;
  /** Every version kept, newest first. */
  versions: number[];
}

/** What `saveSnippet()` takes. */
export interface SaveSnippetOptions {
  /** The completed execution whose code is saved; the snippet goes in its namespace. */
  executionId: string;
  /** What it does, for a model choosing by search; at most 2,000 characters. */
  description: string;
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
export function toSnippetInfo(r: SnippetRow): SnippetInfo {
  const info: SnippetInfo = {
    name: r.name,
    version: r.version,
    description: r.description,
    connectors: r.connectors,
    stale: r.stale,
    createdAt: r.createdAt,
  };
  if (r.inputSchema) info.inputSchema = r.inputSchema;
  if (r.sourceExecutionId) info.sourceExecutionId = r.sourceExecutionId;
  return info;
}
