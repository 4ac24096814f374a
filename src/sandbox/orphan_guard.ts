/**
 * Children never outlive their host. A child whose script spins
 * (`while (true) {}`) never reads its stdin, so it does not notice the
 * host's death; without help it is reparented and burns a core past its
 * own deadline. Linux can send a signal to a process when its parent dies
 * (`PR_SET_PDEATHSIG`), but the flag must be set in the child between fork
 * and exec, which Deno cannot do. util-linux's `setpriv --pdeathsig KILL`
 * sets it and then execs the real program (same pid, no extra process),
 * so every child is started through it where it exists.
 *
 * The kernel fires the signal when the parent *thread* exits. Deno forks
 * from the thread that calls `spawn()`: the main thread for a host run with
 * `deno run`, which lives as long as the process. A runtime made inside a
 * Web Worker loses its children when that worker ends (which is what its
 * owner would want, too).
 *
 * @module
 */

/** How children are tied to the host's life. */
export type OrphanGuardKind = "pdeathsig" | "none";

/** A program and its arguments. */
export interface CommandLine {
  program: string;
  args: string[];
}

/** Starts children so the kernel kills them when the host dies, or says it cannot. */
export interface OrphanGuard {
  readonly kind: OrphanGuardKind;
  /** What was found or tried. */
  readonly reason: string;
  /** The command line that runs `program args` under the guard. */
  wrap(program: string, args: readonly string[]): CommandLine;
}

/** Where util-linux installs `setpriv` (looked up before `PATH`, which children never get). */
export const SETPRIV_PATHS: readonly string[] = [
  "/usr/bin/setpriv",
  "/bin/setpriv",
  "/usr/sbin/setpriv",
  "/sbin/setpriv",
];

/** The signal a child gets when its host dies: it must stop at once, whatever it runs. */
export const PARENT_DEATH_SIGNAL = "KILL";

/** Options for {@link detectOrphanGuard}. */
export interface DetectOrphanGuardOptions {
  /** Candidate `setpriv` binaries (default: {@link SETPRIV_PATHS}, then `PATH`). */
  paths?: readonly string[];
}

function candidates(): string[] {
  const out = [...SETPRIV_PATHS];
  try {
    for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
      if (dir.startsWith("/")) out.push(`${dir.replace(/\/+$/, "")}/setpriv`);
    }
  } catch {
    // No env permission: the fixed paths only.
  }
  return [...new Set(out)];
}

/**
 * Whether `path` runs a program under `--pdeathsig` (older util-linux lacks
 * the flag): `true`, or why not when it is worth saying.
 */
async function works(path: string): Promise<true | string | undefined> {
  try {
    const { success } = await new Deno.Command(path, {
      args: ["--pdeathsig", PARENT_DEATH_SIGNAL, "--", path, "--version"],
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return success || `${path} refused --pdeathsig`;
  } catch (err) {
    // A host allowed to run only some programs (--allow-run=deno) says so here.
    return err instanceof Deno.errors.NotCapable ? `not allowed to run ${path}` : undefined;
  }
}

function pdeathsig(setpriv: string): OrphanGuard {
  return {
    kind: "pdeathsig",
    reason: `${setpriv} --pdeathsig ${PARENT_DEATH_SIGNAL}`,
    wrap: (program, args) => ({
      program: setpriv,
      args: ["--pdeathsig", PARENT_DEATH_SIGNAL, "--", program, ...args],
    }),
  };
}

/** The unguarded fallback: children are started as they are. */
export function noOrphanGuard(reason: string): OrphanGuard {
  return { kind: "none", reason, wrap: (program, args) => ({ program, args: [...args] }) };
}

async function detect(paths: readonly string[]): Promise<OrphanGuard> {
  if (Deno.build.os !== "linux") return noOrphanGuard("parent-death signals are Linux only");
  const problems: string[] = [];
  for (const path of paths) {
    try {
      if (!(await Deno.stat(path)).isFile) continue;
    } catch {
      continue;
    }
    const result = await works(path);
    if (result === true) return pdeathsig(path);
    if (result) problems.push(result);
  }
  return noOrphanGuard(
    `no setpriv with --pdeathsig (util-linux ≥ 2.33) in ${paths.join(", ")}` +
      `${problems.length ? ` (${problems.join("; ")})` : ""}: ` +
      "a child that spins when the host dies lives on until a starting host sweeps its cgroup",
  );
}

let shared: Promise<OrphanGuard> | undefined;

/**
 * Finds `setpriv --pdeathsig` on this host (once per process unless
 * `paths` is given), or falls back to starting children unguarded.
 */
export function detectOrphanGuard(options: DetectOrphanGuardOptions = {}): Promise<OrphanGuard> {
  if (options.paths) return detect(options.paths);
  shared ??= detect(candidates());
  return shared;
}
