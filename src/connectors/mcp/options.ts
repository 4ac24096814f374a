/**
 * What the host says about an MCP server: how to reach it (a command for
 * stdio, a URL for Streamable HTTP), its limits and its approval policy,
 * with the defaults and the checks that reject bad options early.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/** Which calls need a person's approval before they run. */
export interface McpApprovalOptions {
  /**
   * Gate tools that may destroy data: per the MCP spec a tool counts as
   * destructive unless it says `readOnlyHint: true` or `destructiveHint: false`
   * (the spec's default for `destructiveHint` is true).
   */
  destructive?: boolean;
  /** Gate every tool of this server. */
  all?: boolean;
}

/** What both transports share. */
export interface McpCommonOptions {
  /** The connector name the model's code sees (a JavaScript identifier). */
  name: string;
  /** Shown to the model; defaults to the server's own title and version. */
  description?: string;
  /** When to prefer this server (`CapletCard.useWhen` of `caplets.<name>.inspect()`). */
  useWhen?: string;
  /** When to avoid this server (`CapletCard.avoidWhen`). */
  avoidWhen?: string;
  /** Words to group and find it by (`CapletCard.tags`). */
  tags?: string[];
  /** Time for the server to start, answer `initialize` and list its tools, in ms. */
  startupTimeoutMs?: number;
  /** Per-call time limit for tools and handle methods, in ms. */
  callTimeoutMs?: number;
  /** Maps the server's annotations to `requiresApproval`. */
  approval?: McpApprovalOptions;
  /** Calls of this server running at once, across all executions. */
  concurrency?: number;
}

/** A server Cordon starts as a child process and talks to over stdio. */
export interface McpStdioOptions extends McpCommonOptions {
  /** The executable, from the host's configuration only (never from a script). */
  command: string;
  /** Arguments, from the host's configuration only. */
  args?: string[];
  /**
   * Extra environment for the server. The child gets only these and a few
   * safe variables (`HOME`, `PATH`, `USER`, …), never the host's whole env.
   */
  env?: Record<string, string>;
  /** Working directory of the server; the host's when not given. */
  cwd?: string;
}

/** A server Cordon reaches over Streamable HTTP. */
export interface McpHttpOptions extends McpCommonOptions {
  /** The server's MCP endpoint (`http:` or `https:`). */
  url: string;
  /** Sent with every request (tokens, keys): host-side secrets, never shown to a script. */
  headers?: Record<string, string>;
}

/**
 * Time for a server to start and list its tools. A local server answers in
 * well under a second; 15 s leaves room for `npx` resolving a cached
 * package on a slow machine without hiding a hung server for long.
 */
export const DEFAULT_STARTUP_TIMEOUT_MS = 15_000;

/** Where a connector connects to, resolved from the options. */
export type McpTarget =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: "http"; url: URL; headers: Record<string, string> };

/** True when the options describe a stdio server. */
export function isStdioOptions(
  options: McpStdioOptions | McpHttpOptions,
): options is McpStdioOptions {
  return typeof (options as McpStdioOptions).command === "string";
}

/** Checks the options and resolves the target; throws `invalid_request` with the reason. */
export function resolveTarget(options: McpStdioOptions | McpHttpOptions): McpTarget {
  const name = options?.name;
  const fail = (why: string) =>
    new CordonError("invalid_request", `Cannot configure MCP connector "${name}": ${why}`);
  if (typeof name !== "string" || name === "") throw fail("a name is required");
  const hasCommand = "command" in options && options.command !== undefined;
  const hasUrl = "url" in options && options.url !== undefined;
  if (hasCommand === hasUrl) throw fail("give either a command (stdio) or a url (HTTP)");
  for (const key of ["startupTimeoutMs", "callTimeoutMs"] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw fail(`${key} must be a positive number of milliseconds`);
    }
  }
  const concurrency = options.concurrency;
  if (concurrency !== undefined && !(Number.isSafeInteger(concurrency) && concurrency >= 1)) {
    throw fail("concurrency must be a positive integer");
  }
  if (isStdioOptions(options)) {
    if (options.command.trim() === "") throw fail("the command is empty");
    const args = options.args ?? [];
    if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
      throw fail("args must be strings");
    }
    const env = options.env ?? {};
    if (Object.values(env).some((v) => typeof v !== "string")) {
      throw fail("env values must be strings");
    }
    const target: McpTarget = { kind: "stdio", command: options.command, args: [...args], env };
    if (options.cwd !== undefined) target.cwd = options.cwd;
    return target;
  }
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw fail(`"${options.url}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw fail(`the url must be http or https, not ${url.protocol}`);
  }
  return { kind: "http", url, headers: { ...options.headers } };
}

/** The target as it may be shown (no query string, credentials or headers). */
export function describeTarget(target: McpTarget): string {
  if (target.kind === "stdio") return `stdio: ${target.command}`;
  return `http: ${target.url.origin}${target.url.pathname}`;
}
