/**
 * The artifacts part of the runtime's API ({@link ArtifactsApi}): versioned files kept in the
 * runtime's database, by namespace and name. Saving over a name adds a
 * version; a reference is `name` (the newest), `name@version`, or either
 * behind `artifact://`.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { ArtifactRow, ArtifactStore } from "../../store/artifacts.ts";
import {
  checkArtifactName,
  checkArtifactVersion,
  MAX_ARTIFACT_NAME_CHARS,
  parseArtifactRef,
} from "./ref.ts";
import { checkMimeType, mimeTypeOf, OCTET_STREAM, PLAIN_TEXT } from "./mime.ts";
import { type ReadResultOptions, readResultPage, type ResultPage } from "./pages.ts";
import type { InNamespace } from "../common/namespace.ts";
import { sha256Hex } from "../../hash.ts";
import { pageLimit } from "../common/paging.ts";
import { checkNamespace } from "../common/namespace.ts";

/**
 * The default size cap of one artifact version (32 MiB). A version is read and written whole
 * (libSQL has no streaming BLOB API, and a libSQL server sends it in one message), and every
 * version is kept, so the cap bounds both one request's memory and how fast a loop can fill the
 * database. Larger files belong in object storage, with their URL in an artifact.
 */
export const DEFAULT_ARTIFACT_MAX_BYTES = 32 * 1024 * 1024;
/** The most `maxBytes` may be: SQLite's default limit on one value (`SQLITE_MAX_LENGTH`). */
export const MAX_ARTIFACT_MAX_BYTES = 1_000_000_000;
/** A page of artifacts holds this many unless asked otherwise. */
/** An execution id is short; anything longer is not one. */
const MAX_SOURCE_ID_CHARS = 200;

/** Artifact settings of a runtime. */
export interface ArtifactsOptions {
  /**
   * The most bytes one artifact version may hold (default {@link DEFAULT_ARTIFACT_MAX_BYTES},
   * at most 1,000,000,000). Larger saves fail with `limit_exceeded`.
   */
  maxBytes?: number;
}

/** One version of an artifact, without its bytes. */
export interface ArtifactInfo {
  /** Its name: up to 8 `/`-separated parts of letters, digits, `.`, `_` and `-`. */
  name: string;
  /** This version's number, from 1; each save under the name adds one. */
  version: number;
  /** Its media type, as given or guessed from the name's extension. */
  mimeType: string;
  /** Its length in bytes. */
  size: number;
  /** The lowercase hex SHA-256 of its bytes. */
  sha256: string;
  /** When this version was saved, in ms since the epoch. */
  createdAt: number;
  /** `name@version`: what {@link ArtifactsApi.artifact} reads this exact version by. */
  ref: string;
  /** The namespace that owns it. */
  namespace: string;
  /** The execution that produced it, when the saver said so. */
  sourceExecutionId?: string;
}

/** What {@link ArtifactsApi.saveArtifact} takes. */
export interface SaveArtifactOptions extends InNamespace {
  /** The name to save under; saving over an existing name adds a version. */
  name: string;
  /** The bytes, or a string stored as UTF-8. */
  data: Uint8Array | string;
  /**
   * Its media type. Default: from the name's extension for common types, else
   * `text/plain; charset=utf-8` for a string and `application/octet-stream` for bytes.
   */
  mimeType?: string;
  /** The execution that produced it, kept for provenance (it is not checked). */
  sourceExecutionId?: string;
}

/** What {@link ArtifactsApi.artifacts} takes. */
export interface ListArtifactsOptions extends InNamespace {
  /** Only names starting with this (`reports/`). */
  prefix?: string;
  /** The most items on a page, 1 to 500 (default 50). */
  limit?: number;
  /** The `nextCursor` of the page before. */
  cursor?: string;
}

/** A page of artifacts, by name. */
export interface ArtifactPage {
  /** The newest version of each name, in name order. */
  items: ArtifactInfo[];
  /** Pass back as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

/** One artifact version with its bytes. */
export interface ArtifactContent {
  /** What it is. */
  info: ArtifactInfo;
  /** Its bytes, exactly as saved (a fresh copy, backed by an `ArrayBuffer`). */
  data: Uint8Array<ArrayBuffer>;
}

/** What {@link ArtifactsApi.deleteArtifact} takes. */
export interface DeleteArtifactOptions extends InNamespace {
  /** The one version to delete; absent deletes every version. */
  version?: number;
}

/** Returns the artifact size cap `options` ask for; throws `invalid_request` for a bad one. */
export function artifactMaxBytes(options: ArtifactsOptions | undefined): number {
  const maxBytes = options?.maxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_ARTIFACT_MAX_BYTES) {
    throw new CordonError(
      "invalid_request",
      `artifacts.maxBytes must be a whole number from 1 to ${MAX_ARTIFACT_MAX_BYTES}; got ${maxBytes}`,
    );
  }
  return maxBytes;
}

/** The public shape of a stored row. */
export function toArtifactInfo(r: ArtifactRow): ArtifactInfo {
  const info: ArtifactInfo = {
    name: r.name,
    version: r.version,
    mimeType: r.mimeType,
    size: r.size,
    sha256: r.sha256,
    createdAt: r.createdAt,
    ref: `${r.name}@${r.version}`,
    namespace: r.namespace,
  };
  if (r.sourceExecutionId) info.sourceExecutionId = r.sourceExecutionId;
  return info;
}

/** A cursor is the last name of the page before, opaque to callers. */
function afterName(cursor: unknown): string | undefined {
  if (cursor === undefined) return undefined;
  let name: unknown;
  try {
    name = atob(String(cursor));
  } catch { /* reported below */ }
  try {
    return checkArtifactName(name);
  } catch {
    throw new CordonError("invalid_request", `Invalid artifacts cursor ${JSON.stringify(cursor)}`);
  }
}

/** The artifacts part of the runtime's API. */
export interface ArtifactsApi {
  /**
   * Saves a file as the next version of `options.name` (version 1 for a new name). Throws
   * `invalid_request` for a bad name or media type and `limit_exceeded` past
   * `RuntimeOptions.artifacts.maxBytes`; nothing is stored then.
   */
  saveArtifact(options: SaveArtifactOptions): Promise<ArtifactInfo>;
  /** The newest version of each artifact in a namespace, by name, without bytes; paged. */
  artifacts(options?: ListArtifactsOptions): Promise<ArtifactPage>;
  /**
   * One version with its bytes: `ref` is `name` (the newest), `name@version`, or either behind
   * `artifact://`. `undefined` if there is no such artifact or version.
   */
  artifact(ref: string, options?: InNamespace): Promise<ArtifactContent | undefined>;
  /** Every version of an artifact, newest first, without bytes; empty if there is none. */
  artifactVersions(name: string, options?: InNamespace): Promise<ArtifactInfo[]>;
  /**
   * Deletes one version of an artifact, or every version; false if there was none. A deleted
   * version's number is never given again, so `name@N` always means the same bytes.
   */
  deleteArtifact(name: string, options?: DeleteArtifactOptions): Promise<boolean>;
  /**
   * One page of a stored result's JSON text (or of any text artifact): `resultRef` as a
   * result's `meta.resultRef` gives it, `cursor` the page before's `nextCursor`, `limit` in
   * bytes (default 16,000, at most 1 MiB). Another namespace's reference is `not_found`.
   */
  readResult(options: ReadResultOptions): Promise<ResultPage>;
}

/**
 * Builds the artifacts API over a store. `maxBytes` caps one version; `assertOpen` throws
 * once the runtime is closed.
 */
export function artifactsApi(
  store: ArtifactStore,
  maxBytes: number,
  assertOpen: () => void,
): ArtifactsApi {
  return {
    async saveArtifact(o) {
      assertOpen();
      const name = checkArtifactName(o?.name);
      const namespace = checkNamespace(o.namespace);
      if (typeof o.data !== "string" && !(o.data instanceof Uint8Array)) {
        throw new CordonError("invalid_request", "An artifact's data is a Uint8Array or a string");
      }
      const mimeType = o.mimeType === undefined
        ? mimeTypeOf(name) ?? (typeof o.data === "string" ? PLAIN_TEXT : OCTET_STREAM)
        : checkMimeType(o.mimeType);
      if (
        o.sourceExecutionId !== undefined &&
        (typeof o.sourceExecutionId !== "string" || o.sourceExecutionId === "" ||
          o.sourceExecutionId.length > MAX_SOURCE_ID_CHARS)
      ) {
        throw new CordonError("invalid_request", "sourceExecutionId must be an execution id");
      }
      // A copy: the caller may reuse its buffer while the save is under way.
      const data = typeof o.data === "string"
        ? new TextEncoder().encode(o.data)
        : new Uint8Array(o.data);
      if (data.byteLength > maxBytes) {
        throw new CordonError(
          "limit_exceeded",
          `Artifact "${name}" is ${data.byteLength} bytes; the most one version may hold is ${maxBytes}`,
          { details: { size: data.byteLength, maxBytes } },
        );
      }
      const row = await store.save({
        namespace,
        name,
        mimeType,
        size: data.byteLength,
        sha256: await sha256Hex(data),
        sourceExecutionId: o.sourceExecutionId,
        createdAt: Date.now(),
      }, data);
      return toArtifactInfo(row);
    },
    async artifacts(o = {}) {
      assertOpen();
      const namespace = checkNamespace(o.namespace);
      const limit = pageLimit(o.limit, "An artifacts");
      const prefix = o.prefix ?? "";
      if (typeof prefix !== "string" || prefix.length > MAX_ARTIFACT_NAME_CHARS) {
        throw new CordonError(
          "invalid_request",
          `An artifacts prefix is a string of at most ${MAX_ARTIFACT_NAME_CHARS} characters`,
        );
      }
      const rows = await store.latest(namespace, {
        prefix,
        after: afterName(o.cursor),
        limit: limit + 1,
      });
      const items = rows.slice(0, limit).map(toArtifactInfo);
      return rows.length > limit ? { items, nextCursor: btoa(items[limit - 1].name) } : { items };
    },
    async artifact(ref, o) {
      assertOpen();
      const { name, version } = parseArtifactRef(ref);
      const found = await store.get(checkNamespace(o?.namespace), name, version);
      return found && { info: toArtifactInfo(found.row), data: found.data };
    },
    async artifactVersions(name, o) {
      assertOpen();
      const rows = await store.versions(checkNamespace(o?.namespace), checkArtifactName(name));
      return rows.map(toArtifactInfo);
    },
    async deleteArtifact(name, o) {
      assertOpen();
      const namespace = checkNamespace(o?.namespace);
      const version = o?.version === undefined ? undefined : checkArtifactVersion(o.version);
      return await store.delete(namespace, checkArtifactName(name), version);
    },
    readResult(o) {
      assertOpen();
      return readResultPage(store, o);
    },
  };
}
