/**
 * A workspace's owner record, `<root>/<id>.json` beside its directory (not
 * in it: the script cannot rewrite who owns it): its namespace and the
 * fingerprint of the legacy file bootstrap. Its mtime is the last use.
 *
 * @module
 */
import { join } from "node:path";
import { WORKSPACE_ID } from "./request.ts";

/** What the owner record holds. */
export interface OwnerRecord {
  /** The namespace that owns the workspace. */
  namespace: string;
  /** The fingerprint of the last legacy file bootstrap. */
  bootstrap?: string;
  /** The policy it was created with by a workspace engine's manager. */
  policy?: { persist: boolean; maxDiskBytes?: number };
}

/** The owner record's path. */
export function metaPath(root: string, id: string): string {
  return join(root, `${id}.json`);
}

/** The owner record of `id`, or undefined (no such workspace, or not a workspace id). */
export async function readMeta(root: string, id: string): Promise<OwnerRecord | undefined> {
  if (!WORKSPACE_ID.test(id)) return undefined;
  try {
    return JSON.parse(await Deno.readTextFile(metaPath(root, id)));
  } catch {
    return undefined;
  }
}

/** Writes the owner record. */
export async function writeMeta(root: string, id: string, meta: OwnerRecord): Promise<void> {
  await Deno.writeTextFile(metaPath(root, id), JSON.stringify(meta));
}
