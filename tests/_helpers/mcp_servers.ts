/**
 * Real MCP servers from npm for tests and benchmarks.
 *
 * Both servers are ordinary npm dependencies in `deno.json`, pinned there
 * and in `deno.lock`, so `deno install` (the first step of `deno task ok`)
 * puts them in `node_modules/` with everything else, before any test runs.
 * Tests never download: a server that is not installed fails with a message
 * saying what to run, and the Deno children tests start run against the lock,
 * frozen and cached-only (`deno_run.ts`).
 *
 * Each server runs with `node` directly: one process per server (its pid is
 * the server's), about 0.7 s to start. `npx` itself is exercised by one test,
 * as users configure it, on the installed copy (`npx --no`, never a download).
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { denoCacheEnv, FROZEN_RUN_FLAGS, REPO_ROOT } from "./deno_run.ts";

/** The reference server with every MCP feature (tools, resources, prompts, completions). */
export const SERVER_EVERYTHING = "@modelcontextprotocol/server-everything";

/** The reference filesystem server. */
export const SERVER_FILESYSTEM = "@modelcontextprotocol/server-filesystem";

/** Startup limit for a server's first start (a cold `node` on a busy machine). */
export const FIRST_START_TIMEOUT_MS = 60_000;

/** Time for the HTTP server to start listening. */
const HTTP_READY_TIMEOUT_MS = 30_000;

/** Free-port races with other processes are rare; a few tries make them harmless. */
const HTTP_PORT_ATTEMPTS = 3;

/**
 * Loaded into the HTTP server with `node --import`: server-everything calls
 * `app.listen(PORT)`, which binds every interface; this makes a bare
 * `listen(port)` bind 127.0.0.1 instead.
 */
const LOOPBACK_ONLY = "data:text/javascript," + encodeURIComponent(`
import net from "node:net";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const bare = (typeof args[0] === "number" || typeof args[0] === "string") &&
    (args.length === 1 || typeof args[1] === "function");
  if (bare) args.splice(0, 1, Number(args[0]), "127.0.0.1");
  return listen.apply(this, args);
};`);

/** A command line for a stdio server. */
export interface ServerCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * The installed server's entry script. Throws, saying what to run, when the
 * package is not in `node_modules/` (tests never install anything).
 */
export async function installedServer(name: string): Promise<string> {
  const pkgDir = join(REPO_ROOT, "node_modules", name);
  let manifest: { bin?: string | Record<string, string> };
  try {
    manifest = JSON.parse(await Deno.readTextFile(join(pkgDir, "package.json")));
  } catch {
    throw new Error(
      `${name} is not installed in ${join(REPO_ROOT, "node_modules")}: run \`deno install\` ` +
        "in the repository first (deno task ok and deno task test do); tests never download",
    );
  }
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin!)[0];
  return join(pkgDir, bin);
}

/** server-everything over stdio, run with node. */
export async function everythingStdio(): Promise<ServerCommand> {
  return { command: "node", args: [await installedServer(SERVER_EVERYTHING), "stdio"] };
}

/**
 * server-everything over stdio through `npx` (a wrapper with children of its
 * own), on the installed copy: `--no` makes npx fail rather than download.
 */
export async function everythingNpx(): Promise<ServerCommand> {
  await installedServer(SERVER_EVERYTHING);
  return { command: "npx", args: ["--no", "mcp-server-everything", "stdio"], cwd: REPO_ROOT };
}

/** server-filesystem over stdio, allowed to touch `dir` only. */
export async function filesystemStdio(dir: string): Promise<ServerCommand> {
  return { command: "node", args: [await installedServer(SERVER_FILESYSTEM), dir] };
}

/**
 * A small SDK-built server from `tests/fixtures/mcp/`, run by Deno against the
 * lock, frozen and cached-only, with the runner's cache.
 */
export function fixtureServer(file: string, ...args: string[]): ServerCommand {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      ...FROZEN_RUN_FLAGS,
      `--config=${join(REPO_ROOT, "deno.json")}`,
      "--allow-read",
      "--allow-env",
      join(REPO_ROOT, "tests/fixtures/mcp", file),
      ...args,
    ],
    env: denoCacheEnv(),
  };
}

/** A server whose tool list changes (tests/fixtures/mcp/changing_server.ts). */
export function changingServer(stateFile: string): ServerCommand {
  return fixtureServer("changing_server.ts", stateFile);
}

/** A running server-everything in Streamable HTTP mode, listening on 127.0.0.1. */
export interface HttpServer extends AsyncDisposable {
  url: string;
  port: number;
  pid: number;
  /** Kills the server at once (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
}

/** Starts server-everything over Streamable HTTP on `port` (a free one when not given). */
export async function startEverythingHttp(port?: number): Promise<HttpServer> {
  const entry = await installedServer(SERVER_EVERYTHING);
  for (let attempt = 1;; attempt++) {
    const chosen = port ?? freePort();
    try {
      return await startHttpOn(entry, chosen);
    } catch (err) {
      if (port !== undefined || attempt >= HTTP_PORT_ATTEMPTS) throw err;
    }
  }
}

async function startHttpOn(entry: string, port: number): Promise<HttpServer> {
  const child = new Deno.Command("node", {
    args: ["--import", LOOPBACK_ONLY, entry, "streamableHttp"],
    clearEnv: true,
    env: { PORT: String(port), PATH: Deno.env.get("PATH") ?? "", HOME: tmpdir() },
    cwd: tmpdir(),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  let onLine: (() => void) | undefined;
  const drained = (async () => {
    const decoder = new TextDecoderStream();
    for await (const text of child.stderr.pipeThrough(decoder)) {
      stderr = (stderr + text).slice(-4_000);
      onLine?.();
    }
  })();
  const exited = child.status;
  const kill = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await exited;
    await drained;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      onLine = () => stderr.includes(`listening on port ${port}`) && resolve(true);
    }),
    exited.then(() => false),
    new Promise<boolean>((
      resolve,
    ) => (timer = setTimeout(() => resolve(false), HTTP_READY_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  onLine = undefined;
  if (!ready) {
    await kill();
    throw new Error(`server-everything (HTTP) did not start on port ${port}: ${stderr}`);
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    pid: child.pid,
    kill,
    [Symbol.asyncDispose]: kill,
  };
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
