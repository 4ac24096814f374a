/**
 * Artifacts as stored: versioned files in a BLOB column. Saving over a name
 * adds a version; older versions stay until deleted. Lists and version
 * lists never read the bytes.
 *
 * @module
 */
import type { Db } from "./client.ts";

/** One version of an artifact as stored, without its bytes. */
export interface ArtifactRow {
  /** The namespace that owns it; names are unique within one. */
  namespace: string;
  name: string;
  version: number;
  mimeType: string;
  /** Bytes in `data`. */
  size: number;
  /** Lowercase hex SHA-256 of `data`. */
  sha256: string;
  sourceExecutionId?: string;
  createdAt: number;
}

/**
 * The name an execution's stored result takes in its namespace: one name per execution, so a
 * second write of the same run is a new version of it (or, with the same bytes, none at all),
 * and deleting the execution finds it without a scan.
 */
export function resultArtifactName(executionId: string): string {
  return `${RESULT_PREFIX}${executionId}${RESULT_SUFFIX}`;
}

const RESULT_PREFIX = "results/";
const RESULT_SUFFIX = ".json";

/**
 * Statements that delete the stored results of the executions `?, ?, …` (`list`) names: every
 * version under each one's result name in its namespace (the name belongs to the execution),
 * and the name's version counter (an execution id is never given again, so no later save can
 * take a number the deleted versions had). They read the executions' rows, so they run before
 * those are deleted; they find their rows by the tables' keys. Each takes the ids as its args.
 */
export function deleteResultsSql(list: string): string[] {
  const names = `SELECT namespace, '${RESULT_PREFIX}' || id || '${RESULT_SUFFIX}' FROM executions
    WHERE id IN (${list})`;
  return [
    `DELETE FROM artifacts WHERE (namespace, name) IN (${names})`,
    `DELETE FROM artifact_names WHERE (namespace, name) IN (${names})`,
  ];
}

/** Every column but the bytes. */
const INFO_COLUMNS =
  "namespace, name, version, mime_type, size, sha256, source_execution_id, created_at";

function toRow(r: Record<string, unknown>): ArtifactRow {
  const row: ArtifactRow = {
    namespace: String(r.namespace),
    name: String(r.name),
    version: Number(r.version),
    mimeType: String(r.mime_type),
    size: Number(r.size),
    sha256: String(r.sha256),
    createdAt: Number(r.created_at),
  };
  if (r.source_execution_id) row.sourceExecutionId = String(r.source_execution_id);
  return row;
}

/** The embedded engine gives a `Buffer`, a libSQL server an `ArrayBuffer`: one plain copy. */
function toBytes(value: unknown): Uint8Array<ArrayBuffer> {
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  }
  throw new TypeError(`An artifact's data column holds ${typeof value}, not bytes`);
}

/** Data access for artifacts. */
export class ArtifactStore {
  constructor(readonly db: Db) {}

  /** Saves `data` as the next version of `name`; returns the row with its version. */
  async save(row: Omit<ArtifactRow, "version">, data: Uint8Array): Promise<ArtifactRow> {
    // One transaction takes the next number from the per-name counter and stores the version:
    // two savers cannot take the same number, and a deleted number is never reused.
    const [, rs] = await this.db.batch([
      {
        sql: `INSERT INTO artifact_names (namespace, name, last_version) VALUES (?, ?, 1)
          ON CONFLICT (namespace, name) DO UPDATE SET last_version = last_version + 1`,
        args: [row.namespace, row.name],
      },
      {
        sql: `INSERT INTO artifacts (${INFO_COLUMNS}, data)
          SELECT ?, ?, last_version, ?, ?, ?, ?, ?, ?
          FROM artifact_names WHERE namespace = ? AND name = ?
          RETURNING version`,
        args: [
          row.namespace,
          row.name,
          row.mimeType,
          row.size,
          row.sha256,
          row.sourceExecutionId ?? null,
          row.createdAt,
          data,
          row.namespace,
          row.name,
        ],
      },
    ]);
    return { ...row, version: Number(rs.rows[0].version) };
  }

  /** The newest version of `name`, or a given one, with its bytes. */
  async get(
    namespace: string,
    name: string,
    version?: number,
  ): Promise<{ row: ArtifactRow; data: Uint8Array<ArrayBuffer> } | undefined> {
    const rs = version === undefined
      ? await this.db.execute({
        sql: `SELECT ${INFO_COLUMNS}, data FROM artifacts WHERE namespace = ? AND name = ?
          ORDER BY version DESC LIMIT 1`,
        args: [namespace, name],
      })
      : await this.db.execute({
        sql: `SELECT ${INFO_COLUMNS}, data FROM artifacts
          WHERE namespace = ? AND name = ? AND version = ?`,
        args: [namespace, name, version],
      });
    const r = rs.rows[0] as Record<string, unknown> | undefined;
    return r ? { row: toRow(r), data: toBytes(r.data) } : undefined;
  }

  /**
   * Part of one version's bytes: `length` bytes from `offset` (fewer at the end), with the
   * version's row; `undefined` if there is no such version. Only that part is read: a page of
   * a large artifact costs its own size, not the artifact's.
   */
  async slice(
    namespace: string,
    name: string,
    version: number | undefined,
    offset: number,
    length: number,
  ): Promise<{ row: ArtifactRow; data: Uint8Array<ArrayBuffer> } | undefined> {
    const which = version === undefined ? "ORDER BY version DESC LIMIT 1" : "AND version = ?";
    const rs = await this.db.execute({
      sql: `SELECT ${INFO_COLUMNS}, substr(data, ?, ?) AS part FROM artifacts
        WHERE namespace = ? AND name = ? ${which}`,
      args: [offset + 1, length, namespace, name, ...(version === undefined ? [] : [version])],
    });
    const r = rs.rows[0] as Record<string, unknown> | undefined;
    if (!r) return undefined;
    // substr() of an empty stretch is an empty BLOB, which a driver may give as null.
    const data = r.part === null || r.part === undefined ? new Uint8Array(0) : toBytes(r.part);
    return { row: toRow(r), data };
  }

  /**
   * The newest version of each name in a namespace, by name, starting with `prefix` and after
   * the name `after`; at most `limit`.
   */
  async latest(
    namespace: string,
    options: { prefix?: string; after?: string; limit: number },
  ): Promise<ArtifactRow[]> {
    const where = ["namespace = ?"];
    const args: (string | number)[] = [namespace];
    if (options.prefix) {
      where.push("substr(name, 1, ?) = ?");
      args.push(options.prefix.length, options.prefix);
    }
    if (options.after !== undefined) {
      where.push("name > ?");
      args.push(options.after);
    }
    const rs = await this.db.execute({
      sql: `SELECT ${INFO_COLUMNS} FROM artifacts a
        WHERE ${where.join(" AND ")}
          AND version = (SELECT MAX(version) FROM artifacts
            WHERE namespace = a.namespace AND name = a.name)
        ORDER BY name LIMIT ?`,
      args: [...args, options.limit],
    });
    return rs.rows.map((r) => toRow(r as Record<string, unknown>));
  }

  /** Every version of `name`, newest first, without bytes. */
  async versions(namespace: string, name: string): Promise<ArtifactRow[]> {
    const rs = await this.db.execute({
      sql: `SELECT ${INFO_COLUMNS} FROM artifacts WHERE namespace = ? AND name = ?
        ORDER BY version DESC`,
      args: [namespace, name],
    });
    return rs.rows.map((r) => toRow(r as Record<string, unknown>));
  }

  /** Deletes one version of `name`, or every version; false if there was none. */
  async delete(namespace: string, name: string, version?: number): Promise<boolean> {
    const rs = version === undefined
      ? await this.db.execute({
        sql: "DELETE FROM artifacts WHERE namespace = ? AND name = ?",
        args: [namespace, name],
      })
      : await this.db.execute({
        sql: "DELETE FROM artifacts WHERE namespace = ? AND name = ? AND version = ?",
        args: [namespace, name, version],
      });
    return rs.rowsAffected > 0;
  }
}
