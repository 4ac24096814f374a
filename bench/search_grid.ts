/**
 * How the ranking weights were chosen (issue 17): a grid over the weights, scored by the MRR of
 * the whole main query set (own words, near-duplicates and requests to understand alike: one
 * ranking serves them all). The held-out sets are never looked at here. A full grid over every
 * weight is too large, so the search goes one weight at a time over its values, the others
 * held, and repeats until no change gains at least {@link MIN_GAIN}. The weight of values
 * (search_values.ts) is not searched: the main set has too few ids to measure it, and it stays
 * weak evidence by design.
 *
 * ```sh
 * deno run --allow-all bench/search_grid.ts
 * ```
 *
 * @module
 */
import { SearchIndex } from "../src/connectors/search.ts";
import { toolDocuments } from "../src/connectors/search_documents.ts";
import { DEFAULT_WEIGHTS, type RankingWeights } from "../src/connectors/search_weights.ts";
import { evaluate, fixtureConnectorInfos } from "../tests/fixtures/search/evaluate.ts";
import { MAIN_QUERIES, SEARCH_CONNECTORS } from "../tests/fixtures/search/mod.ts";

type Knob = { name: string; values: number[]; set: (w: RankingWeights, v: number) => void };

/** The values tried per weight. */
const KNOBS: Knob[] = [
  { name: "fields.name", values: [1, 1.5, 2, 3], set: (w, v) => w.fields.name = v },
  { name: "fields.connector", values: [0.5, 1, 1.5, 2, 3], set: (w, v) => w.fields.connector = v },
  { name: "fields.context", values: [0, 0.25, 0.5, 1], set: (w, v) => w.fields.context = v },
  { name: "fields.hints", values: [0, 0.5, 1, 2], set: (w, v) => w.fields.hints = v },
  { name: "k1", values: [0.6, 0.9, 1.2, 1.6, 2.2], set: (w, v) => w.k1 = v },
  { name: "bName", values: [0, 0.3, 0.6, 0.9], set: (w, v) => w.bName = v },
  { name: "bDescription", values: [0.3, 0.5, 0.75, 1], set: (w, v) => w.bDescription = v },
  { name: "verb", values: [0.3, 0.45, 0.6, 0.8, 1], set: (w, v) => w.verb = v },
  { name: "coordination", values: [0, 0.5, 1, 2, 3], set: (w, v) => w.coordination = v },
  { name: "nameCoverage", values: [0, 0.25, 0.5, 1, 2], set: (w, v) => w.nameCoverage = v },
  { name: "synonym", values: [0.2, 0.35, 0.5, 0.65, 0.8], set: (w, v) => w.synonym = v },
  {
    name: "readWhenWriting",
    values: [0, 0.1, 0.2, 0.3, 0.5],
    set: (w, v) => w.readWhenWriting = v,
  },
  {
    name: "writeWhenReading",
    values: [0, 0.1, 0.2, 0.3, 0.5],
    set: (w, v) => w.writeWhenReading = v,
  },
  { name: "cardinality", values: [0, 0.05, 0.1, 0.2, 0.3], set: (w, v) => w.cardinality = v },
  { name: "synonymNaming", values: [0, 0.25, 0.5, 0.75, 1], set: (w, v) => w.synonymNaming = v },
  { name: "secondHop", values: [0, 0.25, 0.5, 0.75, 1], set: (w, v) => w.secondHop = v },
];
/**
 * The least gain in MRR a change must bring: one query of the main set moving from second place
 * to first. Smaller gains are a query moving among lower places, which the sets are too small
 * to tell from chance.
 */
const MIN_GAIN = 0.5 / Object.values(MAIN_QUERIES).flat().length;
/** Rounds of the one-weight-at-a-time search; it settles within two or three. */
const MAX_ROUNDS = 4;

const docs = toolDocuments(fixtureConnectorInfos(SEARCH_CONNECTORS));

/** MRR of the whole main set (top-3 breaks ties). */
function objective(w: RankingWeights): number {
  const index = new SearchIndex(docs, { weights: w });
  const q = evaluate(
    (query) => index.search(query, { limit: 100 }).items.map((h) => h.path),
    MAIN_QUERIES,
  );
  return q.overall.mrr + q.overall.top3 / 1000;
}

function clone(w: RankingWeights): RankingWeights {
  return { ...w, fields: { ...w.fields } };
}

/** The one-weight-at-a-time search from the current defaults; prints each improvement. */
export function gridSearch(): RankingWeights {
  let best = clone(DEFAULT_WEIGHTS);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let improved = false;
    for (const knob of KNOBS) {
      let bestScore = objective(best);
      for (const v of knob.values) {
        const w = clone(best);
        knob.set(w, v);
        const s = objective(w);
        if (s > bestScore + MIN_GAIN) {
          bestScore = s;
          best = w;
          improved = true;
          console.error(`round ${round + 1}: ${knob.name} = ${v} → ${bestScore.toFixed(4)}`);
        }
      }
    }
    if (!improved) break;
  }
  return best;
}

if (import.meta.main) {
  console.log(JSON.stringify(gridSearch(), null, 2));
}
