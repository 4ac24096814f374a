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
import { CordonError, isErrorCode } from "../../errors.ts";
import { CodecError, forJson } from "../../rpc/codec.ts";
import { LineSplitter, readFrames } from "../../rpc/framing.ts";
import { SyncFrameWriter } from "../../rpc/sync_writer.ts";
import { Peer } from "../../rpc/peer.ts";
import {
  ARG_NO_REHEARSAL,
  type GuestConnector,
  type LogLevel,
  METHOD_LOG,
  METHOD_PREPARE,
  METHOD_READY,
  METHOD_RUN,
  METHOD_STDIN,
  type RunParams,
  type RunResult,
  type StdinParams,
} from "../protocol.ts";
import { concealHost } from "./conceal.ts";
import { installedConnectors, isToolError, prepareConnectors, prepareGlobals } from "./globals.ts";
import { loadPython, pythonArgs, runPython } from "./python.ts";
import { beginProgram, ProgramExit, programStdin } from "./program.ts";
import { bashBundleUrl, runBashFrame } from "./bash_run.ts";
import { preloadBash } from "./bash.ts";
import { explainDeniedFetch, explainPermission } from "./permissions.ts";

// Before anything else runs: no user code may see the host's paths.
concealHost();
// A child a run waits for says `ready` without a rehearsal (see `rehearse`).
const rehearseFirst = !Deno.args.includes(ARG_NO_REHEARSAL);
// A Python child's arguments name Pyodide's files; read once, then hidden.
const bashBundle = bashBundleUrl(Deno.args);
const python = pythonArgs();
// A script that catches a refused fetch reads Cordon's remedy too, not Deno's flag.
explainDeniedFetch();

// Captured before user code can touch the intrinsics (./globals.ts captures its own as it loads).
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

const writer = new SyncFrameWriter(writeAll, () => peer.close());

/**
 * Frames are written synchronously, in the microtask burst that produced them (or at once, once
 * 16 KB wait): a result is on the pipe before any timer the script left behind can run, so a
 * late write of the script's own cannot overtake it. A full pipe blocks this child only, which
 * is the back-pressure the host wants anyway.
 */
function writeAll(bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += stdout.writeSync(bytes.subarray(offset));
}

const peer = new Peer({
  send: (json) => writer.send(json),
  unsliced: true,
  onNotification: (method, params) => {
    if (method === METHOD_PREPARE) {
      prepareConnectors(peer, (params as { connectors: GuestConnector[] }).connectors);
    } else if (method === METHOD_STDIN) {
      const p = params as StdinParams;
      programStdin.push(String(p?.data ?? ""), p?.eof === true);
    }
  },
  onRequest: (method, params) => {
    if (method === METHOD_RUN) return run(params as RunParams);
    throw new CordonError("invalid_request", `The guest does not handle ${method}`);
  },
});

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

/** A permission error in Cordon's words, or `undefined` for any other error. */
function permissionFailure(err: Error, location: ReturnType<typeof locate>) {
  const permission = explainPermission(err);
  if (permission === undefined) return undefined;
  // `script_error` still: the child owns no other code (the host trusts it with no more).
  return new CordonError("script_error", `${err.name}: ${err.message}`, {
    details: { name: err.name, permission },
    location,
  });
}

function scriptFailure(err: unknown, lineOffset: number): CordonError {
  const location = locate(err, lineOffset);
  if (isToolError(err)) {
    const e = err as Error & { code: string; details?: Record<string, unknown> };
    const code = isErrorCode(e.code) ? e.code : "tool_error";
    return new CordonError(code, e.message, { details: e.details, location });
  }
  if (err instanceof Error) {
    const denied = permissionFailure(err, location);
    if (denied) return denied;
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
    json = JSON.stringify(forJson(value)) ?? "";
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

async function run(params: RunParams): Promise<RunResult> {
  prepareGlobals(peer, params);
  let value: unknown;
  const program = params.program ? beginProgram({ ...params, program: params.program }) : undefined;
  if (params.language === "bash") {
    const log = (level: LogLevel, message: string) => peer.notify(METHOD_LOG, { level, message });
    return {
      value: await runBashFrame(params, bashBundle, program?.env, log, installedConnectors()),
    };
  }
  if (params.language === "python") {
    value = await runPython(params, installedConnectors(), program?.env);
    checkResult(value, params.maxResultBytes);
    return { value };
  }
  try {
    const mod = await import("data:text/javascript," + encodeURIComponent(params.module));
    const entry = mod.default;
    const ran = (async () =>
      typeof entry === "function" ? await entry(params.input) : await entry)();
    // A program's status is its exit code: 0 when it ends, or what it gave Deno.exit().
    value = program?.exited ? await Promise.race([ran.then(() => 0), program.exited]) : await ran;
  } catch (err) {
    if (!(err instanceof ProgramExit)) throw scriptFailure(err, params.lineOffset);
    value = err.exitCode;
  }
  checkResult(value, params.maxResultBytes);
  return { value };
}

/**
 * Runs once before `ready`: every function on the run path is compiled on
 * its first call, and a pooled child should pay that while it waits, not
 * while the caller does. An in-process pair of peers carries a rehearsal
 * frame through framing, codec, dispatch and a `data:` import. A child a run
 * waits for skips it (`ARG_NO_REHEARSAL`): there the caller would pay it.
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

if (rehearseFirst) await rehearse();
// A bash child compiles its interpreter before it says ready (a pooled one waits warm).
if (bashBundle) await preloadBash(bashBundle);
if (python) {
  await loadPython(python, (level, message) => peer.notify(METHOD_LOG, { level, message }));
}

readFrames(stdin, {
  maxFrameBytes: MAX_HOST_FRAME_BYTES,
  maxTotalBytes: Number.MAX_SAFE_INTEGER,
  onFrame: (frame) => peer.receive(frame),
  onFault: () => Deno.exit(70),
}).then(() => Deno.exit(0));

peer.notify(METHOD_READY, {});
