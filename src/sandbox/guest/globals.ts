/**
 * What a script sees of the platform, installed on `globalThis` inside the sandbox child: one
 * frozen object per connector, `codemode` (steps, search, describe, snippets, connector
 * handles, logs, recovery, stored results), `caplets` (the same handles and `caplets.debug`), a `console` that
 * sends its lines to the host, and `workspace`. A failed tool call throws an error made in
 * `tool_errors.ts`; {@link isToolError} tells the guest's entry that an error is one of those.
 *
 * Runs inside the child, like the entry: nothing but `../../rpc/` and the shared protocol.
 *
 * @module
 */
import type { Peer } from "../../rpc/peer.ts";
import {
  type GuestConnector,
  type LogLevel,
  METHOD_DESCRIBE,
  METHOD_LOG,
  METHOD_READ_LOGS,
  METHOD_READ_RECOVERY,
  METHOD_READ_RESULT,
  METHOD_SEARCH,
  METHOD_SNIPPET,
  METHOD_STEP_GET,
  METHOD_STEP_PUT,
  METHOD_TOOL_CALL,
  type RunParams,
  type SnippetModule,
} from "../protocol.ts";
import { makeCaplets } from "./caplets.ts";
import { errorInfoOf, isToolError, toolError } from "./tool_errors.ts";

// Captured when the guest loads (before the entry's first line), before user code can touch
// the intrinsics.
const { defineProperty, freeze, create } = Object;
const inspect = Deno.inspect;

export { isToolError };

function makeConnector(peer: Peer, c: GuestConnector): object {
  const handle = create(null);
  for (const tool of c.tools) {
    const call = async (args?: unknown) => {
      try {
        return await peer.request(METHOD_TOOL_CALL, { connector: c.name, tool, args });
      } catch (err) {
        throw toolError(c.name, tool, errorInfoOf(err));
      }
    };
    defineProperty(call, "name", { value: tool });
    defineProperty(handle, tool, { value: call, enumerable: true });
  }
  return freeze(handle);
}

/** The platform object: `codemode.step` records non-deterministic values once. */
/** Per-execution counters: a session child runs several executions, each counted from zero. */
const occurrences = new Map<string, number>();
const runs = new Map<string, number>();

function makeCodemode(
  peer: Peer,
  connectors: GuestConnector[],
): { codemode: object; caplets: object } {
  const step = async <T>(name: string, fn: () => T | Promise<T>): Promise<T> => {
    if (typeof name !== "string" || name === "" || typeof fn !== "function") {
      throw new TypeError("codemode.step(name, fn) needs a name and a function");
    }
    const occurrence = occurrences.get(name) ?? 0;
    occurrences.set(name, occurrence + 1);
    const got = (await peer.request(METHOD_STEP_GET, { name, occurrence })) as {
      found: boolean;
      value?: T;
      seq?: number;
    };
    if (got.found) return got.value as T;
    const value = await fn();
    await peer.request(METHOD_STEP_PUT, { name, occurrence, value, seq: got.seq });
    return value;
  };
  const search = (query: string, options?: { limit?: number; cursor?: string }) =>
    hostCall(peer, "search", METHOD_SEARCH, {
      query,
      limit: options?.limit,
      cursor: options?.cursor,
    });
  const describe = (path: string) => hostCall(peer, "describe", METHOD_DESCRIBE, { path });
  const run = async (name: string, input?: unknown): Promise<unknown> => {
    const occurrence = runs.get(name) ?? 0;
    runs.set(name, occurrence + 1);
    const got =
      (await hostCall(peer, "run", METHOD_SNIPPET, { name, occurrence, input })) as SnippetModule;
    const mod = await import("data:text/javascript," + encodeURIComponent(got.module));
    const entry = mod.default;
    return typeof entry === "function" ? await entry(got.input) : await entry;
  };
  type Paging = { cursor?: string; limit?: number };
  // Fields copied one by one: only these cross, whatever else the script's object holds.
  const readLogs = (o: { logRef: string } & Paging) =>
    hostCall(peer, "readLogs", METHOD_READ_LOGS, {
      logRef: o?.logRef,
      cursor: o?.cursor,
      limit: o?.limit,
    });
  const readRecovery = (o: { recoveryRef: string } & Paging) =>
    hostCall(peer, "readRecovery", METHOD_READ_RECOVERY, {
      recoveryRef: o?.recoveryRef,
      cursor: o?.cursor,
      limit: o?.limit,
    });
  const readResult = (o: { resultRef: string } & Paging) =>
    hostCall(peer, "readResult", METHOD_READ_RESULT, {
      resultRef: o?.resultRef,
      cursor: o?.cursor,
      limit: o?.limit,
    });
  const { caplets, connector } = makeCaplets(peer, connectors.map((c) => c.name), {
    readLogs,
    readRecovery,
  });
  return {
    codemode: freeze({
      step,
      search,
      describe,
      run,
      connector,
      readLogs,
      readRecovery,
      readResult,
    }),
    caplets,
  };
}

/** A platform request whose failure reads like a failed tool call (`codemode.<what>: …`). */
async function hostCall(
  peer: Peer,
  what: string,
  method: string,
  params: unknown,
): Promise<unknown> {
  try {
    return await peer.request(method, params);
  } catch (err) {
    throw toolError("codemode", what, errorInfoOf(err));
  }
}

/** Globals are installed by `prepare` or the first run; a session's later runs reuse them. */
let installed = false;
/** The connectors whose globals are installed. */
let installedList: readonly GuestConnector[] = [];

/** The connectors whose globals this child has (empty before `prepare` or the first run). */
export function installedConnectors(): readonly GuestConnector[] {
  return installedList;
}

/** Installs the connectors' globals ahead of the first run (the host's `prepare`). */
export function prepareConnectors(peer: Peer, connectors: GuestConnector[]): void {
  if (installed || !Array.isArray(connectors)) return;
  installGlobals(peer, connectors);
  installed = true;
}

/**
 * Readies `globalThis` for one execution: the connectors, `codemode` and `console` on the
 * first run, the step and snippet counters from zero, and this run's `workspace`.
 */
export function prepareGlobals(peer: Peer, params: RunParams): void {
  if (!installed) {
    installGlobals(peer, params.connectors);
    installed = true;
  }
  occurrences.clear();
  runs.clear();
  defineProperty(globalThis, "workspace", {
    value: params.workspace ? makeWorkspace(params.workspace.dir) : undefined,
    writable: false,
    configurable: true,
    enumerable: false,
  });
}

function installGlobals(peer: Peer, connectors: GuestConnector[]): void {
  installedList = connectors.map((c) => ({ name: c.name, tools: [...c.tools] }));
  for (const c of connectors) {
    defineProperty(globalThis, c.name, {
      value: makeConnector(peer, c),
      writable: false,
      configurable: false,
      enumerable: false,
    });
  }
  const { codemode, caplets } = makeCodemode(peer, connectors);
  for (const [name, value] of [["codemode", codemode], ["caplets", caplets]] as const) {
    defineProperty(globalThis, name, {
      value,
      writable: false,
      configurable: false,
      enumerable: false,
    });
  }
  const send = (level: LogLevel) => (...args: unknown[]) => {
    const message = args.map((a) =>
      typeof a === "string" ? a : inspect(a, { depth: 4, colors: false })
    ).join(" ");
    peer.notify(METHOD_LOG, { level, message });
  };
  const captured = {
    ...console,
    log: send("log"),
    info: send("info"),
    warn: send("warn"),
    error: send("error"),
    debug: send("debug"),
    trace: send("debug"),
  };
  defineProperty(globalThis, "console", { value: captured, writable: true, configurable: true });
}

/**
 * `workspace`: the directory this execution may read and write, with small helpers. Paths are
 * relative to it; the child's permissions refuse anything outside, whatever the path says.
 */
function makeWorkspace(dir: string): object {
  const path = (rel = ".") => {
    const p = String(rel);
    if (p.startsWith("/") || p.split("/").includes("..")) {
      throw new TypeError(`workspace.path("${p}"): paths are relative and stay in the workspace`);
    }
    return p === "." || p === "" ? dir : `${dir}/${p}`;
  };
  return freeze({
    dir,
    path,
    readText: (rel: string) => Deno.readTextFile(path(rel)),
    writeText: async (rel: string, text: string) => {
      const full = path(rel);
      const parent = full.slice(0, full.lastIndexOf("/"));
      if (parent.length > dir.length) await Deno.mkdir(parent, { recursive: true });
      await Deno.writeTextFile(full, String(text));
    },
    readBytes: (rel: string) => Deno.readFile(path(rel)),
    writeBytes: (rel: string, bytes: Uint8Array) => Deno.writeFile(path(rel), bytes),
    list: async (rel = ".") => {
      const names: string[] = [];
      for await (const e of Deno.readDir(path(rel))) {
        names.push(e.isDirectory ? `${e.name}/` : e.name);
      }
      return names.sort();
    },
  });
}
