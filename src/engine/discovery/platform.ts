/**
 * The `codemode` platform requests a script makes besides tool calls:
 * `search`, `describe`, `run` (a saved snippet), connector handles, and
 * `readLogs`/`readRecovery`/`readResult`. The host answers them from its catalogue and
 * store; `run` pins the snippet version it served in the call log, so a
 * replay loads the same code even if the snippet was saved again. The
 * readers are not journaled: a replay reads the store as it is then.
 *
 * The readers answer in the Code Mode API's shapes (`caplets.debug` is the
 * same pair of functions): `readLogs` a `ReadLogsResult` of
 * `CodeModeLogEntry`s with ISO timestamps, `readRecovery` a
 * `ReadCodeModeRecoveryResult` (the {@link RecoveryPage}). `readResult` answers a
 * `ResultPage` of a stored result (or any text artifact) of the script's own namespace.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import {
  type HandleResult,
  type LogLevel,
  METHOD_DESCRIBE,
  METHOD_HANDLE,
  METHOD_READ_LOGS,
  METHOD_READ_RECOVERY,
  METHOD_READ_RESULT,
  METHOD_SEARCH,
  METHOD_SNIPPET,
  type ReadLogsParams,
  type ReadRecoveryParams,
  type ReadResultParams,
  type SnippetModule,
} from "../../sandbox/protocol.ts";
import type { RecoveryPage } from "../sessions/api.ts";
import type { ResultPage } from "../artifacts/pages.ts";
import type { CallJournal } from "../execution/journal.ts";
import type { ScriptRequests } from "../execution/pass.ts";
import type { LogPage } from "../execution/records_types.ts";

/** One console line as a script reads it (the Code Mode API's `CodeModeLogEntry`). */
export interface CodeModeLogEntry {
  /** The console method that wrote it. */
  level: LogLevel;
  /** The line, redacted. */
  message: string;
  /** When it was written, ISO 8601. */
  timestamp: string;
}

/** A page of an execution's console lines as a script reads it (`ReadLogsResult`). */
export interface ReadLogsResult {
  /** The lines in the order written. */
  entries: CodeModeLogEntry[];
  /** Pass back as `cursor` for the next page. */
  nextCursor?: string;
  /** The lines were deleted by log retention; `entries` is empty. */
  expired?: true;
}

/** The host's page of stored lines as a script reads it. */
export function toReadLogsResult(page: LogPage): ReadLogsResult {
  const out: ReadLogsResult = {
    entries: page.items.map((l) => ({
      level: l.level,
      message: l.message,
      timestamp: new Date(page.startedAt + l.atMs).toISOString(),
    })),
  };
  if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
  if (page.expired) out.expired = true;
  return out;
}

/** What the host offers a script through `codemode`. */
export interface PlatformHost {
  search(query: string, options: { limit?: number; cursor?: string }, namespace: string): unknown;
  describe(path: string, namespace: string): Promise<unknown>;
  /** The snippet's module and validated input; `version` pins one (a replay), else the newest. */
  snippet(name: string, version: number | undefined, input: unknown, namespace: string): Promise<
    SnippetModule & { version: number }
  >;
  /**
   * A uniform connector handle method (`codemode.connector(id).…`); `searchTools` and
   * `describeTool` answer as `namespace` sees the catalogue, and one that reaches the
   * connector's backend waits for its concurrency permit, and stops waiting on `signal`.
   */
  handle(params: unknown, namespace: string, signal?: AbortSignal): Promise<HandleResult>;
  /** An execution's log lines by `logRef`; another namespace's read as `not_found`. */
  readLogs(params: ReadLogsParams, namespace: string): Promise<LogPage>;
  /** A session's recovery history by `recoveryRef`; another namespace's read as `not_found`. */
  readRecovery(params: ReadRecoveryParams, namespace: string): Promise<RecoveryPage>;
  /** A page of a stored result by `resultRef`; another namespace's reads as `not_found`. */
  readResult(params: ReadResultParams, namespace: string): Promise<ResultPage>;
}

/** The `codemode` platform as the engine's handler of a script's other requests. */
export function codemodeRequests(host: PlatformHost): ScriptRequests {
  return {
    handles: (method) => PLATFORM_METHODS.has(method),
    answer: (method, params, run) =>
      platformRequest(host, run.journal, method, params, run.namespace, run.signal),
  };
}

/** The platform methods, for dispatch. */
export const PLATFORM_METHODS: ReadonlySet<string> = new Set([
  METHOD_SEARCH,
  METHOD_DESCRIBE,
  METHOD_SNIPPET,
  METHOD_HANDLE,
  METHOD_READ_LOGS,
  METHOD_READ_RECOVERY,
  METHOD_READ_RESULT,
]);

function text(params: unknown, name: string): string {
  const value = (params as Record<string, unknown> | null)?.[name];
  if (typeof value !== "string") {
    throw new CordonError("invalid_request", `codemode needs "${name}" as a string`);
  }
  return value;
}

/**
 * `{ <ref>, cursor?, limit? }` from a script, copied field by field so nothing else reaches the
 * reader; the reader checks the ref and the limit's range.
 */
function pageRequest(method: string, params: unknown, ref: string): Record<string, unknown> {
  const p = params as Record<string, unknown> | null;
  const what = method.replace("codemode.", "");
  if (typeof p !== "object" || p === null || Array.isArray(p)) {
    throw new CordonError("invalid_request", `${what}() needs { ${ref}, cursor?, limit? }`);
  }
  if (p.cursor !== undefined && typeof p.cursor !== "string") {
    throw new CordonError("invalid_request", `${what}() needs cursor as a string`);
  }
  if (p.limit !== undefined && typeof p.limit !== "number") {
    throw new CordonError("invalid_request", `${what}() needs limit as a number`);
  }
  const out: Record<string, unknown> = { [ref]: p[ref] };
  if (p.cursor !== undefined) out.cursor = p.cursor;
  if (p.limit !== undefined) out.limit = p.limit;
  return out;
}

/** Answers one platform request for a script running in `namespace`. */
export async function platformRequest(
  host: PlatformHost | undefined,
  journal: CallJournal,
  method: string,
  params: unknown,
  namespace: string,
  signal?: AbortSignal,
): Promise<unknown> {
  if (!host) throw new CordonError("invalid_request", `This runtime does not offer ${method}`);
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === METHOD_SEARCH) {
    const query = text(params, "query");
    const options: { limit?: number; cursor?: string } = {};
    if (p.limit !== undefined) options.limit = p.limit as number;
    if (p.cursor !== undefined) options.cursor = p.cursor as string;
    return await host.search(query, options, namespace);
  }
  if (method === METHOD_DESCRIBE) return await host.describe(text(params, "path"), namespace);
  if (method === METHOD_HANDLE) return await host.handle(params, namespace, signal);
  if (method === METHOD_READ_LOGS) {
    const request = pageRequest(method, params, "logRef") as unknown as ReadLogsParams;
    return toReadLogsResult(await host.readLogs(request, namespace));
  }
  if (method === METHOD_READ_RECOVERY) {
    const request = pageRequest(method, params, "recoveryRef") as unknown as ReadRecoveryParams;
    return await host.readRecovery(request, namespace);
  }
  if (method === METHOD_READ_RESULT) {
    const request = pageRequest(method, params, "resultRef") as unknown as ReadResultParams;
    return await host.readResult(request, namespace);
  }
  const name = text(params, "name");
  const occurrence = p.occurrence;
  if (!Number.isSafeInteger(occurrence) || (occurrence as number) < 0) {
    throw new CordonError("invalid_request", "codemode.run needs an occurrence");
  }
  // The version served is recorded like a step, so a replay runs the same code.
  const stepName = `codemode.run:${name}`;
  const pinned = journal.step(stepName, occurrence as number);
  if (pinned.found) {
    const version = (pinned.value as { version?: unknown })?.version;
    const got = await host.snippet(
      name,
      typeof version === "number" ? version : undefined,
      p.input,
      namespace,
    );
    return { module: got.module, lineOffset: got.lineOffset, input: got.input };
  }
  const got = await host.snippet(name, undefined, p.input, namespace);
  await journal.recordStep(pinned.seq, stepName, occurrence as number, { version: got.version });
  return { module: got.module, lineOffset: got.lineOffset, input: got.input };
}
