/**
 * Search vectors: one embedding per tool or snippet and embedding model, in libSQL's native
 * vector type (`F32_BLOB(dimensions)`), with the hash of the text it was computed from, so a
 * restart reuses it and only a changed document is embedded again.
 *
 * The column's type names its dimensions, and those depend on the embedder a runtime is given,
 * so the tables are not a numbered migration: `search_vectors_f32_<dimensions>` is created when
 * an embedder of that size first needs it (`CREATE TABLE IF NOT EXISTS`), and holds every model
 * of that size (the `model` column keeps them apart). A model whose size changed is a new table;
 * nothing stored is ever dropped or rewritten.
 *
 * There is no `libsql_vector_idx` on purpose: measured here (libsql 0.5.29, 2 cores), inserting
 * one 1,536-dimension row into such an index holds the calling thread 10 to 90 ms (libSQL
 * calls are synchronous: the host's event loop stops), building it over 5,000 rows of 384 took
 * 16 s, and at catalogue sizes (a few thousand rows) `vector_top_k` answered slower than an
 * exact scan. Vectors are read once into memory and ranked there (`engine/semantic`).
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import type { Db } from "./client.ts";

/** A stored vector: tools have the namespace `""`, snippets their owner's. */
export interface VectorRow {
  namespace: string;
  /** `connector.tool` or `snippet:name`. */
  path: string;
  /** The hash of the text the vector was computed from (and the model). */
  hash: string;
  vector: Float32Array;
}

/** libSQL stores at most 65,536 dimensions; the largest common embedding models use 3,072. */
export const MAX_VECTOR_DIMENSIONS = 65_536;
/** Rows read per statement when loading: a read holds the event loop (6 KiB a row at 1,536). */
export const VECTOR_READ_PAGE = 100;

const TABLE_PREFIX = "search_vectors_f32_";

function tableOf(dimensions: number): string {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_VECTOR_DIMENSIONS) {
    throw new CordonError(
      "invalid_request",
      `Cannot store vectors of ${dimensions} dimensions: it must be a whole number from 1 to ${MAX_VECTOR_DIMENSIONS}`,
    );
  }
  return `${TABLE_PREFIX}${dimensions}`;
}

/** A blob column's value as bytes (the embedded engine gives a Buffer, a server an ArrayBuffer). */
function bytesOf(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return undefined;
}

/** Little-endian float32 bytes (what `F32_BLOB` holds), copied so the result is aligned. */
export function vectorFromBlob(value: unknown, dimensions: number): Float32Array | undefined {
  const bytes = bytesOf(value);
  if (!bytes || bytes.byteLength !== dimensions * 4) return undefined;
  return new Float32Array(bytes.slice().buffer);
}

/** The bytes of `vector` for an `F32_BLOB` column. */
export function blobOf(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Data access for the search vectors of one embedding model. */
export class VectorStore {
  readonly #db: Db;
  readonly #model: string;
  readonly #ready = new Set<number>();

  constructor(db: Db, model: string) {
    this.#db = db;
    this.#model = model;
  }

  /**
   * The dimensions this model's vectors were stored with, if any are stored (the largest table
   * holding them when, oddly, several do).
   */
  async storedDimensions(): Promise<number | undefined> {
    const rs = await this.#db.execute({
      sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?",
      args: [`${TABLE_PREFIX}%`],
    });
    const sizes = rs.rows.map((r) => Number(String(r.name).slice(TABLE_PREFIX.length)))
      .filter((n) => Number.isInteger(n) && n > 0).sort((a, b) => b - a);
    for (const size of sizes) {
      const hit = await this.#db.execute({
        sql: `SELECT 1 FROM ${tableOf(size)} WHERE model = ? LIMIT 1`,
        args: [this.#model],
      });
      if (hit.rows.length > 0) return size;
    }
    return undefined;
  }

  /** Creates the table for `dimensions` if it is not there. */
  async ensure(dimensions: number): Promise<void> {
    const table = tableOf(dimensions);
    if (this.#ready.has(dimensions)) return;
    await this.#db.execute(`CREATE TABLE IF NOT EXISTS ${table} (
      model TEXT NOT NULL,
      namespace TEXT NOT NULL,
      path TEXT NOT NULL,
      hash TEXT NOT NULL,
      embedding F32_BLOB(${dimensions}) NOT NULL CHECK (length(embedding) = ${dimensions * 4}),
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (model, namespace, path)
    )`);
    this.#ready.add(dimensions);
  }

  /** One page of this model's vectors, in key order after `after` (a `[namespace, path]`). */
  async page(
    dimensions: number,
    after: [string, string] | undefined,
    limit = VECTOR_READ_PAGE,
  ): Promise<VectorRow[]> {
    await this.ensure(dimensions);
    const [ns, path] = after ?? ["", ""];
    const rs = await this.#db.execute({
      sql: `SELECT namespace, path, hash, embedding FROM ${tableOf(dimensions)}
        WHERE model = ? AND (namespace > ? OR (namespace = ? AND path > ?))
        ORDER BY namespace, path LIMIT ?`,
      args: [this.#model, ns, ns, after ? path : "", limit],
    });
    const out: VectorRow[] = [];
    for (const r of rs.rows) {
      const vector = vectorFromBlob(r.embedding, dimensions);
      // A row some other writer left short is skipped; it is embedded again.
      if (vector) {
        out.push({
          namespace: String(r.namespace),
          path: String(r.path),
          hash: String(r.hash),
          vector,
        });
      }
    }
    return out;
  }

  /** Stores vectors (replacing any at the same key), in one transaction. */
  async put(dimensions: number, rows: VectorRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ensure(dimensions);
    const now = Date.now();
    await this.#db.batch(rows.map((r) => ({
      sql: `INSERT INTO ${tableOf(dimensions)} (model, namespace, path, hash, embedding, updated_at)
        VALUES (?, ?, ?, ?, vector32(?), ?)
        ON CONFLICT (model, namespace, path)
        DO UPDATE SET hash = excluded.hash, embedding = excluded.embedding,
          updated_at = excluded.updated_at`,
      args: [this.#model, r.namespace, r.path, r.hash, blobOf(r.vector), now],
    })));
  }

  /** Deletes the vectors of documents that are gone. */
  async remove(dimensions: number, keys: { namespace: string; path: string }[]): Promise<void> {
    if (keys.length === 0) return;
    await this.ensure(dimensions);
    await this.#db.batch(keys.map((k) => ({
      sql: `DELETE FROM ${tableOf(dimensions)} WHERE model = ? AND namespace = ? AND path = ?`,
      args: [this.#model, k.namespace, k.path],
    })));
  }
}
