/**
 * How well search finds the right tool (issue 17): the fixture catalogue of
 * tests/fixtures/search (21 connectors, about 400 tools modelled on real servers) indexed the
 * way the runtime indexes it, and two query sets scored by group: top-1, top-3, top-10 and
 * MRR. The main set chose the weights; the held-out set did not, so its figures are the honest
 * ones. Also the time per search with the catalogue grown to 1,000 tools.
 *
 * ```sh
 * deno run --allow-all bench/search_quality.ts [--misses] [--samples=2000]
 * ```
 *
 * `--misses` lists, on stderr, every query whose tool was not in the first three.
 *
 * @module
 */
import { SearchIndex } from "../src/connectors/search.ts";
import { toolDocuments } from "../src/connectors/search_documents.ts";
import type { SearchableConnector } from "../src/connectors/search_documents.ts";
import {
  evaluate,
  fixtureConnectorInfos,
  type SetQuality,
} from "../tests/fixtures/search/evaluate.ts";
import {
  HELDOUT_QUERIES,
  MAIN_QUERIES,
  type QuerySet,
  SEARCH_CONNECTORS,
} from "../tests/fixtures/search/mod.ts";
import { brief, check, timed } from "./stats.ts";

/** The catalogue size the timing is taken at. */
export const QUALITY_BENCH_TOOLS = 1_000;
/** Queries before timing, so the JIT has compiled the hot paths. */
const WARMUP_QUERIES = 300;
/** Deep enough for MRR to see a tool ranked far down. */
const RANK_DEPTH = 100;

/** The fixture's connectors, indexed as the runtime indexes them. */
export function qualityIndex(
  connectors: readonly SearchableConnector[] = fixtureInfos(),
): SearchIndex {
  return new SearchIndex(toolDocuments(connectors));
}

function fixtureInfos(): SearchableConnector[] {
  return fixtureConnectorInfos(SEARCH_CONNECTORS);
}

/** The fixture grown to {@link QUALITY_BENCH_TOOLS} tools by adding copies under other names. */
function grownInfos(): SearchableConnector[] {
  const base = fixtureInfos();
  const out: SearchableConnector[] = [];
  let tools = 0;
  for (const variant of ["", "_eu", "_staging", "_legacy"]) {
    for (const c of base) {
      const room = QUALITY_BENCH_TOOLS - tools;
      if (room <= 0) break;
      const copy = { ...c, name: c.name + variant, tools: c.tools.slice(0, room) };
      tools += copy.tools.length;
      out.push(copy);
    }
  }
  check(tools === QUALITY_BENCH_TOOLS, `grew ${tools} tools, not ${QUALITY_BENCH_TOOLS}`);
  return out;
}

/** Scores one set against an index. */
export function scoreSet(index: SearchIndex, set: QuerySet): SetQuality {
  return evaluate((q) => index.search(q, { limit: RANK_DEPTH }).items.map((h) => h.path), set);
}

/** Both sets' figures, and the time per search over 1,000 tools. */
export async function searchQualityBench(samples: number) {
  const index = qualityIndex();
  const main = scoreSet(index, MAIN_QUERIES);
  const heldout = scoreSet(index, HELDOUT_QUERIES);

  const big = qualityIndex(grownInfos());
  const queries = [MAIN_QUERIES, HELDOUT_QUERIES].flatMap((set) =>
    Object.values(set).flat().map((q) => q.query)
  );
  for (let i = 0; i < WARMUP_QUERIES; i++) big.search(queries[i % queries.length]);
  const us: number[] = [];
  for (let i = 0; i < samples; i++) {
    const q = queries[i % queries.length];
    const { ms } = await timed(() => Promise.resolve(big.search(q)));
    us.push(ms * 1000);
  }
  return {
    tools: index.size,
    connectors: SEARCH_CONNECTORS.length,
    main,
    heldout,
    searchUs: { tools: big.size, ...brief(us, 1) },
  };
}

if (import.meta.main) {
  const arg = Deno.args.find((a) => a.startsWith("--samples="));
  const result = await searchQualityBench(arg ? Number(arg.split("=")[1]) : 2_000);
  if (Deno.args.includes("--misses")) {
    for (const [name, set] of [["main", result.main], ["heldout", result.heldout]] as const) {
      for (const m of set.misses) {
        console.error(
          `${name} ${m.group} rank ${m.rank || "-"}: "${m.query}" → ${m.expected[0]}; top 3: ${
            m.top3.join(", ")
          }`,
        );
      }
    }
  }
  const figures = (s: SetQuality) => ({ ...s.groups, overall: s.overall, misses: s.misses.length });
  console.log(JSON.stringify(
    { ...result, main: figures(result.main), heldout: figures(result.heldout) },
    null,
    2,
  ));
}
