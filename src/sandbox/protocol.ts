/**
 * The messages between the host and the guest in the child, in one file
 * that both sides import (plain types and names only: the guest may import
 * nothing else).
 *
 * ```
 * child → host   notification  ready        {}
 * host  → child  request       run          RunParams → RunResult
 * child → host   request       tool.call    ToolCallParams → value
 * child → host   notification  log          LogParams
 * child → host   request       step.get     StepParams → { found, value } | { found: false, seq }
 * child → host   request       step.put     StepParams & { seq } → null
 * child → host   request       codemode.search    SearchParams → { items, nextCursor? }
 * child → host   request       codemode.describe  { path } → description
 * child → host   request       codemode.snippet   SnippetParams → SnippetModule
 * child → host   request       codemode.handle    HandleParams → HandleResult
 * child → host   request       codemode.readLogs      ReadLogsParams → LogPage
 * child → host   request       codemode.readRecovery  ReadRecoveryParams → RecoveryPage
 * child → host   request       codemode.readResult    ReadResultParams → ResultPage
 * ```
 *
 * @module
 */

/** Method names on the channel. */
export const METHOD_READY = "ready";
export const METHOD_RUN = "run";
/**
 * Notification (host → guest, before any run): the connectors its runs will have. The guest
 * builds its globals while it waits, so a pooled run does not (about 1 ms); a run's own
 * `connectors` are then not looked at. The host never hands a prepared child to a run of
 * other connectors.
 */
export const METHOD_PREPARE = "prepare";
/** host → child notification: more standard input for a program run ({@link StdinParams}). */
export const METHOD_STDIN = "stdin";
export const METHOD_TOOL_CALL = "tool.call";
export const METHOD_LOG = "log";
export const METHOD_STEP_GET = "step.get";
export const METHOD_STEP_PUT = "step.put";
export const METHOD_SEARCH = "codemode.search";
export const METHOD_DESCRIBE = "codemode.describe";
export const METHOD_SNIPPET = "codemode.snippet";
export const METHOD_HANDLE = "codemode.handle";
export const METHOD_READ_LOGS = "codemode.readLogs";
export const METHOD_READ_RECOVERY = "codemode.readRecovery";
export const METHOD_READ_RESULT = "codemode.readResult";

/** The guest argument naming Pyodide's directory (a Python child's; see sandbox/pyodide.ts). */
export const ARG_PYODIDE = "--cordon-pyodide=";
/** The guest argument naming the Pyodide memory snapshot to restore. */
export const ARG_PYODIDE_SNAPSHOT = "--cordon-pyodide-snapshot=";
/**
 * The guest argument of a child spawned for a run that waits for it: it skips the rehearsal
 * (about 3.4 ms of its boot's CPU, against 0.5 ms it saves that run).
 */
export const ARG_NO_REHEARSAL = "--cordon-no-rehearsal";

/** One connector as the guest needs to know it: a name and method names. */
export interface GuestConnector {
  name: string;
  tools: string[];
}

/** What the host sends to start a run. */
export interface RunParams {
  /** A JavaScript module whose default export is the entry (a function or a value). */
  module: string;
  /** Lines the host added before the user's first line (to map locations back). */
  lineOffset: number;
  input: unknown;
  connectors: GuestConnector[];
  /** The result's encoded size limit; the guest refuses larger results itself. */
  maxResultBytes: number;
  /** The execution's workspace directory, when it has one (the child may read and write it). */
  workspace?: { dir: string };
  /** Set when the run is a program (`runProgram`/`startProgram`): its arguments, environment, input. */
  program?: ProgramRunParams;
  /**
   * The language of `module`, when not TypeScript: `python` sends the user's Python source as
   * `module` (the child was started with Pyodide loaded).
   */
  language?: "python" | "bash";
}

/** A program run's invocation, as the guest needs it. */
export interface ProgramRunParams {
  /** The program's name (`sys.argv[0]`, `$0`). */
  argv0: string;
  /** Its arguments. */
  args: string[];
  /** The caller's environment variables (the guest adds the workspace's). */
  env: Record<string, string>;
  /** Its working directory, relative to the workspace root (`""`: the root). */
  cwd: string;
  /** Standard input given up front. */
  stdin?: string;
  /** More input may come as {@link METHOD_STDIN} notifications until one says `eof`. */
  interactive: boolean;
}

/** More standard input for a running program. */
export interface StdinParams {
  data: string;
  /** The input ends after `data`. */
  eof: boolean;
}

/** What the guest answers when the run ends normally. */
export interface RunResult {
  value: unknown;
}

/** A tool call from the script. */
export interface ToolCallParams {
  connector: string;
  tool: string;
  args: unknown;
}

/** Console levels the guest reports. */
export type LogLevel = "log" | "info" | "warn" | "error" | "debug";

/** A console line from the script. */
export interface LogParams {
  level: LogLevel;
  message: string;
}

/** A `codemode.step(name, fn)` lookup or record. */
export interface StepParams {
  name: string;
  /** Which call of this name in the run (0 for the first), so loops replay in order. */
  occurrence: number;
  value?: unknown;
}

/** `codemode.search(query, options)`. */
export interface SearchParams {
  query: string;
  limit?: number;
  cursor?: string;
}

/** `codemode.readLogs({ logRef, cursor, limit })`: an execution's console lines, paged. */
export interface ReadLogsParams {
  logRef: string;
  cursor?: string;
  limit?: number;
}

/** `codemode.readRecovery({ recoveryRef, cursor, limit })`: a session's history, paged. */
export interface ReadRecoveryParams {
  recoveryRef: string;
  cursor?: string;
  limit?: number;
}

/** `codemode.readResult({ resultRef, cursor, limit })`: a stored result's text, paged. */
export interface ReadResultParams {
  resultRef: string;
  cursor?: string;
  limit?: number;
}

/** `codemode.run(name, input)`: the guest asks for the snippet's module. */
export interface SnippetParams {
  name: string;
  /** Which run of this name in the script (0 for the first), so replays load the same version. */
  occurrence: number;
  input?: unknown;
}

/** A snippet, ready to import: its module and its validated input. */
export interface SnippetModule {
  module: string;
  lineOffset: number;
  input: unknown;
}

/** The methods of a Caplet handle (`caplets.<id>`, also `codemode.connector(id)`), besides `id`. */
export const HANDLE_METHODS = [
  "inspect",
  "check",
  "tools",
  "searchTools",
  "describeTool",
  "callTool",
  "resources",
  "searchResources",
  "resourceTemplates",
  "readResource",
  "prompts",
  "searchPrompts",
  "getPrompt",
  "complete",
] as const;

/** One of {@link HANDLE_METHODS}. */
export type HandleMethod = (typeof HANDLE_METHODS)[number];

/**
 * A handle method call (all but `callTool`, which is a tool call). `args` are the script's, as
 * it passed them (`PageInput`, `CompleteInput`, …): the host checks them.
 */
export interface HandleParams {
  connector: string;
  method: HandleMethod;
  args: unknown[];
}

/**
 * What the host answers every handle method with: expected failures are values. The guest hands
 * the listings' and `inspect()`'s `data` to the script bare, and throws their errors.
 */
export type HandleResult =
  | { ok: true; data: unknown; meta?: Record<string, unknown> }
  | { ok: false; error: { code: string; message: string; details?: unknown } };
