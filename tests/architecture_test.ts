/**
 * The shape of `src/`, checked: imports point down the layers (DESIGN.md),
 * no new import cycle appears, and no new file grows past 300 lines.
 *
 * What exists today is listed below as known debt, to be paid by the
 * engine's re-layout (issue 12); each list may only shrink. A cycle or an
 * upward import not listed here fails the test, so the debt cannot grow while
 * it is paid.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** The layers, lowest first; a file may import its own layer's files and lower ones. */
const LAYERS: Record<string, number> = {
  "errors.ts": 0,
  "hash.ts": 0,
  "ids.ts": 0,
  "version.ts": 0,
  rpc: 1,
  sandbox: 2,
  store: 2,
  connectors: 3,
  engine: 4,
  service: 5,
  testing: 5,
};

/** Imports that cross layers the wrong way today (from → to, relative to `src/`). */
const KNOWN_UPWARD: readonly string[] = [];

/** Cycles today, each as its files; a cycle must lie inside one of these. */
const KNOWN_CYCLES: readonly (readonly string[])[] = [
  [
    "engine/admission.ts",
    "engine/artifacts_api.ts",
    "engine/checked.ts",
    "engine/code_executor.ts",
    "engine/control.ts",
    "engine/discovery_api.ts",
    "engine/engine.ts",
    "engine/events.ts",
    "engine/logs.ts",
    "engine/pass.ts",
    "engine/platform.ts",
    "engine/runtime_types.ts",
    "engine/session_runs.ts",
    "engine/sessions.ts",
    "engine/sessions_api.ts",
    "engine/types.ts",
    "engine/workspace.ts",
    "engine/workspace_outputs.ts",
    "engine/workspace_quota.ts",
    "engine/workspace_types.ts",
  ],
];

/** The most lines a file should hold (STYLE.md: past it, it is two concepts). */
const MAX_LINES = 300;

/** Files over {@link MAX_LINES} today, with their length then; they may shrink, not grow. */
const KNOWN_LONG: Readonly<Record<string, number>> = {
  "engine/engine.ts": 604,
  "engine/pass.ts": 602,
  "sandbox/child.ts": 453,
  "sandbox/guest/entry.ts": 413,
  "engine/runtime_types.ts": 387,
  "connectors/registry.ts": 372,
  "rpc/peer.ts": 370,
  "engine/journal.ts": 364,
  "engine/runtime.ts": 354,
  "engine/sessions.ts": 343,
  "engine/workspace.ts": 331,
  "engine/snippets.ts": 317,
  "rpc/codec.ts": 314,
  "engine/code_executor.ts": 306,
  "connectors/builtin/state.ts": 304,
};

/** Static imports and re-exports of relative paths, type-only ones included. */
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|(?:^|\n)\s*import\s+"(\.[^"]+)"/g;

async function sourceGraph(): Promise<
  { graph: Map<string, string[]>; lines: Map<string, number> }
> {
  const graph = new Map<string, string[]>();
  const lines = new Map<string, number>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(path);
        const name = relative(SRC, path);
        lines.set(name, text.split("\n").length);
        const deps = [...text.matchAll(IMPORT)]
          .map((m) => resolve(dirname(path), m[1] ?? m[2]))
          .filter((d) => d.startsWith(SRC))
          .map((d) => relative(SRC, d));
        graph.set(name, deps);
      }
    }
  };
  await walk(SRC);
  return { graph, lines };
}

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

function layerOf(file: string): number | undefined {
  return LAYERS[file.split("/")[0]];
}

Deno.test("src/ imports point down the layers: rpc → sandbox/store → connectors → engine → service", async () => {
  const { graph } = await sourceGraph();
  const upward: string[] = [];
  for (const [from, deps] of graph) {
    for (const to of deps) {
      const a = layerOf(from);
      const b = layerOf(to);
      assert.ok(a !== undefined && b !== undefined, `${from} or ${to} is in no layer`);
      const sideways = a === b && a !== 0 && from.split("/")[0] !== to.split("/")[0];
      if (b > a || sideways) upward.push(`${from} -> ${to}`);
    }
  }
  const fresh = upward.filter((u) => !KNOWN_UPWARD.includes(u));
  assert.deepEqual(fresh, [], "imports that run up (or across) the layers");
});

Deno.test("src/ has no import cycle beyond the known ones, which may only shrink", async () => {
  const { graph } = await sourceGraph();
  const fresh = cycles(graph).filter((cycle) =>
    !KNOWN_CYCLES.some((known) => cycle.every((file) => known.includes(file)))
  );
  assert.deepEqual(fresh, [], "new import cycles");
});

Deno.test("no file in src/ grows past 300 lines, and the known long ones do not grow", async () => {
  const { lines } = await sourceGraph();
  const over: string[] = [];
  for (const [file, count] of lines) {
    const bound = Math.max(MAX_LINES, KNOWN_LONG[file] ?? 0);
    if (count > bound) over.push(`${file}: ${count} lines (at most ${bound})`);
  }
  assert.deepEqual(over, [], "files too long");
});
