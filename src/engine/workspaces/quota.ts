/**
 * The workspace quota: bytes and entries (files, directories, symlinks). A run of empty files
 * costs no bytes but an inode and a stat each, so entries are bounded too.
 *
 * @module
 */
import { join } from "node:path";
import { type ErrorInfo, errorInfo } from "../../errors.ts";
import { WORKSPACE_DEFAULTS } from "./types.ts";

/** Entries stat'ed at once while counting: enough to keep the disk busy, few open handles. */
const USAGE_BATCH = 256;

/** What a workspace holds: bytes of its files, and entries of every kind (files, dirs, links). */
export interface WorkspaceUsage {
  bytes: number;
  entries: number;
}

/**
 * Counts a workspace's bytes and entries, never following a symlink. Counting stops once it
 * passes `maxEntries` (the caller only needs to know it is over), so a flood of empty files
 * costs the host a bounded walk.
 */
export async function workspaceUsage(dir: string, maxEntries: number): Promise<WorkspaceUsage> {
  const usage: WorkspaceUsage = { bytes: 0, entries: 0 };
  const dirs = [dir];
  while (dirs.length > 0 && usage.entries <= maxEntries) {
    const current = dirs.pop()!;
    let files: string[] = [];
    const sizeOf = async (batch: string[]) => {
      const infos = await Promise.all(batch.map((f) => Deno.lstat(f).catch(() => undefined)));
      for (const info of infos) usage.bytes += info?.size ?? 0;
    };
    for await (const e of Deno.readDir(current)) {
      usage.entries++;
      if (usage.entries > maxEntries) break;
      if (e.isDirectory) dirs.push(join(current, e.name));
      else if (e.isFile) files.push(join(current, e.name));
      if (files.length >= USAGE_BATCH) {
        await sizeOf(files);
        files = [];
      }
    }
    await sizeOf(files);
  }
  return usage;
}

/** The quota a run's workspace is held to. */
export interface WorkspaceQuota {
  dir: string;
  quotaBytes: number;
  /** Absent in rows written before the entry quota: the default applies. */
  quotaEntries?: number;
}

/** The `limit_exceeded` error when the workspace is over its quota, else undefined. */
export async function quotaError(ws: WorkspaceQuota): Promise<ErrorInfo | undefined> {
  const quotaEntries = ws.quotaEntries ?? WORKSPACE_DEFAULTS.quotaEntries;
  const { bytes, entries } = await workspaceUsage(ws.dir, quotaEntries);
  if (entries > quotaEntries) {
    return errorInfo(
      "limit_exceeded",
      `The workspace holds more than ${quotaEntries} entries (files, directories, links), over its quota; write fewer, larger files`,
      { entries, quotaEntries },
    );
  }
  if (bytes <= ws.quotaBytes) return undefined;
  return errorInfo(
    "limit_exceeded",
    `The workspace holds ${bytes} bytes, over its ${ws.quotaBytes}-byte quota`,
    { bytes, quotaBytes: ws.quotaBytes },
  );
}

/** How often a running workspace's quota is checked, in ms: a loop writing fast is stopped soon. */
const QUOTA_CHECK_MS = 250;

/** Calls `onOver` once the workspace holds more than its quota, until `signal` aborts. */
export function watchQuota(
  ws: WorkspaceQuota,
  signal: AbortSignal,
  onOver: (error: ErrorInfo) => void,
): void {
  let checking = false;
  const timer = setInterval(async () => {
    if (checking) return;
    checking = true;
    try {
      const over = await quotaError(ws);
      if (over) onOver(over);
    } catch {
      // The directory changed while it was walked; the next check sees it.
    } finally {
      checking = false;
    }
  }, QUOTA_CHECK_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
