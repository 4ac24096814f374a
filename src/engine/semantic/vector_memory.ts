/**
 * The vectors in memory, ranked by an exact scan. A search in a namespace scans the tools and
 * that namespace's snippets only, so another tenant's snippets never take a place in its
 * ranking. Measured here (2 cores): 1,000 tools of 1,536 dimensions scan in about 1.5 ms,
 * 5,000 of 384 in about 1.6 ms, faster than libSQL's `vector_top_k` at those sizes (5 to 30 ms)
 * and than an exact scan in SQL (2 to 10 ms), and it reads nothing from the database per query.
 *
 * @module
 */

/** One document's vector (unit length), under the hash of the text it came from. */
export interface MemoryVector {
  /** `""` for tools, the owner's namespace for snippets. */
  namespace: string;
  path: string;
  hash: string;
  vector: Float32Array;
}

/** A ranked neighbour: its path, and cosine similarity to the query (1 is the same direction). */
export interface Neighbour {
  namespace: string;
  path: string;
  similarity: number;
}

/** The key of a document's vector: its namespace (`""` for tools) and path. */
export function vectorKey(namespace: string, path: string): string {
  return `${namespace}\u0000${path}`;
}

/** Vectors by document, grouped by namespace for scoped scans. */
export class VectorMemory {
  readonly #byNamespace = new Map<string, Map<string, MemoryVector>>();
  #size = 0;

  /** How many vectors are held. */
  get size(): number {
    return this.#size;
  }

  get(namespace: string, path: string): MemoryVector | undefined {
    return this.#byNamespace.get(namespace)?.get(path);
  }

  set(entry: MemoryVector): void {
    let group = this.#byNamespace.get(entry.namespace);
    if (!group) this.#byNamespace.set(entry.namespace, group = new Map());
    if (!group.has(entry.path)) this.#size++;
    group.set(entry.path, entry);
  }

  delete(namespace: string, path: string): boolean {
    const group = this.#byNamespace.get(namespace);
    if (!group?.delete(path)) return false;
    this.#size--;
    if (group.size === 0) this.#byNamespace.delete(namespace);
    return true;
  }

  /** Every vector held. */
  *entries(): IterableIterator<MemoryVector> {
    for (const group of this.#byNamespace.values()) yield* group.values();
  }

  /**
   * The `k` vectors nearest `query` among the tools (namespace `""`) and `namespace`'s
   * snippets that `live` accepts, most similar first, ties by path.
   */
  nearest(
    query: Float32Array,
    namespace: string,
    k: number,
    live: (namespace: string, path: string) => boolean,
  ): Neighbour[] {
    const found: Neighbour[] = [];
    for (const ns of namespace === "" ? [""] : ["", namespace]) {
      for (const entry of this.#byNamespace.get(ns)?.values() ?? []) {
        if (entry.vector.length !== query.length || !live(ns, entry.path)) continue;
        const v = entry.vector;
        let dot = 0;
        for (let i = 0; i < v.length; i++) dot += v[i] * query[i];
        found.push({ namespace: ns, path: entry.path, similarity: dot });
      }
    }
    found.sort((a, b) =>
      b.similarity - a.similarity || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    );
    return found.slice(0, k);
  }
}
