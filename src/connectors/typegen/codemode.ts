/**
 * The declaration of the `codemode` global: the platform API code written
 * by a model can call besides the connectors.
 *
 * @module
 */
import { CAPLETS_TYPES } from "./caplets.ts";

/**
 * TypeScript declarations of `codemode`, the documented Caplets types (`caplets` itself is
 * declared per connector list by `declareCaplets`) and the types their methods return,
 * as the model reads them and its code is checked against them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CODEMODE_DECLARATION } from "./codemode.ts";
 * assert.ok(CODEMODE_DECLARATION.includes("declare const codemode: {"));
 * ```
 */
export const CODEMODE_DECLARATION: string = CAPLETS_TYPES +
  `/** One match of codemode.search(): a connector's tool or a saved snippet. */
interface CodemodeSearchHit {
  kind: "tool" | "snippet";
  /** What to pass to codemode.describe(): "connector.tool" or "snippet:name". */
  path: string;
  /** The tool's or snippet's own name. */
  name: string;
  /** The connector a tool belongs to (absent for snippets). */
  connector?: string;
  /** What it does, on one line (codemode.describe() has all of it). */
  description: string;
  /** How to call it, compact, e.g. math.add(args: { a: number; b: number }): Promise<number> */
  signature?: string;
  /** Relevance to the query; higher is better. */
  score: number;
}
/** What codemode.describe() says about a tool or a snippet. */
interface CodemodeDescription {
  kind: "tool" | "snippet";
  /** "connector.tool" or "snippet:name". */
  path: string;
  description: string;
  /** One-line call signature, e.g. math.add(args: { a: number; b: number }): Promise<number> */
  signature: string;
  /** The argument type, as TypeScript. */
  input: string;
  /** The result type, as TypeScript ("unknown" when the tool does not say). */
  output: string;
  /** Example calls. */
  examples: string[];
  /** The result type seen in earlier calls, for tools whose output type is "unknown". */
  observedShape?: string;
  /** How the tool behaves: readOnly, destructive, requiresApproval, … */
  annotations?: Record<string, unknown>;
  /** A snippet's saved source. */
  code?: string;
}
/** One page of a stored result's JSON text: what codemode.readResult() returns. */
interface CodemodeResultPage {
  /** The stored result read, "results/<executionId>.json@<version>". */
  resultRef: string;
  mimeType: string;
  /** Where this page starts, in bytes. */
  offset: number;
  /** This page's text: the pages in order concatenate to the whole JSON text. */
  text: string;
  totalBytes: number;
  /** Pass back as cursor for the next page; absent on the last one. */
  nextCursor?: string;
}
/** The platform API, beside the connectors. */
declare const codemode: {
  /**
   * Runs fn once and records its result under name. When this execution is
   * replayed, the recorded value is returned and fn does not run again: wrap
   * anything non-deterministic (time, randomness, ids) in a step.
   * @param name A name unique within this execution.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /**
   * Finds tools and snippets by what they do. Pass nextCursor back as
   * options.cursor for the next page.
   * @param query Words describing the task, e.g. "read a file".
   */
  search(
    query: string,
    options?: { limit?: number; cursor?: string },
  ): Promise<{ items: CodemodeSearchHit[]; nextCursor?: string }>;
  /**
   * The full description of one tool or snippet: its types, signature and examples.
   * @param path "connector.tool", or a snippet's name ("name" or "snippet:name").
   */
  describe(path: string): Promise<CodemodeDescription>;
  /**
   * Runs a saved snippet with input and returns its result. Its tool calls
   * join this execution's log (and its replay).
   * @param name The snippet's name, without "snippet:".
   */
  run<T = unknown>(name: string, input?: unknown): Promise<T>;
  /**
   * The connector's Caplet handle: the same object as caplets.<id>.
   * @param id The connector's name, e.g. "github".
   */
  connector<Id extends string>(id: Id): CapletHandle<Id>;
  /** caplets.debug.readLogs: an execution's console lines, paged (limit 1–500). */
  readLogs(input: ReadLogsInput): Promise<ReadLogsResult>;
  /** caplets.debug.readRecovery: a session's history, paged (limit 1–500). */
  readRecovery(input: ReadCodeModeRecoveryInput): Promise<ReadCodeModeRecoveryResult>;
  /**
   * A page of a result too large to return inline (an earlier run's result.resultRef): limit
   * in bytes (default 16000, at most 1 MiB). JSON.parse the pages' text joined for the value.
   */
  readResult(
    input: { resultRef: string; cursor?: string; limit?: number },
  ): Promise<CodemodeResultPage>;
};
/**
 * The execution's workspace: the one directory it may read and write. Present only when the
 * execution was given a workspace (undefined otherwise). Paths are relative to it.
 */
declare const workspace: {
  readonly dir: string;
  /** The absolute path of a relative one; refuses paths that leave the workspace. */
  path(rel?: string): string;
  readText(rel: string): Promise<string>;
  /** Writes a file, making its directories. */
  writeText(rel: string, text: string): Promise<void>;
  readBytes(rel: string): Promise<Uint8Array>;
  writeBytes(rel: string, bytes: Uint8Array): Promise<void>;
  /** Names in a directory, sorted; directories end with "/". */
  list(rel?: string): Promise<string[]>;
};
`;
