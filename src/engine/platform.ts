/**
 * The `codemode` platform requests a script makes besides tool calls:
 * `search`, `describe` and `run` (a saved snippet). The host answers them
 * from its catalogue; `run` pins the snippet version it served in the call
 * log, so a replay loads the same code even if the snippet was saved again.
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import {
  type HandleResult,
  METHOD_DESCRIBE,
  METHOD_HANDLE,
  METHOD_SEARCH,
  METHOD_SNIPPET,
  type SnippetModule,
} from "../sandbox/protocol.ts";
import type { CallJournal } from "./journal.ts";

/** What the host offers a script through `codemode`. */
export interface PlatformHost {
  search(query: string, options: { limit?: number; cursor?: string }, namespace: string): unknown;
  describe(path: string, namespace: string): Promise<unknown>;
  /** The snippet's module and validated input; `version` pins one (a replay), else the newest. */
  snippet(name: string, version: number | undefined, input: unknown, namespace: string): Promise<
    SnippetModule & { version: number }
  >;
  /** A uniform connector handle method (`codemode.connector(id).…`). */
  handle(params: unknown): Promise<HandleResult>;
}

/** The platform methods, for dispatch. */
export const PLATFORM_METHODS: ReadonlySet<string> = new Set([
  METHOD_SEARCH,
  METHOD_DESCRIBE,
  METHOD_SNIPPET,
  METHOD_HANDLE,
]);

function text(params: unknown, name: string): string {
  const value = (params as Record<string, unknown> | null)?.[name];
  if (typeof value !== "string") {
    throw new CordonError("invalid_request", `codemode needs "${name}" as a string`);
  }
  return value;
}

/** Answers one platform request for a script running in `namespace`. */
export async function platformRequest(
  host: PlatformHost | undefined,
  journal: CallJournal,
  method: string,
  params: unknown,
  namespace: string,
): Promise<unknown> {
  if (!host) throw new CordonError("invalid_request", `This runtime does not offer ${method}`);
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === METHOD_SEARCH) {
    const query = text(params, "query");
    const options: { limit?: number; cursor?: string } = {};
    if (p.limit !== undefined) options.limit = p.limit as number;
    if (p.cursor !== undefined) options.cursor = p.cursor as string;
    return host.search(query, options, namespace);
  }
  if (method === METHOD_DESCRIBE) return await host.describe(text(params, "path"), namespace);
  if (method === METHOD_HANDLE) return await host.handle(params);
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
