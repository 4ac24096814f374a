/**
 * Room in the host's file-descriptor table, made once per process, off the event loop.
 *
 * Linux grows a process's descriptor table by doubling it when a new descriptor does not fit
 * (64, 128, 256, 512, 1024 entries). In a process with more than one thread, as every Deno
 * process is, each growth waits for an RCU grace period (`expand_fdtable` calls
 * `synchronize_rcu`) inside the system call that needed the descriptor: 15–22 ms measured on
 * the 2-core host while children boot. A child holds about 4.6 of the host's descriptors (its
 * pipes and its process handle), so the first burst of 50 runs in a fresh process grew the table
 * two or three times, each inside a spawn on the host's thread: its longest stall was 9–33 ms
 * against 4.6–7.5 ms once the table had room (docs/benchmarks.md, issue 14, round 6).
 *
 * {@link makeFdRoom} opens `/dev/null` with Deno's asynchronous `open`, which runs on a thread of
 * its blocking pool, until the table holds {@link FD_ROOM_ENTRIES} entries (room for about 200
 * children), then closes what it opened. The table never shrinks, so the growths are done there,
 * at start, once. It is best effort: anywhere it cannot look (no `/proc`, no permission to open
 * `/dev/null`) it does nothing, as the kernel then grows the table where it always did.
 *
 * @module
 */

/** Entries the table is grown to: a power of two, as the kernel sizes it. */
export const FD_ROOM_ENTRIES = 1024;

/** Descriptors opened at once while the table grows (a blocking-pool thread each). */
const OPEN_BATCH = 8;

let made: Promise<void> | undefined;

/** The table's size now (`FDSize` in `/proc/self/status`), or undefined where it cannot be read. */
export async function fdTableSize(): Promise<number | undefined> {
  const status = await Deno.readTextFile("/proc/self/status").catch(() => "");
  const size = /^FDSize:\s*(\d+)/m.exec(status)?.[1];
  return size === undefined ? undefined : Number(size);
}

/** The soft limit on open descriptors (`/proc/self/limits`), or undefined. */
async function openFileLimit(): Promise<number | undefined> {
  const limits = await Deno.readTextFile("/proc/self/limits").catch(() => "");
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
  if (soft === undefined) return undefined;
  return soft === "unlimited" ? Number.MAX_SAFE_INTEGER : Number(soft);
}

/** Descriptors open now, or undefined. */
async function openCount(): Promise<number | undefined> {
  try {
    let n = 0;
    for await (const _ of Deno.readDir("/proc/self/fd")) n++;
    return n;
  } catch {
    return undefined;
  }
}

async function grow(entries: number): Promise<void> {
  if (Deno.build.os !== "linux") return;
  const size = await fdTableSize();
  const limit = await openFileLimit();
  const open = await openCount();
  if (size === undefined || limit === undefined || open === undefined) return;
  // A descriptor numbered entries / 2 makes the kernel size the table to `entries`. Half the
  // soft limit at most: the room made never leaves others short of descriptors meanwhile.
  const highest = Math.min(entries / 2, Math.floor(limit / 2));
  if (size > highest) return;
  const files: Deno.FsFile[] = [];
  try {
    // Descriptors are handed out lowest first, so once `highest + 1` are open one is numbered
    // `highest` or more; the count may be off by the few others open or close meanwhile, so
    // the table's size says when it is done (a few batches more at most, within the cap).
    const ceiling = Math.min(highest + 4 * OPEN_BATCH, Math.floor(limit / 2));
    for (let have = open; have <= ceiling;) {
      if (have > highest && ((await fdTableSize()) ?? entries) > highest) return;
      const batch = Math.min(OPEN_BATCH, ceiling + 1 - have);
      const opened = await Promise.allSettled(
        Array.from({ length: batch }, () => Deno.open("/dev/null")),
      );
      have += batch;
      for (const r of opened) if (r.status === "fulfilled") files.push(r.value);
      if (opened.some((r) => r.status === "rejected")) return;
    }
  } finally {
    for (const f of files) f.close();
  }
}

/**
 * Grows the host's descriptor table to `entries` (default {@link FD_ROOM_ENTRIES}) once per
 * process; later calls share the first. Never rejects.
 *
 * @example
 * ```ts ignore
 * import { makeFdRoom } from "./fd_room.ts";
 * await makeFdRoom();
 * ```
 */
export function makeFdRoom(entries = FD_ROOM_ENTRIES): Promise<void> {
  return made ??= grow(entries).catch(() => {});
}
