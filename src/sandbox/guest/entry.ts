/**
 * The trusted entry of every sandbox child. It is the only module Deno
 * loads from disk; the user's code arrives over stdin and is imported from
 * a `data:` URL, so every import inside it is permission-checked.
 *
 * This file and what it imports run inside the child: no npm, no remote
 * imports, nothing but `../../rpc/` and the shared protocol.
 *
 * @module
 */
import { CordonError, type ErrorInfo, isErrorCode } from "../../errors.ts";
import { CodecError, encodeValue } from "../../rpc/codec.ts";
import { FrameWriter, LineSplitter, readFrames } from "../../rpc/framing.ts";
import { Peer } from "../../rpc/peer.ts";
import {
  type GuestConnector,
  HANDLE_METHODS,
  type LogLevel,
  METHOD_DESCRIBE,
  METHOD_HANDLE,
  METHOD_LOG,
  METHOD_READ_LOGS,
  METHOD_READ_RECOVERY,
  METHOD_READY,
  METHOD_RUN,
  METHOD_SEARCH,
  METHOD_SNIPPET,
  METHOD_STEP_GET,
  METHOD_STEP_PUT,
  METHOD_TOOL_CALL,
  type RunParams,
  type RunResult,
  type SnippetModule,
} from "../protocol.ts";
import { concealHost } from "./conceal.ts";

// Before anything else runs: no user code may see the host's paths.
concealHost();

// Captured before user code can touch the intrinsics.
const { defineProperty, freeze, create } = Object;
const weakSetHas = WeakSet.prototype.has;
const weakSetAdd = WeakSet.prototype.add;
const inspect = Deno.inspect;
const stdout = Deno.stdout;
const stdin = Deno.stdin;

// The Cache API writes to the host's disk (the host also blocks its directory, which covers
// Workers); the main script does not see it at all.
for (const name of ["caches", "CacheStorage", "Cache"]) {
  delete (globalThis as Record<string, unknown>)[name];
}

/** Host frames are trusted, but a bound keeps a bug from eating memory. */
const MAX_HOST_FRAME_BYTES = 256 * 1024 * 1024;

/** Errors this guest created for failed tool calls (their code is the host's). */
const toolErrors = new WeakSet<object>();

const writer = new FrameWriter((bytes) => Promise.resolve(writeAll(bytes)));

/**
 * Frames are written synchronously, in the microtask that produced them: a
 * result is on the pipe before any timer the script left behind can run, so
 * a late write of the script's own cannot overtake it. A full pipe blocks
 * this child only, which is the back-pressure the host wants anyway.
 */
function writeAll(bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += stdout.writeSync(bytes.subarray(offset));
}

const peer = new Peer({
  send: (json) => writer.send(json),
  onRequest: (method, params) => {
    if (method === METHOD_RUN) return run(params as RunParams);
    throw new CordonError("invalid_request", `The guest does not handle ${method}`);
  },
});

function toolError(connector: string, tool: string, info: ErrorInfo): Error {
  const err = new Error(`${connector}.${tool}: ${info.message}`) as Error & {
    code: string;
    details?: unknown;
  };
  err.code = info.code;
  if (info.details) err.details = info.details;
  Reflect.apply(weakSetAdd, toolErrors, [err]);
  return err;
}

function makeConnector(c: GuestConnector): object {
  const handle = create(null);
  for (const tool of c.tools) {
    const call = async (args?: unknown) => {
      try {
        return await peer.request(METHOD_TOOL_CALL, { connector: c.name, tool, args });
      } catch (err) {
        const info = err instanceof CordonError
          ? err.toInfo()
          : { code: "tool_error" as const, message: String(err) };
        throw toolError(c.name, tool, info);
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

function makeCodemode(): object {
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
    hostCall("search", METHOD_SEARCH, { query, limit: options?.limit, cursor: options?.cursor });
  const describe = (path: string) => hostCall("describe", METHOD_DESCRIBE, { path });
  const run = async (name: string, input?: unknown): Promise<unknown> => {
    const occurrence = runs.get(name) ?? 0;
    runs.set(name, occurrence + 1);
    const got =
      (await hostCall("run", METHOD_SNIPPET, { name, occurrence, input })) as SnippetModule;
    const mod = await import("data:text/javascript," + encodeURIComponent(got.module));
    const entry = mod.default;
    return typeof entry === "function" ? await entry(got.input) : await entry;
  };
  const connector = (id: string) => makeHandle(String(id));
  type Paging = { cursor?: string; limit?: number };
  // Fields copied one by one: only these cross, whatever else the script's object holds.
  const readLogs = (o: { logRef: string } & Paging) =>
    hostCall("readLogs", METHOD_READ_LOGS, {
      logRef: o?.logRef,
      cursor: o?.cursor,
      limit: o?.limit,
    });
  const readRecovery = (o: { recoveryRef: string } & Paging) =>
    hostCall("readRecovery", METHOD_READ_RECOVERY, {
      recoveryRef: o?.recoveryRef,
      cursor: o?.cursor,
      limit: o?.limit,
    });
  return freeze({ step, search, describe, run, connector, readLogs, readRecovery });
}

/**
 * `codemode.connector(id)`: the same methods for every connector. Each returns
 * `{ ok: true, data } | { ok: false, error }` and never throws for an expected failure.
 * `callTool` is a real tool call (authorized, journaled, approvals apply).
 */
function makeHandle(id: string): object {
  const handle = create(null);
  for (const method of HANDLE_METHODS) {
    const fn = async (...args: unknown[]) => {
      try {
        if (method === "callTool") {
          const [tool, toolArgs] = args;
          const data = await peer.request(METHOD_TOOL_CALL, {
            connector: id,
            tool: String(tool),
            args: toolArgs,
          });
          return { ok: true, data };
        }
        return await peer.request(METHOD_HANDLE, { connector: id, method, args });
      } catch (err) {
        const info = err instanceof CordonError
          ? err.toInfo()
          : { code: "tool_error" as const, message: String(err) };
        const error: Record<string, unknown> = { code: info.code, message: info.message };
        if (info.details) error.details = info.details;
        return { ok: false, error };
      }
    };
    defineProperty(fn, "name", { value: method });
    defineProperty(handle, method, { value: fn, enumerable: true });
  }
  return freeze(handle);
}

/** A platform request whose failure reads like a failed tool call (`codemode.<what>: …`). */
async function hostCall(what: string, method: string, params: unknown): Promise<unknown> {
  try {
    return await peer.request(method, params);
  } catch (err) {
    const info = err instanceof CordonError
      ? err.toInfo()
      : { code: "tool_error" as const, message: String(err) };
    throw toolError("codemode", what, info);
  }
}

function installGlobals(connectors: GuestConnector[]): void {
  for (const c of connectors) {
    defineProperty(globalThis, c.name, {
      value: makeConnector(c),
      writable: false,
      configurable: false,
      enumerable: false,
    });
  }
  defineProperty(globalThis, "codemode", {
    value: makeCodemode(),
    writable: false,
    configurable: false,
    enumerable: false,
  });
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

/** The script's own line and column for an error, from its stack. */
function locate(err: unknown, lineOffset: number): { line: number; column: number } | undefined {
  const stack = err instanceof Error && typeof err.stack === "string" ? err.stack : "";
  for (const line of stack.split("\n")) {
    if (!line.includes("data:text/javascript")) continue;
    const m = /:(\d+):(\d+)\)?\s*$/.exec(line);
    if (!m) continue;
    const userLine = Number(m[1]) - lineOffset;
    if (userLine >= 1) return { line: userLine, column: Number(m[2]) };
  }
  return undefined;
}

function scriptFailure(err: unknown, lineOffset: number): CordonError {
  const location = locate(err, lineOffset);
  if (err !== null && typeof err === "object" && Reflect.apply(weakSetHas, toolErrors, [err])) {
    const e = err as Error & { code: string; details?: Record<string, unknown> };
    const code = isErrorCode(e.code) ? e.code : "tool_error";
    return new CordonError(code, e.message, { details: e.details, location });
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const details: Record<string, unknown> = { name: err.name };
    if (typeof code === "string") details.code = code;
    return new CordonError("script_error", `${err.name}: ${err.message}`, { details, location });
  }
  let text: string;
  try {
    text = typeof err === "string" ? err : inspect(err, { depth: 2 });
  } catch {
    text = "(a value that cannot be shown)";
  }
  return new CordonError("script_error", `Uncaught ${text}`, { location });
}

/** Refuses a result that cannot cross or is too large, with a message that says so. */
function checkResult(value: unknown, maxBytes: number): void {
  let json: string;
  try {
    json = JSON.stringify(encodeValue(value)) ?? "";
  } catch (err) {
    if (err instanceof CodecError) {
      throw new CordonError(
        "result_not_serializable",
        `The result cannot be returned: ${err.message}`,
        {
          details: { path: err.path },
        },
      );
    }
    throw err;
  }
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > maxBytes) {
    throw new CordonError(
      "result_too_large",
      `The result is ${bytes} bytes, over the ${maxBytes}-byte limit; return a smaller value`,
      { details: { bytes, limit: maxBytes } },
    );
  }
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

/** Globals are installed by the first run; a session's later runs reuse them. */
let installed = false;

async function run(params: RunParams): Promise<RunResult> {
  if (!installed) {
    installGlobals(params.connectors);
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
  let value: unknown;
  try {
    const mod = await import("data:text/javascript," + encodeURIComponent(params.module));
    const entry = mod.default;
    value = typeof entry === "function" ? await entry(params.input) : await entry;
  } catch (err) {
    throw scriptFailure(err, params.lineOffset);
  }
  checkResult(value, params.maxResultBytes);
  return { value };
}

/**
 * Runs once before `ready`: every function on the run path is compiled on
 * its first call, and a pooled child should pay that while it waits, not
 * while the caller does. An in-process pair of peers carries a rehearsal
 * frame through framing, codec, dispatch and a `data:` import.
 */
async function rehearse(): Promise<void> {
  const splitter = new LineSplitter(MAX_HOST_FRAME_BYTES);
  const guest = new Peer({
    send: (json) => host.receive(JSON.parse(json)),
    onRequest: async (_method, params) => {
      const p = params as RunParams;
      const mod = await import("data:text/javascript," + encodeURIComponent(p.module));
      const value = await mod.default(p.input);
      checkResult(value, p.maxResultBytes);
      return { value };
    },
  });
  const host: Peer = new Peer({
    send: (json) => {
      for (const line of splitter.push(new TextEncoder().encode(json + "\n"))) {
        guest.receive(JSON.parse(line));
      }
    },
  });
  const params: RunParams = {
    module: "export default async function (input) {\nreturn input;\n}",
    lineOffset: 1,
    input: { rehearsal: [1, "two", true, null] },
    connectors: [],
    maxResultBytes: 1024,
  };
  await host.request(METHOD_RUN, params);
  scriptFailure(new Error("rehearsal"), 1);
}

await rehearse();

readFrames(stdin, {
  maxFrameBytes: MAX_HOST_FRAME_BYTES,
  maxTotalBytes: Number.MAX_SAFE_INTEGER,
  onFrame: (frame) => peer.receive(frame),
  onFault: () => Deno.exit(70),
}).then(() => Deno.exit(0));

peer.notify(METHOD_READY, {});
