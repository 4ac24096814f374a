/**
 * Who owns a leftover. Anything a host names on the machine (cgroup
 * directories, run ledgers) carries a tag of its process: pid, start time
 * and pid namespace. A pid alone is not enough: after a crash the pid is
 * free and may be reused by an unrelated process, while the pair (pid,
 * start time in clock ticks since boot) names one process for the life of
 * the machine. The namespace is there because a pid means another process
 * in another pid namespace: a tag from elsewhere is never judged dead.
 *
 * @module
 */

/** One process's identity, as written into names. */
export interface HostTag {
  pid: number;
  /** Field 22 of `/proc/<pid>/stat`: clock ticks after boot when the process started. */
  startTicks: number;
  /** The inode of the pid namespace the pid belongs to (0 if unknown). */
  pidNamespace: number;
}

/** Reads a process's start time; `undefined` when it is gone or a zombie. */
export function processStartTicks(pid: number): number | undefined {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // Fields after the command (which may hold spaces) start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return undefined;
  const ticks = Number(fields[19]);
  return Number.isSafeInteger(ticks) ? ticks : undefined;
}

function pidNamespaceOf(pid: number | "self"): number {
  try {
    const m = /\[(\d+)\]/.exec(Deno.readLinkSync(`/proc/${pid}/ns/pid`));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

let self: HostTag | undefined;

/** This process's tag (computed once). */
export function hostTag(): HostTag {
  self ??= {
    pid: Deno.pid,
    startTicks: processStartTicks(Deno.pid) ?? 0,
    pidNamespace: pidNamespaceOf("self"),
  };
  return self;
}

/** The tag as it appears in names: `<pid>-<startTicks>-<pidNamespace>`. */
export function formatHostTag(tag: HostTag = hostTag()): string {
  return `${tag.pid}-${tag.startTicks}-${tag.pidNamespace}`;
}

/** Parses what {@link formatHostTag} wrote, or `undefined`. */
export function parseHostTag(text: string): HostTag | undefined {
  const m = /^(\d+)-(\d+)-(\d+)$/.exec(text);
  if (!m) return undefined;
  return { pid: Number(m[1]), startTicks: Number(m[2]), pidNamespace: Number(m[3]) };
}

/**
 * True when the process a tag names has certainly exited. Anything in doubt
 * (another pid namespace, an unreadable `/proc`, this very process) counts
 * as alive: sweeping a live host's children would be far worse than
 * leaving a dead one's directory.
 */
export function ownerIsDead(tag: HostTag): boolean {
  const me = hostTag();
  if (tag.pid === me.pid && tag.startTicks === me.startTicks) return false;
  if (me.pidNamespace === 0 || tag.pidNamespace !== me.pidNamespace) return false;
  if (tag.startTicks === 0) return false;
  const ticks = processStartTicks(tag.pid);
  // Gone, or the pid now belongs to a process that started at another time.
  return ticks === undefined || ticks !== tag.startTicks;
}

/**
 * For names written before tags carried a start time (`cordon-<pid>-<hex>`):
 * dead only when no process has that pid now.
 */
export function legacyOwnerIsDead(pid: number): boolean {
  if (pid === Deno.pid || hostTag().startTicks === 0) return false;
  try {
    Deno.statSync(`/proc/${pid}`);
    return false;
  } catch (err) {
    return err instanceof Deno.errors.NotFound;
  }
}
