/**
 * Real MCP servers from npm for tests and benchmarks. The versions are
 * pinned here and nowhere else.
 *
 * Each package is installed once per machine with npm into a cache
 * directory (`CORDON_TEST_MCP_DIR`, default `<tmp>/cordon-test-mcp`) and
 * run with `node` directly: one process per server (its pid is the
 * server's), about 0.7 s to start where `npx` takes about 2 s. `npx` itself
 * is exercised by one test, as users configure it. A fresh machine needs
 * Node 20+ and npm with access to the npm registry; the first install takes
 * about 10 s.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The reference server with every MCP feature (tools, resources, prompts, completions). */
export const SERVER_EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31";

/** The reference filesystem server. */
export const SERVER_FILESYSTEM = "@modelcontextprotocol/server-filesystem@2026.8.31";

/** Time for `npm install` of one server on a fresh machine (downloads included). */
export const NPM_INSTALL_TIMEOUT_MS = 180_000;

/** Startup limit for a first `npx` start, which may download the package. */
export const FIRST_START_TIMEOUT_MS = 60_000;

/** Time for the HTTP server to start listening. */
const HTTP_READY_TIMEOUT_MS = 30_000;

/** Free-port races with other processes are rare; a few tries make them harmless. */
const HTTP_PORT_ATTEMPTS = 3;

const CACHE_DIR = Deno.env.get("CORDON_TEST_MCP_DIR") ?? join(tmpdir(), "cordon-test-mcp");

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
}

const installs = new Map<string, Promise<string>>();

/** The server's entry script, installing the package first if needed. */
export function installedServer(spec: string): Promise<string> {
  let entry = installs.get(spec);
  if (!entry) {
    entry = install(spec);
    installs.set(spec, entry);
  }
  return entry;
}

async function install(spec: string): Promise<string> {
  const name = spec.slice(0, spec.lastIndexOf("@"));
  const dir = join(CACHE_DIR, spec.replaceAll("/", "+"));
  const marker = join(dir, ".installed");
  if (!(await exists(marker))) {
    // Install beside, then rename: parallel test processes never see half an install.
    const staging = `${dir}.${crypto.randomUUID()}`;
    await Deno.mkdir(staging, { recursive: true });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), NPM_INSTALL_TIMEOUT_MS);
    try {
      const out = await new Deno.Command("npm", {
        args: ["install", "--prefix", staging, "--no-audit", "--no-fund", "--loglevel=error", spec],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: controller.signal,
      }).output();
      if (!out.success) {
        throw new Error(`npm install ${spec} failed: ${new TextDecoder().decode(out.stderr)}`);
      }
    } finally {
      clearTimeout(timer);
    }
    await Deno.writeTextFile(join(staging, ".installed"), spec);
    try {
      await Deno.rename(staging, dir);
    } catch (err) {
      await Deno.remove(staging, { recursive: true });
      if (!(await exists(marker))) throw err;
    }
  }
  const pkgDir = join(dir, "node_modules", name);
  const manifest = JSON.parse(await Deno.readTextFile(join(pkgDir, "package.json")));
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0];
  return join(pkgDir, bin as string);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** server-everything over stdio, run with node. */
export async function everythingStdio(): Promise<ServerCommand> {
  return { command: "node", args: [await installedServer(SERVER_EVERYTHING), "stdio"] };
}

/** server-everything over stdio through `npx -y` (a wrapper with children of its own). */
export function everythingNpx(): ServerCommand {
  return { command: "npx", args: ["-y", SERVER_EVERYTHING, "stdio"] };
}

/** server-filesystem over stdio, allowed to touch `dir` only. */
export async function filesystemStdio(dir: string): Promise<ServerCommand> {
  return { command: "node", args: [await installedServer(SERVER_FILESYSTEM), dir] };
}

/** A small SDK-built server whose tool list changes (tests/fixtures/mcp/changing_server.ts). */
export function changingServer(stateFile: string): ServerCommand {
  const root = new URL("../../", import.meta.url);
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-lock",
      `--config=${new URL("deno.json", root).pathname}`,
      "--allow-read",
      "--allow-env",
      new URL("tests/fixtures/mcp/changing_server.ts", root).pathname,
      stateFile,
    ],
  };
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
