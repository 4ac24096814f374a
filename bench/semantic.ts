/**
 * Semantic search at catalogue scale: 1,000 tools with 1,536-dimension vectors (the size of
 * OpenAI's `text-embedding-3-small`) from an instant, deterministic embedder, so the figures
 * are Cordon's own cost, not an endpoint's:
 *
 * - `sync`: embedding and storing every tool's vector in the background (file db), and the
 *   longest the event loop went without a turn meanwhile;
 * - `restart`: loading the stored vectors back (nothing embedded again), and its longest stall;
 * - `search`: a fused search whose query vector is cached (lexical ranking, exact scan, fusion)
 *   against a lexical-only search of the same catalogue;
 * - `vectorIndex`: why there is no `libsql_vector_idx`: a row's insert into one, and
 *   `vector_top_k`, against the in-memory exact scan.
 *
 * ```sh
 * deno run --allow-all bench/semantic.ts
 * ```
 *
 * @module
 */
import { z } from "zod";
import Database from "libsql";
import { type Connector, createRuntime, defineConnector, type EmbedFunction } from "../mod.ts";
import { CATALOGUE, NATURAL_QUERIES } from "../tests/fixtures/catalogue.ts";
import { withLag } from "../tests/_helpers/lag.ts";
import { brief, round } from "./stats.ts";

const TOOLS = 1_000;
const DIMENSIONS = 1_536;
const VARIANTS = ["", "_eu", "_staging", "_legacy", "_sandbox", "_partner"];

/** A vector from a text's characters: deterministic, spread over every dimension. */
function pseudoVector(text: string): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  let h = 2166136261;
  for (let i = 0; i < DIMENSIONS; i++) {
    h = Math.imul(h ^ text.charCodeAt(i % text.length), 16777619);
    v[i] = ((h >>> 0) % 2000) / 1000 - 1;
  }
  return v;
}

const embed: EmbedFunction = Object.assign(
  (texts: string[]) => Promise.resolve(texts.map(pseudoVector)),
  { model: "bench-pseudo", dimensions: DIMENSIONS },
);

function connectors(): Connector[] {
  const byConnector = new Map<string, Record<string, { description: string }>>();
  let n = 0;
  for (const variant of VARIANTS) {
    for (const t of CATALOGUE) {
      if (n++ >= TOOLS) break;
      const name = t.connector + variant;
      const tools = byConnector.get(name) ?? {};
      tools[t.name] = { description: t.description };
      byConnector.set(name, tools);
    }
  }
  return [...byConnector].map(([name, tools]) =>
    defineConnector({
      name,
      description: `The ${name} service`,
      tools: Object.fromEntries(
        Object.entries(tools).map(([tool, { description }]) => [tool, {
          description,
          input: z.object({ id: z.string().optional() }),
          execute: () => null,
        }]),
      ),
    })
  );
}

async function timedSearches(search: (q: string) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const [query] of NATURAL_QUERIES) {
      const started = performance.now();
      await search(query);
      out.push(performance.now() - started);
    }
  }
  return out;
}

function vectorIndexFigures(): Record<string, unknown> {
  const db = new Database(":memory:");
  db.exec(`CREATE TABLE t (path TEXT PRIMARY KEY, embedding F32_BLOB(${DIMENSIONS}) NOT NULL)`);
  db.exec("CREATE INDEX t_ann ON t (libsql_vector_idx(embedding, 'metric=cosine'))");
  const insert = db.prepare("INSERT INTO t (path, embedding) VALUES (?, ?)");
  const inserts: number[] = [];
  for (let i = 0; i < 300; i++) {
    const blob = new Uint8Array(pseudoVector(`tool ${i}`).buffer);
    const started = performance.now();
    insert.run([`t${i}`, blob]);
    inserts.push(performance.now() - started);
  }
  const query = new Uint8Array(pseudoVector("query").buffer);
  const topK = db.prepare(
    "SELECT t.path FROM vector_top_k('t_ann', ?, 20) AS k JOIN t ON t.rowid = k.id",
  );
  const queries: number[] = [];
  for (let i = 0; i < 30; i++) {
    const started = performance.now();
    topK.all([query]);
    queries.push(performance.now() - started);
  }
  db.close();
  return { rows: 300, insertMs: brief(inserts.slice(100)), topKMs: brief(queries) };
}

const dir = await Deno.makeTempDir({ prefix: "cordon-semantic-bench-" });
const db = `file:${dir}/cordon.db`;
const base = { connectors: connectors(), db, pool: { size: 0 }, typecheck: "off" as const };
const summary: Record<string, unknown> = { tools: TOOLS, dimensions: DIMENSIONS };
try {
  {
    await using rt = await createRuntime({ ...base, search: { embed } });
    const started = performance.now();
    const { lagMs } = await withLag(() => rt.warm());
    summary.sync = { ms: round(performance.now() - started), maxStallMs: round(lagMs) };
  }
  await using rt = await createRuntime({ ...base, search: { embed } });
  const started = performance.now();
  const { lagMs } = await withLag(() => rt.warm());
  summary.restart = { ms: round(performance.now() - started), maxStallMs: round(lagMs) };
  const status = rt.searchStatus();
  if (!status.semantic || status.embedded !== status.documents || status.embedCalls > 0) {
    throw new Error(`a restart embedded again: ${Deno.inspect(status)}`);
  }
  summary.documents = status.documents;
  await timedSearches((q) => rt.search(q)); // query vectors cached, JIT warm
  const fused = await timedSearches((q) => rt.search(q));
  await using lexical = await createRuntime({ ...base, db: ":memory:" });
  await timedSearches((q) => lexical.search(q));
  const words = await timedSearches((q) => lexical.search(q));
  summary.search = { fusedMs: brief(fused), lexicalMs: brief(words) };
  summary.vectorIndex = vectorIndexFigures();
} finally {
  await Deno.remove(dir, { recursive: true });
}
console.log(JSON.stringify(summary, null, 2));
