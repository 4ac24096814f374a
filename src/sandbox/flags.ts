/**
 * The child's command line. Every flag is here for a measured reason
 * (DESIGN.md, "The sandbox"); change none without a test that shows why.
 *
 * @module
 */
import type { LanguageFiles } from "./languages.ts";
import { DENIED_NET_RANGES, type SandboxPolicy } from "./policy.ts";
import { ARG_NO_REHEARSAL } from "./protocol.ts";

/** Options for {@link childArgs}. */
export interface ChildArgsOptions {
  policy: SandboxPolicy;
  /** The trusted guest entry (a file path or `file:` URL). */
  guestEntry: string;
  /** A unique id: isolates `localStorage` and `caches` per run. */
  runId: string;
  /**
   * Let allowed hosts resolve to private and loopback addresses. For local
   * development and tests of the allow-list only; never for a shared service.
   */
  allowPrivateNetwork?: boolean;
  /** More addresses to deny when hosts are allowed (the host's own interfaces). */
  denyAddresses?: readonly string[];
  /** What the policy's language needs: files it may read (never write) and guest arguments. */
  files?: LanguageFiles;
  /** A run waits for this child: it says `ready` without rehearsing one first. */
  noRehearsal?: boolean;
}

/** The `--location` a run gets: unique, so its `localStorage` and `caches` are its own. */
export function runLocation(runId: string): string {
  return `https://run-${runId}.invalid`;
}

/**
 * How every Deno process Cordon starts for the sandbox begins (children, and the trusted child
 * that builds Pyodide's snapshot): no prompt, no config, lock, remote modules or npm, cache only.
 */
export const LOCKED_RUN_FLAGS: readonly string[] = [
  "run",
  "--no-prompt",
  "--no-config",
  "--no-lock",
  "--no-remote",
  "--no-npm",
  "--cached-only",
];

/** The arguments after `deno` for one sandbox child. */
export function childArgs(options: ChildArgsOptions): string[] {
  const { policy } = options;
  const args = [
    ...LOCKED_RUN_FLAGS,
    // Untrusted modules must not land in the shared V8 code cache.
    "--no-code-cache",
    // A workspace is the one directory it may touch (and a language's own files are read-only);
    // otherwise no file at all.
    ...fileFlags(policy.workspaceDir, options.files?.readPaths ?? []),
    "--deny-env",
    "--deny-run",
    "--deny-ffi",
    "--deny-sys",
    "--deny-import",
  ];
  if (policy.netAllow.length === 0) {
    args.push("--deny-net");
  } else {
    args.push(`--allow-net=${policy.netAllow.join(",")}`);
    if (!options.allowPrivateNetwork) {
      const denied = [...DENIED_NET_RANGES, ...(options.denyAddresses ?? [])];
      args.push(`--deny-net=${denied.join(",")}`);
    }
  }
  args.push(
    `--location=${runLocation(options.runId)}`,
    `--v8-flags=--max-old-space-size=${policy.heapMiB}`,
    options.guestEntry,
    ...(options.files?.args ?? []),
    ...(options.noRehearsal ? [ARG_NO_REHEARSAL] : []),
  );
  return args;
}

function fileFlags(workspaceDir: string | undefined, readPaths: readonly string[]): string[] {
  const read = workspaceDir ? [workspaceDir, ...readPaths] : [...readPaths];
  return [
    read.length > 0 ? `--allow-read=${read.join(",")}` : "--deny-read",
    workspaceDir ? `--allow-write=${workspaceDir}` : "--deny-write",
  ];
}
