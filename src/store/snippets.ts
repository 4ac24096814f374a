/**
 * Saved snippets: code that worked, promoted from a completed execution and
 * run later by name. Saving over a name adds a version; the older versions
 * stay (a caller can look back), and the newest is the one that runs.
 *
 * @module
 */
import type { Db } from "./client.ts";

/** A JSON Schema as stored; the connectors layer above gives it meaning. */
type JsonSchema = Record<string, unknown>;

/** One version of a snippet as stored. */
export interface SnippetRow {
  /** The namespace that owns it; names are unique within one. */
  namespace: string;
  name: string;
  version: number;
  description: string;
  code: string;
  inputSchema?: JsonSchema;
  /** Connectors the code uses; it refuses to run without them. */
  connectors: string[];
  /** The declarations it was checked against. */
  declarationHash: string;
  sourceExecutionId?: string;
  /** It no longer type-checks against the current declarations. */
  stale: boolean;
  createdAt: number;
}

const COLUMNS =
  "namespace, name, version, description, code, input_schema, connectors, declaration_hash, source_execution_id, stale, created_at";

function toRow(r: Record<string, unknown>): SnippetRow {
  const row: SnippetRow = {
    namespace: String(r.namespace),
    name: String(r.name),
    version: Number(r.version),
    description: String(r.description),
    code: String(r.code),
    connectors: JSON.parse(String(r.connectors)),
    declarationHash: String(r.declaration_hash),
    stale: Number(r.stale) === 1,
    createdAt: Number(r.created_at),
  };
  if (r.input_schema !== null && r.input_schema !== undefined) {
    row.inputSchema = JSON.parse(String(r.input_schema));
  }
  if (r.source_execution_id) row.sourceExecutionId = String(r.source_execution_id);
  return row;
}

/** Data access for snippets. */
export class SnippetStore {
  constructor(readonly db: Db) {}

  /** Saves a new version under `name`; returns it with its version number. */
  async save(row: Omit<SnippetRow, "version" | "stale">): Promise<SnippetRow> {
    // One statement picks the next version, so two savers cannot take the same one.
    const rs = await this.db.execute({
      sql: `INSERT INTO snippets (${COLUMNS})
        SELECT ?, ?, COALESCE(MAX(version), 0) + 1, ?, ?, ?, ?, ?, ?, 0, ?
        FROM snippets WHERE namespace = ? AND name = ?
        RETURNING version`,
      args: [
        row.namespace,
        row.name,
        row.description,
        row.code,
        row.inputSchema === undefined ? null : JSON.stringify(row.inputSchema),
        JSON.stringify(row.connectors),
        row.declarationHash,
        row.sourceExecutionId ?? null,
        row.createdAt,
        row.namespace,
        row.name,
      ],
    });
    return { ...row, version: Number(rs.rows[0].version), stale: false };
  }

  /** The newest version of `name`, or a given one. */
  async get(namespace: string, name: string, version?: number): Promise<SnippetRow | undefined> {
    const rs = version === undefined
      ? await this.db.execute({
        sql:
          `SELECT ${COLUMNS} FROM snippets WHERE namespace = ? AND name = ? ORDER BY version DESC LIMIT 1`,
        args: [namespace, name],
      })
      : await this.db.execute({
        sql: `SELECT ${COLUMNS} FROM snippets WHERE namespace = ? AND name = ? AND version = ?`,
        args: [namespace, name, version],
      });
    const r = rs.rows[0];
    return r ? toRow(r as Record<string, unknown>) : undefined;
  }

  /** The newest version of every snippet, by namespace and name (one namespace if given). */
  async latest(namespace?: string): Promise<SnippetRow[]> {
    const rs = await this.db.execute({
      sql: `SELECT ${COLUMNS} FROM snippets s
        WHERE version = (SELECT MAX(version) FROM snippets
          WHERE namespace = s.namespace AND name = s.name)
        ${namespace === undefined ? "" : "AND namespace = ?"}
        ORDER BY namespace, name`,
      args: namespace === undefined ? [] : [namespace],
    });
    return rs.rows.map((r) => toRow(r as Record<string, unknown>));
  }

  /** Every version of `name`, newest first. */
  async versions(namespace: string, name: string): Promise<SnippetRow[]> {
    const rs = await this.db.execute({
      sql: `SELECT ${COLUMNS} FROM snippets WHERE namespace = ? AND name = ? ORDER BY version DESC`,
      args: [namespace, name],
    });
    return rs.rows.map((r) => toRow(r as Record<string, unknown>));
  }

  /** Records the result of checking a version against newer declarations. */
  async markChecked(
    namespace: string,
    name: string,
    version: number,
    declarationHash: string,
    stale: boolean,
  ): Promise<void> {
    await this.db.execute({
      sql:
        "UPDATE snippets SET declaration_hash = ?, stale = ? WHERE namespace = ? AND name = ? AND version = ?",
      args: [declarationHash, stale ? 1 : 0, namespace, name, version],
    });
  }

  /** Deletes every version of `name`; false if there was none. */
  async delete(namespace: string, name: string): Promise<boolean> {
    const rs = await this.db.execute({
      sql: "DELETE FROM snippets WHERE namespace = ? AND name = ?",
      args: [namespace, name],
    });
    return rs.rowsAffected > 0;
  }
}
