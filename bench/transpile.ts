/**
 * Transpiler comparison on a 30-line model-style TypeScript module: sucrase
 * (with Cordon's options), TypeScript's `transpileModule`, amaro (Node's
 * type stripper, strip-only) and esbuild-wasm (its browser build, run
 * in-process with `worker: false`).
 *
 * The candidates are loaded by dynamic imports of computed `npm:`
 * specifiers, and {@link transpileBench} measures them in a child `deno`
 * started with `--no-lock`, so neither deno.json nor deno.lock changes and
 * the numbers come from a fresh process. Run alone:
 *
 * ```sh
 * deno run --no-lock --allow-all bench/transpile.ts [--samples=500]
 * ```
 *
 * @module
 */
import { transform as sucraseTransform } from "sucrase";
import { check, inFreshChild, percentile, progress, round } from "./stats.ts";

const TYPESCRIPT = "npm:typescript@5.9.3";
const AMARO = "npm:amaro@1.2.1";
const ESBUILD = "npm:esbuild-wasm@0.25.12";

/** What a model writes: types, interfaces, generics, async arrows, optional chaining. */
export const SAMPLE = `interface Customer {
  id: string;
  name: string;
  email?: string;
  tier: "free" | "pro" | "enterprise";
}

type Page<T> = { items: T[]; next?: string };

function pluck<T, K extends keyof T>(items: readonly T[], key: K): T[K][] {
  return items.map((item) => item[key]);
}

export default async function main(input: { region: string; limit?: number }) {
  const limit: number = input.limit ?? 20;
  const page = (await crm.listCustomers({ region: input.region, limit })) as Page<Customer>;
  const paying = page.items.filter((c): c is Customer & { email: string } =>
    c.tier !== "free" && !!c.email
  );
  const invoices = await Promise.all(paying.map(async (c) => {
    const list = await billing.invoices({ customerId: c.id });
    const open = list?.items?.filter((i: { status: string }) => i.status === "open") ?? [];
    return { customer: c, open };
  }));
  const overdue = invoices.filter((x) => x.open.length > 0);
  const sent: string[] = await Promise.all(overdue.map(({ customer, open }) =>
    mail.send({ to: customer.email, subject: \`\${open.length} open invoice(s)\` })
  ));
  console.log(\`sent \${sent.length} notices\`, pluck(overdue.map((o) => o.customer), "name"));
  return { total: sent.length, ids: pluck(paying, "id"), next: page.next ?? null };
}
`;

/** The options Cordon passes to sucrase (src/engine/source.ts). */
const SUCRASE_OPTIONS = {
  transforms: ["typescript" as const],
  disableESTransforms: true,
  preserveDynamicImport: true,
};

type Transpile = (code: string) => string | Promise<string>;

/** One transpiler's figures, or why it could not run. */
export interface TranspileResult {
  name: string;
  version: string;
  p50Ms?: number;
  p99Ms?: number;
  meanMs?: number;
  samples?: number;
  /** Output keeps the input's line numbers. */
  keepsLines?: boolean;
  /** Load and first transform, in ms. */
  setupMs?: number;
  error?: string;
}

// deno-lint-ignore no-explicit-any
type Any = any;

/** Imports a module whose specifier `deno check` must not resolve (see the module docs). */
function load(specifier: string): Promise<Any> {
  return import(specifier);
}

function candidates(): { name: string; version: string; make: () => Promise<Transpile> }[] {
  return [
    {
      name: "sucrase",
      version: "3.35.1",
      make: () => Promise.resolve((code) => sucraseTransform(code, SUCRASE_OPTIONS).code),
    },
    {
      name: "amaro (strip-only)",
      version: AMARO.split("@").pop()!,
      make: async () => {
        const amaro = await load(AMARO);
        return (code) => amaro.transformSync(code, { mode: "strip-only" }).code;
      },
    },
    {
      name: "typescript transpileModule",
      version: TYPESCRIPT.split("@").pop()!,
      make: async () => {
        const ts = (await load(TYPESCRIPT)).default;
        const compilerOptions = { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext };
        return (code) => ts.transpileModule(code, { compilerOptions }).outputText;
      },
    },
    {
      name: "esbuild-wasm (in-process, worker: false)",
      version: ESBUILD.split("@").pop()!,
      make: async () => {
        const spec = `${ESBUILD}/esm/browser.js`;
        const esbuild = await load(spec);
        const wasm = await Deno.readFile(new URL("../esbuild.wasm", import.meta.resolve(spec)));
        await esbuild.initialize({ wasmModule: await WebAssembly.compile(wasm), worker: false });
        const options = { loader: "ts", format: "esm", target: "esnext" };
        return async (code) => (await esbuild.transform(code, options)).code;
      },
    },
  ];
}

/** Imports the output as a module: proves it is valid JavaScript. */
async function assertValid(js: string): Promise<void> {
  const mod = await import(`data:application/javascript,${encodeURIComponent(js)}`);
  check(typeof mod.default === "function", "the transpiled module has no default function");
}

/** Measures every candidate in this process: warm-up, then `samples` transforms each. */
export async function measureTranspilers(samples = 500, maxMsEach = 6_000) {
  const results: TranspileResult[] = [];
  for (const c of candidates()) {
    const base = { name: c.name, version: c.version };
    try {
      const t0 = performance.now();
      const fn = await c.make();
      const first = await fn(SAMPLE);
      const setupMs = round(performance.now() - t0, 1);
      await assertValid(first);
      const keepsLines = first.split("\n").length === SAMPLE.split("\n").length;
      for (let i = 0; i < 50; i++) await fn(SAMPLE); // warm the JIT
      const times: number[] = [];
      const deadline = performance.now() + maxMsEach;
      while (times.length < samples && performance.now() < deadline) {
        const start = performance.now();
        await fn(SAMPLE);
        times.push(performance.now() - start);
      }
      results.push({
        ...base,
        p50Ms: round(percentile(times, 50), 3),
        p99Ms: round(percentile(times, 99), 3),
        meanMs: round(times.reduce((a, b) => a + b, 0) / times.length, 3),
        samples: times.length,
        keepsLines,
        setupMs,
      });
    } catch (err) {
      results.push({ ...base, error: err instanceof Error ? err.message : String(err) });
    }
    progress(`  transpile ${c.name}: ${JSON.stringify(results.at(-1)).slice(0, 160)}`);
  }
  return { sampleLines: SAMPLE.split("\n").length, results };
}

/** Runs {@link measureTranspilers} in a fresh `deno --no-lock` child and returns its figures. */
export async function transpileBench(samples = 500): Promise<
  Awaited<ReturnType<typeof measureTranspilers>>
> {
  return await inFreshChild(import.meta.url, samples, "transpile", ["--no-lock"]);
}

if (import.meta.main) {
  const arg = Deno.args.find((a) => a.startsWith("--samples="));
  const samples = arg ? Number(arg.split("=")[1]) : 500;
  const report = await measureTranspilers(samples);
  if (Deno.args.includes("--json")) {
    console.log(JSON.stringify(report));
  } else {
    console.table(report.results);
  }
  // esbuild's Go runtime keeps timers alive; end the process once the figures are out.
  Deno.exit(0);
}
