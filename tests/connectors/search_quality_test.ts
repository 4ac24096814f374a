/**
 * Search quality over the issue-17 fixture (tests/fixtures/search): the ranking must keep
 * finding the right tool as often as it was measured to. Each floor is the figure measured
 * when the ranking was chosen, less a small margin (about one query of the group), so a change
 * that costs quality fails here; bench/search_quality.ts prints the figures themselves.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SearchIndex } from "../../src/connectors/search.ts";
import { toolDocuments } from "../../src/connectors/search_documents.ts";
import {
  evaluate,
  fixtureConnectorInfos,
  type Quality,
  type SetQuality,
} from "../fixtures/search/evaluate.ts";
import {
  HELDOUT2_QUERIES,
  HELDOUT_QUERIES,
  MAIN_QUERIES,
  type QueryGroup,
  type QuerySet,
  SEARCH_CONNECTORS,
} from "../fixtures/search/mod.ts";

const index = new SearchIndex(toolDocuments(fixtureConnectorInfos(SEARCH_CONNECTORS)));

function score(set: QuerySet): SetQuality {
  return evaluate((q) => index.search(q, { limit: 100 }).items.map((h) => h.path), set);
}

type Floors = Partial<Record<QueryGroup | "overall", Partial<Omit<Quality, "queries">>>>;

function assertFloors(name: string, got: SetQuality, floors: Floors): void {
  for (const [group, floor] of Object.entries(floors)) {
    const q = group === "overall" ? got.overall : got.groups[group as QueryGroup];
    for (const [metric, min] of Object.entries(floor)) {
      const value = q[metric as keyof Quality];
      assert.ok(value >= min, `${name} ${group} ${metric} is ${value}, below ${min}`);
    }
  }
}

Deno.test("search fixture: 20+ connectors, 350+ tools, 120+ main and 40+ and 60+ held-out queries naming real tools", () => {
  const paths = new Set(index.search("", { limit: 100 }).items.map((h) => h.path));
  for (let page = index.search("", { limit: 100 }); page.nextCursor;) {
    page = index.search("", { limit: 100, cursor: page.nextCursor });
    for (const h of page.items) paths.add(h.path);
  }
  assert.ok(SEARCH_CONNECTORS.length >= 20, `${SEARCH_CONNECTORS.length} connectors`);
  assert.ok(paths.size >= 350, `${paths.size} tools`);
  const main = Object.values(MAIN_QUERIES).flat();
  const heldout = Object.values(HELDOUT_QUERIES).flat();
  const heldout2 = Object.values(HELDOUT2_QUERIES).flat();
  assert.ok(main.length >= 120, `${main.length} main queries`);
  assert.ok(heldout.length >= 40, `${heldout.length} held-out queries`);
  assert.ok(heldout2.length >= 60, `${heldout2.length} second held-out queries`);
  for (const set of Object.values(HELDOUT2_QUERIES)) assert.ok(set.length >= 15);
  for (const q of [...main, ...heldout, ...heldout2]) {
    for (const p of q.expected) assert.ok(paths.has(p), `"${q.query}" expects unknown ${p}`);
  }
  const seen = new Set<string>();
  for (const q of [...main, ...heldout, ...heldout2]) {
    const text = q.query.toLowerCase();
    assert.ok(!seen.has(text), `"${q.query}" is in two sets`);
    seen.add(text);
  }
});

Deno.test("SearchIndex.search() finds the main set's tools as often as measured", () => {
  assertFloors("main", score(MAIN_QUERIES), {
    own_words: { top3: 0.97, top10: 1 },
    near_duplicate: { top1: 0.86, top3: 0.97, top10: 0.98 },
    intent: { top3: 0.9, top10: 0.98 },
    overall: { top1: 0.85, top3: 0.95, top10: 0.99, mrr: 0.91 },
  });
});

Deno.test("SearchIndex.search() finds the held-out set's tools as often as measured", () => {
  assertFloors("held-out", score(HELDOUT_QUERIES), {
    own_words: { top3: 0.94, top10: 1 },
    near_duplicate: { top1: 0.87, top3: 0.95, top10: 0.95 },
    intent: { top3: 0.76, top10: 0.94 },
    overall: { top1: 0.86, top3: 0.93, top10: 0.98, mrr: 0.9 },
  });
});

Deno.test("SearchIndex.search() finds the second held-out set's tools as often as measured", () => {
  assertFloors("held-out 2", score(HELDOUT2_QUERIES), {
    own_words: { top3: 0.95, top10: 1 },
    near_duplicate: { top1: 0.76, top3: 0.96, top10: 0.96 },
    intent: { top3: 0.79, top10: 0.87 },
    overall: { top1: 0.79, top3: 0.92, top10: 0.95, mrr: 0.86 },
  });
});
