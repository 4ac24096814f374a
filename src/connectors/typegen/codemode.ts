/**
 * The declaration of the `codemode` global: the platform API code written
 * by a model can call besides the connectors.
 *
 * @module
 */

/**
 * TypeScript declarations of `codemode` and the types its methods return,
 * as the model reads them and its code is checked against them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CODEMODE_DECLARATION } from "./codemode.ts";
 * assert.ok(CODEMODE_DECLARATION.includes("declare const codemode: {"));
 * ```
 */
export const CODEMODE_DECLARATION: string =
  `/** One match of codemode.search(): a connector's tool or a saved snippet. */
interface CodemodeSearchHit {
  kind: "tool" | "snippet";
  /** What to pass to codemode.describe(): "connector.tool" or "snippet:name". */
  path: string;
  /** The tool's or snippet's own name. */
  name: string;
  /** The connector a tool belongs to (absent for snippets). */
  connector?: string;
  description: string;
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
/** What every connector handle method returns: failures are values, never thrown. */
type CodemodeResult<T> =
  | { ok: true; data: T; meta?: Record<string, unknown> }
  | { ok: false; error: { code: string; message: string; details?: unknown } };
/** One page of a listing; pass nextCursor back for the next one. */
interface CodemodePage<T> {
  items: T[];
  nextCursor?: string;
  truncated?: boolean;
}
/** The same methods for every connector: codemode.connector("name"). */
interface CodemodeConnector {
  /** Name, description, tool count and which of these methods the connector supports. */
  inspect(): Promise<CodemodeResult<{ id: string; description: string; tools: number; supports: string[] }>>;
  /** Whether it can serve calls now (backend up, auth valid), with problems as values. */
  check(): Promise<CodemodeResult<{ ready: boolean; problems?: { code: string; message: string }[]; info?: Record<string, unknown> }>>;
  tools(cursor?: string): Promise<CodemodeResult<CodemodePage<{ name: string; description: string }>>>;
  searchTools(query: string, options?: { limit?: number; cursor?: string }): Promise<CodemodeResult<CodemodePage<{ name: string; description: string; score: number }>>>;
  describeTool(name: string): Promise<CodemodeResult<CodemodeDescription>>;
  /** Calls a tool by name (the same call as connector.tool(args), as a value). */
  callTool(name: string, args?: unknown): Promise<CodemodeResult<unknown>>;
  resources(cursor?: string): Promise<CodemodeResult<CodemodePage<{ uri: string; name: string; description?: string; mimeType?: string }>>>;
  searchResources(query: string): Promise<CodemodeResult<{ items: { uri: string; name: string; description?: string }[]; truncated: boolean }>>;
  resourceTemplates(cursor?: string): Promise<CodemodeResult<CodemodePage<{ uriTemplate: string; name: string; description?: string }>>>;
  /** { contents: [{ uri, mimeType?, text? | blob? }] } */
  readResource(uri: string): Promise<CodemodeResult<{ contents: { uri: string; mimeType?: string; text?: string; blob?: string }[] }>>;
  prompts(cursor?: string): Promise<CodemodeResult<CodemodePage<{ name: string; description?: string; arguments?: { name: string; description?: string; required?: boolean }[] }>>>;
  searchPrompts(query: string): Promise<CodemodeResult<{ items: { name: string; description?: string }[]; truncated: boolean }>>;
  getPrompt(name: string, args?: Record<string, string>): Promise<CodemodeResult<{ description?: string; messages: { role: string; content: unknown }[] }>>;
  complete(ref: { type: "prompt"; name: string } | { type: "resource"; uri: string }, argument: { name: string; value: string }): Promise<CodemodeResult<{ values: string[]; total?: number; hasMore?: boolean }>>;
}
/** One page of an execution's console lines, from codemode.readLogs(). */
interface CodemodeLogPage {
  /** The execution the lines belong to. */
  executionId: string;
  namespace: string;
  /** Lines in the order written; atMs is milliseconds since that execution started. */
  items: { seq: number; level: "log" | "info" | "warn" | "error" | "debug"; message: string; atMs: number }[];
  /** Pass back as cursor for the next page. */
  nextCursor?: string;
  /** The lines were deleted by log retention; the page is empty. */
  expired?: true;
}
/** One execution in a session's history, from codemode.readRecovery(). */
interface CodemodeRecoveryEntry {
  /** Its place in the session, from 1. */
  seq: number;
  executionId: string;
  /** The code, redacted; cut when codeTruncated. */
  code: string;
  codeTruncated: boolean;
  /** "completed", "error" or "rejected". */
  status: string;
  error?: { code: string; message: string };
  diagnostics: { code: string; message: string; line?: number }[];
  declarationHash: string;
  /** Whether running the code again to rebuild state is safe, judged from what it did. */
  classification: "setup_like" | "side_effecting" | "unknown";
  /** Top-level names it declared. */
  declared: string[];
  /** Tool calls it made. */
  toolCalls: number;
  /** When it ended (ms since the epoch). */
  createdAt: number;
}
/** One page of a session's history, oldest first. */
interface CodemodeRecoveryPage {
  sessionId: string;
  namespace: string;
  /** "active" while the session lives; "ended" once closed, expired or lost. */
  status: "active" | "ended";
  /** Why it ended: "closed", "expired", "timeout", "crashed", … */
  endReason?: string;
  entries: CodemodeRecoveryEntry[];
  /** Pass back as cursor for the next page. */
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
   * A uniform handle on any connector: tools, resources, prompts and
   * completions, every method returning { ok, data } or { ok: false, error }.
   * @param id The connector's name, e.g. "github".
   */
  connector(id: string): CodemodeConnector;
  /**
   * Reads the console lines of an execution of this namespace, paged
   * (limit 1–500, default 50). Throws code "not_found" for an unknown ref.
   * @param options.logRef The logRef an execution's details carry.
   */
  readLogs(options: { logRef: string; cursor?: string; limit?: number }): Promise<CodemodeLogPage>;
  /**
   * Reads a session's history of this namespace, paged (limit 1–500,
   * default 50): each execution's code, outcome and declared names.
   * Throws code "not_found" for an unknown ref.
   * @param options.recoveryRef The recoveryRef returned when the session was created.
   */
  readRecovery(options: { recoveryRef: string; cursor?: string; limit?: number }): Promise<CodemodeRecoveryPage>;
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
