/**
 * `metadata.json` at a workspace's root, as the executor document shapes it
 * (its JSON keys are the document's snake_case tags): staged skills, input
 * and output records, prepared (bootstrap) records, and the times.
 *
 * The file lives inside the workspace, so the script may rewrite it: it is
 * read bounded, never through a symlink, checked field by field, and when it
 * is not what the host wrote it is re-created, never a crash. Nothing in it
 * grants access: it only records, and at worst a forged record makes the
 * host skip or repeat its own setup of that same workspace.
 *
 * @module
 */
import { join } from "node:path";
import { CordonError } from "../../errors.ts";
import { META_FILE_NAME } from "./layout.ts";

/** The metadata format version this runtime writes. */
export const METADATA_VERSION = 1;
/** The largest metadata.json read; a bigger one is not the host's and is re-created. */
export const MAX_METADATA_BYTES = 1024 * 1024;
/** Input and output records kept (the newest): a workspace reused for weeks stays small. */
export const MAX_METADATA_RECORDS = 200;

/** A staged skill snapshot. */
export interface SkillMeta {
  /** Its name. */
  name: string;
  /** Where it is staged, relative to the workspace (`skills/<name>`). */
  rel_path: string;
  /** The {@link dirDigest} of the staged tree. */
  digest: string;
  /** Always false here: skills are copied, never mounted. */
  mounted: boolean;
  /** ISO time. */
  staged_at: string;
}

/** One staged input. */
export interface InputRecord {
  /** The source URI. */
  from: string;
  /** The workspace-relative destination. */
  to: string;
  /** What `from` resolved to (`name@version` for an artifact). */
  resolved?: string;
  /** The artifact version staged. */
  version?: number;
  /** `copy` (what was done); `link` when asked, see {@link InputSpec}. */
  mode?: string;
  /** Pinned: later stages of this input use {@link InputRecord.version}. */
  pin?: boolean;
  /** ISO time. */
  ts: string;
}

/** One output collection. */
export interface OutputRecord {
  /** The globs matched. */
  globs: string[];
  /** Artifact names saved. */
  saved_as?: string[];
  /** Their versions, in the same order. */
  versions?: number[];
  /** A bound stopped or thinned the collection. */
  limits_hit: boolean;
  /** ISO time. */
  ts: string;
}

/** One bootstrap step applied successfully. */
export interface PreparedRecord {
  /** Its stable key. */
  key: string;
  /** `file` or `command`. */
  kind: string;
  /** The SHA-256 of what it depends on. */
  fingerprint: string;
  /** Its workspace-relative target. */
  target?: string;
  /** ISO time. */
  prepared_at: string;
}

/** What metadata.json holds. */
export interface WorkspaceMetadata {
  /** The format version. */
  version: number;
  /** ISO time it was created. */
  created_at: string;
  /** ISO time it was last written. */
  updated_at: string;
  /** ISO time of the last use. */
  last_access: string;
  /** Staged skills by name. */
  skills: Record<string, SkillMeta>;
  /** Inputs staged, in order. */
  inputs?: InputRecord[];
  /** Output collections, oldest first. */
  outputs?: OutputRecord[];
  /** Bootstrap steps applied, by key. */
  prepared?: Record<string, PreparedRecord>;
}

/** Fresh metadata, every time `now`. */
export function newMetadata(now: Date = new Date()): WorkspaceMetadata {
  const t = now.toISOString();
  return { version: METADATA_VERSION, created_at: t, updated_at: t, last_access: t, skills: {} };
}

const isStr = (v: unknown): v is string => typeof v === "string" && v.length <= 4096;
const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);
const isInt = (v: unknown) => Number.isSafeInteger(v);

function isSkill(v: unknown): boolean {
  return isObj(v) && isStr(v.name) && isStr(v.rel_path) && isStr(v.digest) &&
    typeof v.mounted === "boolean" && isStr(v.staged_at);
}
function isInput(v: unknown): boolean {
  return isObj(v) && isStr(v.from) && isStr(v.to) && optional(v.resolved, isStr) &&
    optional(v.version, isInt) && optional(v.mode, isStr) &&
    optional(v.pin, (p) => typeof p === "boolean") && isStr(v.ts);
}
function isOutput(v: unknown): boolean {
  return isObj(v) && Array.isArray(v.globs) && v.globs.every(isStr) &&
    optional(v.saved_as, (s) => Array.isArray(s) && s.every(isStr)) &&
    optional(v.versions, (s) => Array.isArray(s) && s.every(isInt)) &&
    typeof v.limits_hit === "boolean" && isStr(v.ts);
}
function isPrepared(v: unknown): boolean {
  return isObj(v) && isStr(v.key) && isStr(v.kind) && isStr(v.fingerprint) &&
    optional(v.target, isStr) && isStr(v.prepared_at);
}

/** True when `v` has the shape of {@link WorkspaceMetadata}, every field checked. */
export function isWorkspaceMetadata(v: unknown): v is WorkspaceMetadata {
  if (!isObj(v) || !isInt(v.version) || !isStr(v.created_at) || !isStr(v.updated_at)) return false;
  if (!isStr(v.last_access) || !isObj(v.skills)) return false;
  if (!Object.values(v.skills).every(isSkill)) return false;
  if (!optional(v.inputs, (a) => Array.isArray(a) && a.every(isInput))) return false;
  if (!optional(v.outputs, (a) => Array.isArray(a) && a.every(isOutput))) return false;
  return optional(v.prepared, (p) => isObj(p) && Object.values(p).every(isPrepared));
}

/** What {@link loadMetadata} found. */
export interface LoadedMetadata {
  /** The metadata to use. */
  metadata: WorkspaceMetadata;
  /**
   * Why the file on disk was not used (absent: it was, or there was none): a typed
   * `invalid_state` error the caller may report; the metadata returned is fresh.
   */
  error?: CordonError;
}

/**
 * Reads `<root>/metadata.json`. Missing: fresh metadata, no error. Not a regular file, over
 * {@link MAX_METADATA_BYTES}, not JSON, or not the documented shape: fresh metadata and an
 * `invalid_state` error saying why (nothing is thrown; {@link saveMetadata} then re-creates it).
 */
export async function loadMetadata(root: string): Promise<LoadedMetadata> {
  const path = join(root, META_FILE_NAME);
  const refuse = (why: string): LoadedMetadata => ({
    metadata: newMetadata(),
    error: new CordonError("invalid_state", `The workspace's ${META_FILE_NAME} ${why}; re-created`),
  });
  const info = await Deno.lstat(path).catch(() => undefined);
  if (!info) return { metadata: newMetadata() };
  if (!info.isFile) return refuse("is not a regular file");
  if (info.size > MAX_METADATA_BYTES) return refuse(`is over ${MAX_METADATA_BYTES} bytes`);
  let parsed: unknown;
  try {
    using file = await Deno.open(path, { read: true });
    // Sized by the stat, one byte over to see growth since; never past the bound.
    const buffer = new Uint8Array(Math.min(info.size, MAX_METADATA_BYTES) + 1);
    let filled = 0;
    for (;;) {
      const n = await file.read(buffer.subarray(filled));
      if (n === null || (filled += n) >= buffer.length) break;
    }
    if (filled > info.size) return refuse("changed while it was read");
    parsed = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, filled)),
    );
  } catch {
    return refuse("is not JSON");
  }
  if (!isWorkspaceMetadata(parsed)) return refuse("does not have the documented shape");
  return { metadata: parsed };
}

/**
 * Writes `<root>/metadata.json` (its `updated_at` set now, records trimmed to the newest
 * {@link MAX_METADATA_RECORDS}). Whatever is at that path is replaced, never written through:
 * the new file is written beside it and renamed over it.
 */
export async function saveMetadata(root: string, md: WorkspaceMetadata): Promise<void> {
  md.updated_at = new Date().toISOString();
  if (md.inputs) md.inputs = md.inputs.slice(-MAX_METADATA_RECORDS);
  if (md.outputs) md.outputs = md.outputs.slice(-MAX_METADATA_RECORDS);
  const path = join(root, META_FILE_NAME);
  const info = await Deno.lstat(path).catch(() => undefined);
  if (info?.isDirectory) await Deno.remove(path, { recursive: true });
  const temp = join(root, `.${META_FILE_NAME}.${crypto.randomUUID()}`);
  await Deno.writeTextFile(temp, JSON.stringify(md, null, 2), { createNew: true });
  await Deno.rename(temp, path);
}

/**
 * Loads, changes and saves the metadata in one step (`change` may mutate it); returns the
 * load error, if the file had to be re-created. Calls on one workspace are queued in this
 * process so two updates never lose each other's records.
 */
export async function updateMetadata(
  root: string,
  change: (md: WorkspaceMetadata) => void,
): Promise<CordonError | undefined> {
  const before = queues.get(root) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  const tail = before.then(() => mine);
  queues.set(root, tail);
  await before;
  try {
    const { metadata, error } = await loadMetadata(root);
    metadata.last_access = new Date().toISOString();
    change(metadata);
    await saveMetadata(root, metadata);
    return error;
  } finally {
    release();
    if (queues.get(root) === tail) queues.delete(root);
  }
}

const queues = new Map<string, Promise<void>>();
