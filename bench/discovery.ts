/**
 * The discovery issue's figures in one place: the type check (warm p50 ≤
 * 30 ms against 200 tools), search (p50 ≤ 2 ms over 1,000 tools and 500
 * snippets), search quality (issue 17: top-1/3/10 and MRR on the main and
 * held-out query sets, and a result page's tokens), the model-facing
 * description (≤ 1,000 tokens for 200 tools, 4 characters a token), and
 * what the default `warn` check adds to a pooled trivial run.
 *
 * @module
 */
import type { ConnectorInfo } from "../src/connectors/types.ts";
import { buildDeclarations } from "../src/connectors/typegen/mod.ts";
import { describeForModel } from "../src/engine/catalogue/model_prompt.ts";
import { CATALOGUE } from "../tests/fixtures/catalogue.ts";
import { pooledBench } from "./exec.ts";
import { searchBench } from "./search.ts";
import { qualitySummary, searchQualityBench } from "./search_quality.ts";
import { brief, timed } from "./stats.ts";
import { typecheckBench } from "./typecheck.ts";

/** The fixture catalogue (about 200 tools) as connectors, with a small object input each. */
function fixtureConnectors(): ConnectorInfo[] {
  const byName = new Map<string, ConnectorInfo>();
  for (const t of CATALOGUE) {
    const c = byName.get(t.connector) ??
      { name: t.connector, description: `${t.connector} tools for the team.`, tools: [] };
    c.tools.push({
      name: t.name,
      description: t.description,
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" }, limit: { type: "integer" } },
        required: ["id"],
      },
      annotations: {},
    });
    byName.set(t.connector, c);
  }
  return [...byName.values()];
}

/** Every discovery figure. */
export async function discoveryBench(samples: { typecheck: number; search: number }) {
  const connectors = fixtureConnectors();
  const tools = connectors.reduce((n, c) => n + c.tools.length, 0);
  const description = describeForModel(connectors, 0);
  const generation: number[] = [];
  for (let i = 0; i < 20; i++) {
    generation.push((await timed(() => Promise.resolve(buildDeclarations(connectors)))).ms);
  }
  return {
    typecheck: await typecheckBench(samples.typecheck),
    search: await searchBench(samples.search),
    /** Issue 17: how often search finds the right tool, and a result page's cost in tokens. */
    searchQuality: qualitySummary(await searchQualityBench(samples.search)),
    modelDescription: {
      tools,
      connectors: connectors.length,
      chars: description.length,
      tokens: Math.ceil(description.length / 4),
    },
    declarations: {
      tools,
      generateMs: brief(generation),
      chars: buildDeclarations(connectors).declarations.length,
    },
    /** A pooled trivial run with the default `warn` check (the check waits beside the run). */
    pooledWarnMs: await pooledBench(Math.max(10, Math.round(samples.search / 100)), "auto", "warn"),
  };
}

if (import.meta.main) {
  console.log(JSON.stringify(await discoveryBench({ typecheck: 100, search: 2_000 }), null, 2));
}
