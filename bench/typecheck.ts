/**
 * The host-side type check (src/engine/typecheck.ts): a 30-line script
 * against the declarations of 200 tools, cold (first check in a fresh
 * process: lib files, declarations, check) and warm (same declarations,
 * the script changed a little every sample so nothing of the user's file
 * can be reused). Target: warm p50 ≤ 30 ms.
 *
 * {@link typecheckBench} runs the measurement in a fresh `deno` child so
 * the cold figure is really cold. Run alone:
 *
 * ```sh
 * deno run --allow-all bench/typecheck.ts [--samples=200]
 * ```
 *
 * @module
 */
import {
  brief,
  check,
  cpuSnapshot,
  inFreshChild,
  otherCpuPercent,
  progress,
  round,
  timed,
} from "./stats.ts";

/** Tools in the benchmark catalogue: a large real deployment (20 connectors of 10). */
const CONNECTORS = 20;
const TOOLS_PER_CONNECTOR = 10;

const NOUNS = [
  "issue",
  "user",
  "invoice",
  "file",
  "event",
  "order",
  "ticket",
  "repo",
  "page",
  "job",
];
const VERBS = ["list", "get", "create", "update", "delete", "search", "archive", "sync", "export"];
const FIELDS: [string, string][] = [
  ["id", "string"],
  ["limit", "number"],
  ["cursor", "string"],
  ["includeArchived", "boolean"],
  ["tags", "string[]"],
  ["status", '"open" | "closed" | "pending"'],
  ["since", "string"],
  ["owner", "{ id: string; email?: string }"],
  ["amount", "number"],
  ["metadata", "Record<string, string>"],
  ["filters", '{ field: string; op: "eq" | "lt" | "gt"; value: string | number }[]'],
  ["dryRun", "boolean"],
];

/** A small deterministic PRNG, so every run checks the same catalogue. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
}

function objectType(random: () => number, indent: string, min: number, spread: number): string {
  const count = min + Math.floor(random() * spread);
  const start = Math.floor(random() * FIELDS.length);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const [name, type] = FIELDS[(start + i * 5) % FIELDS.length];
    const optional = i >= 2 && random() < 0.6 ? "?" : "";
    lines.push(`${indent}  /** The ${name} (${type.length > 20 ? "structured" : type}). */`);
    lines.push(`${indent}  ${name}${optional}: ${type};`);
  }
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/** Declarations in the shape the real generator emits: one `declare const` per connector. */
export function benchDeclarations(
  connectors = CONNECTORS,
  toolsPerConnector = TOOLS_PER_CONNECTOR,
): string {
  const random = prng(42);
  const out: string[] = [];
  for (let c = 0; c < connectors; c++) {
    out.push(`/** Connector ${c}: tools of service number ${c}. */`);
    out.push(`declare const svc${c}: {`);
    for (let t = 0; t < toolsPerConnector; t++) {
      const name = `${VERBS[t % VERBS.length]}${NOUNS[(c + t) % NOUNS.length][0].toUpperCase()}${
        NOUNS[(c + t) % NOUNS.length].slice(1)
      }${t}`;
      out.push(`  /** ${name}: does ${name} on service ${c}; see the service's API docs. */`);
      // Tool 0 has a fixed shape: the benchmark script calls it.
      const args = t === 0
        ? "{ id: string; limit: number; cursor?: string }"
        : objectType(random, "  ", 2, 6);
      const result = objectType(random, "  ", 2, 5);
      out.push(`  ${name}(args: ${args}): Promise<${result}>;`);
    }
    out.push("};");
  }
  out.push("declare const codemode: {");
  out.push("  /** Runs `fn` once; a replay returns the recorded value. */");
  out.push("  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;");
  out.push("};");
  return out.join("\n");
}

/** A 30-line script calling a few of the tools; `variant` changes a constant. */
export function benchScript(variant: number): string {
  return `interface Row { id: string; score: number; tags: string[] }
const LIMIT = ${10 + variant}, rows: Row[] = [];
const page = await svc0.listIssue0({ id: "u-${variant}", limit: LIMIT });
for (let i = 0; i < LIMIT; i++) {
  rows.push({ id: \`r\${i}\`, score: (i * ${variant + 7}) % 13, tags: ["a", "b"] });
}
const best = rows
  .filter((r) => r.score > 3)
  .sort((a, b) => b.score - a.score)
  .slice(0, 5);
const byTag = new Map<string, Row[]>();
for (const row of best) {
  for (const tag of row.tags) {
    const list = byTag.get(tag) ?? [];
    list.push(row);
    byTag.set(tag, list);
  }
}
const when = await codemode.step("now", () => new Date().toISOString());
const results = await Promise.all(best.map((r) => svc1.listUser0({ id: r.id, limit: 1 })));
console.log(\`checked \${results.length} at \${when}\`, page);
const summary = {
  total: rows.length,
  best: best.map((r) => r.id),
  tags: [...byTag.keys()].sort(),
  input: input ?? null,
};
const json = JSON.stringify(summary);
if (json.length > ${1000 + variant}) throw new Error("too long");
return summary;`;
}

/** Cold and warm check times; runs in this process (see {@link typecheckBench} for a fresh one). */
export async function measureTypecheck(samples = 200) {
  const declarations = benchDeclarations();
  const tools = CONNECTORS * TOOLS_PER_CONNECTOR;
  // Imported here so its cost (loading the TypeScript compiler) is measured too.
  const load = await timed(() => import("../src/engine/typecheck/check.ts"));
  using checker = new load.value.TypeChecker();
  const request = (variant: number, declarationHash = "catalogue-1") => ({
    code: benchScript(variant),
    form: "script" as const,
    declarations,
    declarationHash,
  });
  const cold = await timed(() => Promise.resolve(checker.check(request(0))));
  const problems = [...cold.value.syntaxErrors, ...cold.value.diagnostics];
  check(problems.length === 0, `the bench script has errors: ${JSON.stringify(problems)}`);
  const wrong = checker.check({
    ...request(1),
    code: benchScript(1).replace("limit: 1 }", 'limit: "1" }'),
  });
  check(wrong.diagnostics.some((d) => d.code === 2322), "a wrong argument type went unnoticed");
  const newCatalogue = checker.check(request(2, "catalogue-2"));
  for (let i = 0; i < 20; i++) checker.check(request(3 + i)); // warm the JIT
  const warm: number[] = [];
  const cpuBefore = await cpuSnapshot();
  for (let i = 0; i < samples; i++) {
    const { ms, value } = await timed(() => Promise.resolve(checker.check(request(100 + i))));
    check(value.diagnostics.length === 0, "a warm check found errors in a correct script");
    warm.push(ms);
  }
  const cpuAfter = await cpuSnapshot();
  return {
    /** Importing the checker module, which loads the TypeScript compiler. */
    importMs: round(load.ms, 1),
    /** The first check in the process: lib files, declarations, the check. */
    coldMs: round(cold.ms, 1),
    /** A check whose declarations are new (libs already warm): one catalogue change. */
    newDeclarationsMs: round(newCatalogue.ms, 1),
    warmMs: brief(warm),
    declarationsChars: declarations.length,
    tools,
    scriptLines: benchScript(0).split("\n").length,
    samples: warm.length,
    stats: checker.stats,
    /** Other processes' share of the CPUs during the warm samples; above a few %, disturbed. */
    otherCpuPercent: otherCpuPercent(cpuBefore, cpuAfter),
  };
}

/** Runs {@link measureTypecheck} in a fresh `deno` child and returns its figures. */
export async function typecheckBench(
  samples = 200,
): Promise<Awaited<ReturnType<typeof measureTypecheck>>> {
  return await inFreshChild(import.meta.url, samples, "typecheck");
}

if (import.meta.main) {
  const arg = Deno.args.find((a) => a.startsWith("--samples="));
  const samples = arg ? Number(arg.split("=")[1]) : 200;
  const report = await measureTypecheck(samples);
  if (Deno.args.includes("--json")) console.log(JSON.stringify(report));
  else {
    progress(`typecheck: ${samples} warm samples`);
    console.log(JSON.stringify(report, null, 2));
  }
}
