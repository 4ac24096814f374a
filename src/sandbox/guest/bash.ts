/**
 * bash blocks inside the sandbox child: the script runs in just-bash, a bash
 * interpreter written in TypeScript that starts no process. Its module is a
 * bundle the host made (one file the child may read, loaded by URL), so this
 * file imports nothing from npm.
 *
 * The filesystem the script sees is the workspace only (./bash_fs.ts): `/` is
 * the workspace directory (or an in-memory filesystem when there is none), a
 * path naming anything above `/` is refused, and no symlink can be made or
 * followed. Deno's permissions are the floor beneath: the child may read the
 * bundle and read and write the workspace, nothing else. There are no network
 * commands (no fetch is given to just-bash), no Python or JavaScript
 * commands, and no process to start.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { bashFs, type CommandContext, type JustBash } from "./bash_fs.ts";

/** What {@link runBash} runs and where its output goes. */
export interface RunBashOptions {
  /** The bash script; or give {@link RunBashOptions.file}. */
  code?: string;
  /** A script file to run instead of `code`, as `bash <file>` does (relative to `workDir`). */
  file?: string;
  /** The `file:` URL of the just-bash bundle the host made (`bashBundle`). */
  bundleUrl: string;
  /** The workspace directory, which becomes `/` for the script; absent: an in-memory filesystem. */
  cwd?: string;
  /** The directory the script starts in, inside its filesystem (default `/`); it must exist. */
  workDir?: string;
  /** The script's positional parameters (`$1`, `$2`, `"$@"`). */
  args?: readonly string[];
  /** Variables the script sees, besides the shell's own (`PWD`, `HOME=/`, `PATH`, …). */
  env?: Record<string, string>;
  /** What the script reads from standard input. */
  stdin?: string;
  /** just-bash limits to set instead of {@link BASH_LIMITS}' (`{ maxLoopIterations: 1000 }`). */
  limits?: Readonly<Record<string, number>>;
  /**
   * Commands the host backs (the run's connectors): name → what it answers for its arguments
   * and standard input. A name just-bash already has is not overridden.
   */
  tools?: Readonly<Record<string, BashTool>>;
  /** The script's standard output, when it has any (once, after the script ended). */
  onStdout(text: string): void;
  /** The script's standard error, when it has any (once, after the script ended). */
  onStderr(text: string): void;
}

/** A command backed by the host: its arguments and standard input in, its output and status out. */
export type BashTool = (
  args: string[],
  stdin: string,
) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

/** How a bash block ended. */
export interface RunBashResult {
  /** The script's exit status: `exit 3` is 3, an unknown command 127. */
  exitCode: number;
}

/** Commands a bash block does not get: they start workers or reach the network. */
export const BASH_EXCLUDED_COMMANDS: readonly string[] = [
  "curl",
  "wget",
  "python",
  "python3",
  "js-exec",
  "node",
  "sqlite3",
];

/**
 * just-bash's own limits: generous, but each finite, so a runaway script stops with an error
 * before the host's time and memory limits have to kill the child.
 */
export const BASH_LIMITS: Readonly<Record<string, number>> = {
  maxCommandCount: 10_000_000,
  maxLoopIterations: 10_000_000,
  maxAwkIterations: 10_000_000,
  maxSedIterations: 10_000_000,
  maxJqIterations: 10_000_000,
  maxCallDepth: 1_000,
  maxOutputSize: 64 * 1024 * 1024,
  maxStringLength: 64 * 1024 * 1024,
  maxFileSystemBytes: 256 * 1024 * 1024,
  maxExecutionTimeMs: 60 * 60 * 1000,
};

/** The largest workspace file a script may read whole. */
const MAX_FILE_READ_BYTES = 64 * 1024 * 1024;

let loaded: { url: string; module: Promise<JustBash> } | undefined;

function load(url: string): Promise<JustBash> {
  if (loaded?.url !== url) {
    const module = import(url) as Promise<JustBash>;
    loaded = { url, module };
    module.catch(() => loaded = undefined);
  }
  return loaded.module;
}

/**
 * Loads (compiles) the bundle and runs one block in memory before any real block runs: a pooled
 * bash child pays that while it waits, not while its first block does.
 */
export async function preloadBash(bundleUrl: string): Promise<void> {
  await load(bundleUrl);
  // One rehearsed block (in memory): the first real block finds the interpreter's paths warm.
  await runBash({
    code: "x=1; echo $x | cat > /dev/null",
    bundleUrl,
    onStdout() {},
    onStderr() {},
  });
}

/** `value` as one bash word, quoted so nothing in it expands. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Where `name` runs from: an executable file on `PATH` (or named by path), else a built-in. */
async function whichOne(
  name: string,
  ctx: CommandContext,
  builtins: ReadonlySet<string>,
): Promise<string | undefined> {
  const runnable = async (path: string) => {
    try {
      const s = await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, path));
      return !s.isDirectory && (s.mode & 0o111) !== 0;
    } catch {
      return false;
    }
  };
  if (name.includes("/")) return await runnable(name) ? name : undefined;
  for (const dir of (ctx.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    if (dir && await runnable(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return builtins.has(name) ? `/usr/bin/${name}` : undefined;
}

/**
 * `which`, answering for the built-ins as `command -v` does (`/usr/bin/jq`): just-bash's own looks
 * for files on `PATH`, and the workspace has none for them.
 */
function whichCommand(jb: JustBash, builtins: ReadonlySet<string>): object {
  return jb.defineCommand("which", async (args, ctx) => {
    const names = args.filter((a) => !a.startsWith("-"));
    let stdout = "";
    let missing = names.length === 0;
    for (const name of names) {
      const found = await whichOne(name, ctx, builtins);
      if (found) stdout += `${found}\n`;
      else missing = true;
    }
    return { stdout: args.includes("-s") ? "" : stdout, stderr: "", exitCode: missing ? 1 : 0 };
  });
}

interface ScriptFs {
  resolvePath(base: string, path: string): string;
  stat(path: string): Promise<{ isDirectory: boolean }>;
  readFile(path: string): Promise<string>;
}

/** The script and its starting directory, or how it fails as bash would (status 127 or 1). */
async function locate(
  fs: ScriptFs,
  options: RunBashOptions,
): Promise<{ code: string; workDir: string } | { stderr: string; exitCode: number }> {
  let workDir = "/";
  try {
    workDir = fs.resolvePath("/", options.workDir ?? "/");
    if (!(await fs.stat(workDir)).isDirectory) throw new Error("not a directory");
  } catch {
    return { stderr: `bash: cd: ${options.workDir}: No such directory\n`, exitCode: 1 };
  }
  if (options.file === undefined) return { code: options.code ?? "", workDir };
  try {
    return { code: await fs.readFile(fs.resolvePath(workDir, options.file)), workDir };
  } catch {
    return { stderr: `bash: ${options.file}: No such file or directory\n`, exitCode: 127 };
  }
}

/**
 * Runs one bash block (`code`, or a script `file`). The positional parameters are set on the
 * script's first line, so the line numbers in its errors stay its own. Throws `invalid_request`
 * unless exactly one of `code` and `file` is given, `spawn_failed` if the bundle does not load;
 * everything the script does wrong is its exit code and standard error.
 */
export async function runBash(options: RunBashOptions): Promise<RunBashResult> {
  if ((options.code === undefined) === (options.file === undefined)) {
    throw new CordonError("invalid_request", "A bash block needs either code or a file to run");
  }
  let jb: JustBash;
  try {
    jb = await load(options.bundleUrl);
  } catch (err) {
    throw new CordonError(
      "spawn_failed",
      `Cannot load the bash interpreter: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const limits = { ...BASH_LIMITS, ...options.limits };
  const excluded = new Set(BASH_EXCLUDED_COMMANDS);
  const commands = jb.getCommandNames().filter((name) => !excluded.has(name));
  const fs = bashFs(jb, options.cwd, {
    maxFileReadBytes: MAX_FILE_READ_BYTES,
    maxMemoryBytes: limits.maxFileSystemBytes,
  });
  const taken = new Set([...commands, ...BASH_EXCLUDED_COMMANDS]);
  const tools = Object.entries(options.tools ?? {}).filter(([name]) => !taken.has(name));
  const script = await locate(fs as ScriptFs, options);
  if (!("code" in script)) {
    options.onStderr(script.stderr);
    return { exitCode: script.exitCode };
  }
  const bash = new jb.Bash({
    fs,
    cwd: script.workDir,
    env: { HOME: "/", ...options.env },
    commands,
    customCommands: [
      whichCommand(jb, new Set([...commands, ...tools.map(([name]) => name)])),
      ...tools.map(([name, tool]) =>
        jb.defineCommand(name, (args, ctx) => tool(args, String(ctx.stdin ?? "")))
      ),
    ],
    executionLimits: limits,
    // It patches globals while a script runs (timers, `Function`, `process`), which the guest's
    // own work shares, and warns on the console; Deno's permissions are the boundary here.
    defenseInDepth: false,
  });
  const args = options.args ?? [];
  const prefix = args.length ? `set -- ${args.map(shellQuote).join(" ")}; ` : "";
  let result: { stdout: string; stderr: string; exitCode: number };
  try {
    result = await bash.exec(prefix + script.code, { stdin: options.stdin, rawScript: true });
  } catch (err) {
    // A failure just-bash does not turn into a status itself (a redirection into `/dev` or
    // `/proc` is refused by the filesystem): the script fails as bash would, with the reason.
    const reason = err instanceof Error ? err.message : String(err);
    result = { stdout: "", stderr: `bash: ${reason}\n`, exitCode: 1 };
  }
  if (result.stdout) options.onStdout(result.stdout);
  if (result.stderr) options.onStderr(result.stderr);
  return { exitCode: result.exitCode };
}
