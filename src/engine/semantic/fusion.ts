/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): a document ranked `r`
 * (from 1) by a ranking earns `weight / (k + r)` from it, and documents are ordered by the sum.
 * Ranks, not scores, are fused, so BM25's unbounded scores and cosine similarities need no
 * common scale; a document one ranking misses earns nothing from it.
 *
 * @module
 */

/** One ranking to fuse: paths best first, and its weight. */
export interface RankedList {
  paths: readonly string[];
  weight: number;
}

/** A fused result: the path and its fused score. */
export interface Fused {
  path: string;
  score: number;
}

/**
 * Fuses `lists` with constant `k`: every path any list holds, best first, ties by path
 * (code-unit order, the same everywhere). A path listed twice in one list counts at its
 * first rank.
 *
 * @example
 * ```ts
 * import { reciprocalRankFusion } from "./fusion.ts";
 * const fused = reciprocalRankFusion([
 *   { paths: ["a", "b", "c"], weight: 1 },
 *   { paths: ["c", "a"], weight: 1 },
 * ], 60);
 * console.assert(fused.map((f) => f.path).join() === "a,c,b");
 * ```
 */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number): Fused[] {
  const scores = new Map<string, number>();
  for (const { paths, weight } of lists) {
    const seen = new Set<string>();
    paths.forEach((path, i) => {
      if (seen.has(path)) return;
      seen.add(path);
      scores.set(path, (scores.get(path) ?? 0) + weight / (k + i + 1));
    });
  }
  return [...scores].map(([path, score]) => ({ path, score }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The best score fusion can give (first in every ranking), to scale scores to (0, 1]: a
 * document first in both rankings scores 1.
 */
export function bestFusedScore(lists: readonly { weight: number }[], k: number): number {
  return lists.reduce((sum, l) => sum + l.weight / (k + 1), 0);
}
