/**
 * The files of control groups, touched one operation at a time. Moving a
 * process into a group (a write to `cgroup.procs`) takes a kernel lock that
 * every fork and every new thread in the system waits for. Fifty children
 * booting at once (each starting a dozen threads) made each move wait, and
 * fifty moves in flight made Deno start a blocking thread per file
 * operation, from the host's main thread, which then waited on the same
 * lock: the host's event loop stopped for up to 800 ms (measured on 2
 * cores). One operation at a time keeps a single blocking thread busy and
 * the main thread out of the lock.
 *
 * @module
 */

/**
 * Cgroup operations under way at once. Measured on a cold burst of 50 runs: one lane, longest
 * host stall 110–120 ms; three lanes, 160–230 ms, for a wall 5 % shorter.
 */
export const CGROUP_LANES = 1;

let running = 0;
const waiting: (() => void)[] = [];

/**
 * Runs `op` once fewer than {@link CGROUP_LANES} cgroup operations are under way, in order;
 * an `urgent` one goes before every operation still waiting.
 */
async function inLane<T>(op: () => Promise<T>, urgent = false): Promise<T> {
  if (running >= CGROUP_LANES || waiting.length > 0) {
    await new Promise<void>((resolve) => urgent ? waiting.unshift(resolve) : waiting.push(resolve));
  }
  running++;
  try {
    return await op();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * Writes `value` to a control file. `urgent` is for moving a child just spawned into its groups:
 * until then it boots with the host's CPU weight, so it goes before the groups of children not
 * spawned yet (in a cold burst, fifty children's groups are made at once).
 */
export function write(path: string, value: string, urgent = false): Promise<void> {
  return inLane(() => Deno.writeTextFile(path, value), urgent);
}

/** Reads a control file; undefined if it cannot be read. */
export function readText(path: string): Promise<string | undefined> {
  return inLane(() => Deno.readTextFile(path)).catch(() => undefined);
}

/** Makes a group's directory. */
export function makeDir(path: string, recursive = false): Promise<void> {
  return inLane(() => Deno.mkdir(path, { recursive }));
}

/** True when `path` exists. */
export function exists(path: string): Promise<boolean> {
  return inLane(() => Deno.stat(path)).then(() => true, () => false);
}

/**
 * Removes a group's directory (rmdir: its files are virtual). A process that
 * has just been reaped may linger for a moment, so it tries again a few times.
 */
export async function removeDir(path: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      await inLane(() => Deno.remove(path));
      return;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      await new Promise((r) => setTimeout(r, 5 * (attempt + 1)));
    }
  }
}
