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
import { DEFAULT_SEARCH_LIMIT, SearchIndex } from "../src/connectors/search.ts";
import { toolSignature } from "../src/connectors/typegen/mod.ts";
import type { ToolInfo } from "../src/connectors/types.ts";
import {
  MAX_HIT_DESCRIPTION_CHARS,
  MAX_HIT_SIGNATURE_CHARS,
  withSignatures,
} from "../src/engine/catalogue/search_hits.ts";
import { toolDocuments } from "../src/connectors/search_documents.ts";
import type { SearchableConnector } from "../src/connectors/search_documents.ts";
import {
  evaluate,
  fixtureConnectorInfos,
  type SetQuality,
} from "../tests/fixtures/search/evaluate.ts";
import {
  HELDOUT2_QUERIES,
  HELDOUT_QUERIES,
  MAIN_QUERIES,
  type QuerySet,
  SEARCH_CONNECTORS,
} from "../tests/fixtures/search/mod.ts";
import { brief, check, round, timed } from "./stats.ts";

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
  const heldout2 = scoreSet(index, HELDOUT2_QUERIES);

  const big = qualityIndex(grownInfos());
  const queries = [MAIN_QUERIES, HELDOUT_QUERIES, HELDOUT2_QUERIES].flatMap((set) =>
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
    heldout2,
    searchUs: { tools: big.size, ...brief(us, 1) },
    pageTokens: pageTokens(index, queries),
  };
}

/** Characters per token, the usual rough figure for English and code. */
const CHARS_PER_TOKEN = 4;

/**
 * What a default page (ten hits, as `codemode.search` returns them: one-line description and
 * compact signature) costs a model, in tokens of its JSON: mean and largest over the queries,
 * and the most any page can cost with every field at its bound.
 */
function pageTokens(index: SearchIndex, queries: readonly string[]) {
  const tools = new Map<string, { connector: string; tool: ToolInfo }>();
  for (const c of fixtureConnectorInfos(SEARCH_CONNECTORS)) {
    for (const tool of c.tools) tools.set(`${c.name}.${tool.name}`, { connector: c.name, tool });
  }
  const tokens = queries.map((q) => {
    const page = withSignatures(index.search(q), (hit) => {
      const found = tools.get(hit.path);
      return found && toolSignature(found.connector, found.tool).signature;
    });
    return JSON.stringify(page.items).length / CHARS_PER_TOKEN;
  });
  // Per hit at its bounds: path, name and connector of a long tool name, the longest
  // description and signature, a score, and the JSON around them.
  const widest = JSON.stringify({
    kind: "snippet",
    path: "x".repeat(60),
    name: "x".repeat(40),
    connector: "x".repeat(20),
    description: "x".repeat(MAX_HIT_DESCRIPTION_CHARS),
    score: 12.345,
    signature: "x".repeat(MAX_HIT_SIGNATURE_CHARS),
  }).length;
  return {
    mean: round(tokens.reduce((a, b) => a + b, 0) / tokens.length, 0),
    max: round(Math.max(...tokens), 0),
    bound: Math.ceil(widest * DEFAULT_SEARCH_LIMIT / CHARS_PER_TOKEN),
  };
}

/** A set's figures by group and overall, with how many queries missed the first three. */
function figures(s: SetQuality) {
  return { ...s.groups, overall: s.overall, misses: s.misses.length };
}

/** The bench's result as the JSON summary reports it (misses counted, not listed). */
export function qualitySummary(result: Awaited<ReturnType<typeof searchQualityBench>>) {
  return {
    ...result,
    main: figures(result.main),
    heldout: figures(result.heldout),
    heldout2: figures(result.heldout2),
  };
}

if (import.meta.main) {
  const arg = Deno.args.find((a) => a.startsWith("--samples="));
  const result = await searchQualityBench(arg ? Number(arg.split("=")[1]) : 2_000);
  if (Deno.args.includes("--misses")) {
    const sets = [
      ["main", result.main],
      ["heldout", result.heldout],
      ["heldout2", result.heldout2],
    ] as const;
    for (const [name, set] of sets) {
      for (const m of set.misses) {
        console.error(
          `${name} ${m.group} rank ${m.rank || "-"}: "${m.query}" → ${m.expected[0]}; top 3: ${
            m.top3.join(", ")
          }`,
        );
      }
    }
  }
  console.log(JSON.stringify(qualitySummary(result), null, 2));
}
