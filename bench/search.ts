/**
 * Tool and snippet search at catalogue scale: building a {@link SearchIndex}
 * of 1,000 tools and 500 snippets, and ranking the kind of query a model
 * writes against it. Target (discovery issue): query p50 ≤ 2 ms.
 *
 * The catalogue is the test fixture's ~200 tools repeated under varied
 * connector names (`github`, `github_eu`, …), so terms repeat the way they
 * do when a team wires several instances of the same services. Run alone:
 *
 * ```sh
 * deno run --allow-all bench/search.ts [--samples=2000]
 * ```
 *
 * @module
 */
import { type SearchDocument, SearchIndex } from "../src/connectors/search.ts";
import { CATALOGUE, NATURAL_QUERIES, SNIPPETS } from "../tests/fixtures/catalogue.ts";
import { brief, check, round, timed } from "./stats.ts";

/** The sizes the issue asks about: a large deployment's catalogue. */
export const BENCH_TOOLS = 1_000;
export const BENCH_SNIPPETS = 500;
/** Builds are a few ms; the median of several keeps one GC pause from deciding the figure. */
const BUILD_ROUNDS = 5;
/** Queries before measuring, so the JIT has compiled the hot paths. */
const WARMUP_QUERIES = 200;

const CONNECTOR_VARIANTS = ["", "_eu", "_staging", "_legacy", "_sandbox", "_partner"];

/** The fixture's natural questions (one with typos), plus a bare verb and an identifier. */
const QUERIES = [...NATURAL_QUERIES.map(([query]) => query), "list", "createIssue"];

function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** {@link BENCH_TOOLS} tools and {@link BENCH_SNIPPETS} snippets derived from the fixture. */
export function benchDocuments(): SearchDocument[] {
  const tools: SearchDocument[] = [];
  for (const variant of CONNECTOR_VARIANTS) {
    for (const t of CATALOGUE) {
      if (tools.length === BENCH_TOOLS) break;
      const connector = t.connector + variant;
      tools.push({
        kind: "tool",
        path: `${connector}.${t.name}`,
        name: t.name,
        connector,
        description: t.description,
      });
    }
  }
  const snippets: SearchDocument[] = [];
  for (let i = 0; snippets.length < BENCH_SNIPPETS; i++) {
    // Alternate the real snippets with workflows built around a tool.
    const base = i % 2 === 0 ? SNIPPETS[(i / 2) % SNIPPETS.length] : undefined;
    const t = CATALOGUE[i % CATALOGUE.length];
    const name = base ? `${base.name}_${i}` : `${t.connector}_${snakeCase(t.name)}_flow_${i}`;
    const description = base
      ? base.description
      : `${t.description} Then posts a short summary of what changed.`;
    snippets.push({ kind: "snippet", path: `snippet:${name}`, name, description });
  }
  check(tools.length === BENCH_TOOLS, `built ${tools.length} tools, not ${BENCH_TOOLS}`);
  return [...tools, ...snippets];
}

/**
 * Builds the index {@link BUILD_ROUNDS} times (median reported) and times
 * `samples` queries, cycling through model-style questions.
 */
export async function searchBench(
  samples: number,
): Promise<{ buildMs: number; queryUs: { p50: number; p95: number } }> {
  const docs = benchDocuments();
  const builds: number[] = [];
  let index = new SearchIndex();
  for (let i = 0; i < BUILD_ROUNDS; i++) {
    const built = await timed(() => Promise.resolve(new SearchIndex(docs)));
    builds.push(built.ms);
    index = built.value;
  }
  check(index.size === BENCH_TOOLS + BENCH_SNIPPETS, `index holds ${index.size} documents`);

  for (let i = 0; i < WARMUP_QUERIES; i++) index.search(QUERIES[i % QUERIES.length]);
  const queryUs: number[] = [];
  for (let i = 0; i < samples; i++) {
    const query = QUERIES[i % QUERIES.length];
    const { ms, value } = await timed(() => Promise.resolve(index.search(query)));
    check(value.items.length > 0, `"${query}" found nothing`);
    queryUs.push(ms * 1000);
  }
  return { buildMs: round(brief(builds).p50), queryUs: brief(queryUs, 1) };
}

if (import.meta.main) {
  const arg = Deno.args.find((a) => a.startsWith("--samples="));
  const samples = arg ? Number(arg.split("=")[1]) : 2_000;
  console.log(JSON.stringify(await searchBench(samples)));
}
