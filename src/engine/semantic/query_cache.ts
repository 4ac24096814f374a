/**
 * Recent queries' vectors, least recently used dropped first: a model pages through results
 * and repeats its searches, and each miss is a call to the embedder.
 *
 * @module
 */

/** About 1.5 MiB at 1,536 dimensions; a session's searches repeat well within it. */
export const QUERY_CACHE_SIZE = 256;

/** A bounded map from a query's text to its vector. */
export class QueryCache {
  readonly #entries = new Map<string, Float32Array>();
  readonly #max: number;

  constructor(max = QUERY_CACHE_SIZE) {
    this.#max = max;
  }

  get(query: string): Float32Array | undefined {
    const hit = this.#entries.get(query);
    if (hit) {
      // Most recently used last.
      this.#entries.delete(query);
      this.#entries.set(query, hit);
    }
    return hit;
  }

  set(query: string, vector: Float32Array): void {
    this.#entries.delete(query);
    this.#entries.set(query, vector);
    if (this.#entries.size > this.#max) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
