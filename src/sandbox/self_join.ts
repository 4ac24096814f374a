/**
 * A child that puts itself in its cgroups: a POSIX shell, still one thread, writes `0` into
 * each group's `tasks` file, then becomes the real program with `exec`. Deno cannot run code
 * between fork and exec, so the shell stands in.
 *
 * Why not the host's write of the child's pid: on cgroup v1 every such write takes a lock that
 * every fork and every new thread on the machine also takes, and holding it waits for an RCU
 * grace period. While one child moves, the host's next spawn (synchronous in Deno) and the
 * threads it starts wait, and its event loop with them. A thread that moves itself skips that
 * lock (the kernel's `cgroup_procs_write_start`).
 *
 * @module
 */
import type { SelfJoin } from "./cgroup_types.ts";
import type { CommandLine } from "./orphan_guard.ts";

/** The shell that joins (dash on Debian: about half a millisecond). */
export const JOIN_SHELL = "/bin/sh";

/** The exit status of a child that could not join a group it must be in: it ran nothing else. */
export const JOIN_FAILED_STATUS = 125;

/** What the child says on standard error when it cannot join (no path: the run may see it). */
export const JOIN_FAILED_MESSAGE = "cordon: the sandbox could not join its control group";

/**
 * `$1` optional files, `$2` required ones, then the files, then the program and its arguments.
 * No argument is ever part of the script: each is a positional parameter.
 */
const SCRIPT = [
  "o=$1; r=$2; shift 2",
  'while [ "$o" -gt 0 ]; do { echo 0 > "$1"; } 2>/dev/null; o=$((o - 1)); shift; done',
  'while [ "$r" -gt 0 ]; do',
  `  { echo 0 > "$1"; } 2>/dev/null || { echo '${JOIN_FAILED_MESSAGE}' >&2; exit ${JOIN_FAILED_STATUS}; }`,
  "  r=$((r - 1)); shift",
  "done",
  'exec "$@"',
].join("\n");

/** The command line that joins `join`'s groups, then runs `program` (an absolute path). */
export function joinCommand(join: SelfJoin, program: string, args: readonly string[]): CommandLine {
  return {
    program: JOIN_SHELL,
    args: [
      "-c",
      SCRIPT,
      "cordon-join",
      String(join.optional.length),
      String(join.required.length),
      ...join.optional,
      ...join.required,
      program,
      ...args,
    ],
  };
}
