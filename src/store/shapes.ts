/**
 * Observed output shapes of tools, one row per tool, merged as results
 * arrive. Only structure is stored (see `connectors/shape.ts`), never values.
 *
 * @module
 */
import type { Db } from "./client.ts";

/** A stored shape: opaque JSON to this layer, validated by the caller. */
export interface ShapeRow {
  connector: string;
  tool: string;
  shape: unknown;
  samples: number;
  updatedAt: number;
}

/** Data access for observed shapes. */
export class ShapeStore {
  constructor(readonly db: Db) {}

  async get(connector: string, tool: string): Promise<ShapeRow | undefined> {
    const rs = await this.db.execute({
      sql: "SELECT shape, samples, updated_at FROM tool_shapes WHERE connector = ? AND tool = ?",
      args: [connector, tool],
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
      connector,
      tool,
      shape,
      samples: Number(r.samples),
      updatedAt: Number(r.updated_at),
    };
  }

  /** Every stored shape. */
  async all(): Promise<ShapeRow[]> {
    const rs = await this.db.execute(
      "SELECT connector, tool, shape, samples, updated_at FROM tool_shapes",
    );
    const out: ShapeRow[] = [];
    for (const r of rs.rows) {
      try {
        out.push({
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
      sql:
        `INSERT INTO tool_shapes (connector, tool, shape, samples, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (connector, tool) DO UPDATE SET shape = excluded.shape, samples = excluded.samples,
        updated_at = excluded.updated_at`,
      args: [row.connector, row.tool, JSON.stringify(row.shape), row.samples, row.updatedAt],
    });
  }
}
