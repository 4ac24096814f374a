/**
 * The ranking's weights, in one place. Each was chosen by measurement: a grid search over the
 * main query set of tests/fixtures/search (bench/search_grid.ts), the two held-out sets only
 * measured; the weight of values is fixed low by design (the main set holds too few ids to
 * measure it). docs/benchmarks.md ("Issue 17") has the grid and the figures.
 *
 * @module
 */

/** How much each field, each kind of query term and each rule counts. */
export interface RankingWeights {
  /** Per field: how much one occurrence counts before saturation (BM25F). */
  fields: {
    /** The tool's name, split into words. */
    name: number;
    /** The tool's description. */
    description: number;
    /** The connector's name (`slack`), or `snippet`. */
    connector: number;
    /** What the connector is for: its description, tags and `useWhen`. */
    context: number;
    /** Sentences of sibling tools that route to this one. */
    hints: number;
  };
  /** BM25 saturation: how fast repeated occurrences stop adding. */
  k1: number;
  /** Length normalization of the name (0: none, 1: full). */
  bName: number;
  /** Length normalization of the description and hints. */
  bDescription: number;
  /** A word of the vocabulary standing in for a query word, against the word itself (1). */
  synonym: number;
  /** A generic verb of the query (list, get, cancel…), against any other word (1). */
  verb: number;
  /** Score × (share of the query's concepts matched) ^ this: rewards matching them all. */
  coordination: number;
  /**
   * Score × (1 + this × the share of the tool's name the query names): "get a confluence page"
   * is `getConfluencePage`, not `getConfluencePageDescendants`.
   */
  nameCoverage: number;
  /** A second-hop vocabulary word (for a query word no document has), × the synonym weight. */
  secondHop: number;
  /** Score × (1 − this) for a tool that reads when the request writes. */
  readWhenWriting: number;
  /** Score × (1 − this) for a tool that writes when the request reads. */
  writeWhenReading: number;
  /** Score × (1 − this) for a tool reading one thing when the request wants many, or the reverse. */
  cardinality: number;
  /** What a value of the request (an id, an address, a time) says it names (search_values.ts). */
  value: number;
  /** How much a word standing in for a query word names a tool (× its own weight; 1: as much). */
  synonymNaming: number;
  /** A near spelling standing in for a query word no document has. */
  fuzzy: number;
  /** Shortest query word that may match by near spelling or prefix (shorter: none). */
  fuzzyMinLength: number;
}

/** The measured defaults. */
export const DEFAULT_WEIGHTS: RankingWeights = {
  fields: { name: 1, description: 1, connector: 1.5, context: 0.5, hints: 2 },
  k1: 1.6,
  bName: 0.9,
  bDescription: 0.3,
  synonym: 0.8,
  verb: 1,
  coordination: 0,
  nameCoverage: 0.5,
  secondHop: 0.5,
  readWhenWriting: 0.2,
  writeWhenReading: 0.3,
  cardinality: 0.2,
  value: 0.3,
  synonymNaming: 1,
  fuzzy: 0.5,
  fuzzyMinLength: 5,
};
