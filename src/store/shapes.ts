/**
 * Observed output shapes of tools, one row per namespace and tool, merged as results arrive.
 * Only structure is stored (see `connectors/shape.ts`), never values; and only the namespace
 * whose results produced a shape is shown it, since field names can be data too.
 *
 * @module
 */
import type { Db } from "./client.ts";

/** A stored shape: opaque JSON to this layer, validated by the caller. */
export interface ShapeRow {
  /** The tenant whose results it was learned from. */
  namespace: string;
  connector: string;
  tool: string;
  shape: unknown;
  samples: number;
  updatedAt: number;
}

/** Data access for observed shapes. */
export class ShapeStore {
  constructor(readonly db: Db) {}

  async get(namespace: string, connector: string, tool: string): Promise<ShapeRow | undefined> {
    const rs = await this.db.execute({
      sql: `SELECT shape, samples, updated_at FROM tool_shapes
        WHERE namespace = ? AND connector = ? AND tool = ?`,
      args: [namespace, connector, tool],
    });
    const r = rs.rows[0];
    if (!r) return undefined;
    let shape: unknown;
    try {
      shape = JSON.parse(String(r.shape));
    } catch {
      return undefined;
    }
    return {
      namespace,
      connector,
      tool,
      shape,
      samples: Number(r.samples),
      updatedAt: Number(r.updated_at),
    };
  }

  /** Every stored shape of every namespace. */
  async all(): Promise<ShapeRow[]> {
    const rs = await this.db.execute(
      "SELECT namespace, connector, tool, shape, samples, updated_at FROM tool_shapes",
    );
    const out: ShapeRow[] = [];
    for (const r of rs.rows) {
      try {
        out.push({
          namespace: String(r.namespace),
          connector: String(r.connector),
          tool: String(r.tool),
          shape: JSON.parse(String(r.shape)),
          samples: Number(r.samples),
          updatedAt: Number(r.updated_at),
        });
      } catch {
        // A row this version cannot read is skipped, not fatal.
      }
    }
    return out;
  }

  async put(row: ShapeRow): Promise<void> {
    await this.db.execute({
      sql: `INSERT INTO tool_shapes (namespace, connector, tool, shape, samples, updated_at)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (namespace, connector, tool) DO UPDATE SET shape = excluded.shape,
        samples = excluded.samples, updated_at = excluded.updated_at`,
      args: [
        row.namespace,
        row.connector,
        row.tool,
        JSON.stringify(row.shape),
        row.samples,
        row.updatedAt,
      ],
    });
  }
}
