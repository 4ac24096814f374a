/**
 * The shape of `src/`, checked (docs/architecture.md draws it): imports
 * point down the layers, and inside `engine/` and `service/` down the
 * capability folders; there is no import cycle, type-only imports included;
 * no file is over 300 lines; every capability folder has a `mod.ts` saying
 * what it owns, and `tests/` mirrors those folders. There is no list of
 * exceptions: a change that breaks a rule fails here.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** The layers, lowest first; a file may import its own layer's files and lower ones. */
const LAYERS: Record<string, number> = {
  "bytes.ts": 0,
  "errors.ts": 0,
  "hash.ts": 0,
  "ids.ts": 0,
  "loop.ts": 0,
  "version.ts": 0,
  rpc: 1,
  sandbox: 2,
  store: 2,
  connectors: 3,
  engine: 4,
  service: 5,
  testing: 5,
  integrations: 5,
};

/**
 * Inside `engine/` and `service/`, one folder per capability, in order: a file may import the files
 * of its own folder and of folders ranked lower (docs/architecture.md says why in this order).
 */
const FOLDERS: Record<string, Record<string, number>> = {
  engine: {
    common: 0,
    source: 1,
    semantic: 1,
    artifacts: 1,
    logs: 1,
    packages: 2,
    workspaces: 2,
    catalogue: 2,
    languages: 3,
    typecheck: 3,
    sessions: 3,
    execution: 4,
    snippets: 5,
    programs: 5,
    discovery: 6,
    code: 6,
    runtime: 7,
    "mod.ts": 8,
  },
  service: { http: 0, access: 1, requests: 2, routes: 3, mcp: 3, console: 3, server: 4 },
};

/** The most lines a file should hold (STYLE.md: past it, it is two concepts). */
const MAX_LINES = 300;

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

/** A file's capability folder inside `engine/` or `service/` and its rank, if it lies in one. */
function folderOf(file: string): { name: string; rank: number | undefined } | undefined {
  const [top, name] = file.split("/");
  const folders = FOLDERS[top];
  return folders && name !== undefined ? { name, rank: folders[name] } : undefined;
}

/** Why an import runs the wrong way, or undefined when it points down. */
function wrongWay(from: string, to: string): string | undefined {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === undefined || b === undefined) return `${from} or ${to} is in no layer`;
  if (b > a) return "up the layers";
  if (a === b && a !== 0 && from.split("/")[0] !== to.split("/")[0]) return "across the layers";
  const fa = folderOf(from);
  const fb = folderOf(to);
  if (!fa || !fb || from.split("/")[0] !== to.split("/")[0]) return undefined;
  if (fa.rank === undefined) return `${from} is in no capability folder`;
  if (fb.rank === undefined) return `${to} is in no capability folder`;
  if (fa.name !== fb.name && fb.rank >= fa.rank) return "up or across the capability folders";
  return undefined;
}

Deno.test("src/ imports point down: the layers, then the capability folders inside engine/ and service/", async () => {
  const { graph } = await sourceGraph();
  const wrong: string[] = [];
  for (const [from, deps] of graph) {
    for (const to of deps) {
      const why = wrongWay(from, to);
      if (why) wrong.push(`${from} -> ${to} (${why})`);
    }
  }
  assert.deepEqual(wrong, [], "imports that run up or across");
});

Deno.test("wrongWay: what the import rules refuse and allow", () => {
  assert.equal(wrongWay("engine/execution/pass.ts", "rpc/peer.ts"), undefined);
  assert.equal(wrongWay("rpc/peer.ts", "engine/execution/pass.ts"), "up the layers");
  assert.equal(wrongWay("store/calls.ts", "sandbox/child.ts"), "across the layers");
  assert.equal(wrongWay("engine/runtime/runtime.ts", "engine/execution/engine.ts"), undefined);
  assert.equal(
    wrongWay("engine/execution/pass.ts", "engine/discovery/platform.ts"),
    "up or across the capability folders",
  );
  assert.equal(
    wrongWay("engine/discovery/api.ts", "engine/code/executor.ts"),
    "up or across the capability folders",
  );
  assert.equal(wrongWay("engine/execution/pass.ts", "engine/execution/journal.ts"), undefined);
  assert.equal(
    wrongWay("engine/stray.ts", "engine/common/paging.ts"),
    "engine/stray.ts is in no capability folder",
  );
  assert.equal(wrongWay("service/server/app.ts", "service/routes/sse.ts"), undefined);
  assert.equal(
    wrongWay("service/access/keys.ts", "service/server/config.ts"),
    "up or across the capability folders",
  );
});

Deno.test("src/ has no import cycle, type-only imports included", async () => {
  const { graph } = await sourceGraph();
  assert.deepEqual(cycles(graph), [], "import cycles");
});

Deno.test("cycles: finds a loop of type-only imports, and none in a chain", () => {
  const loop = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", [
    "a.ts",
  ]]]);
  assert.deepEqual(cycles(loop), [["a.ts", "b.ts", "c.ts"]]);
  assert.deepEqual(cycles(new Map([["a.ts", ["b.ts"]], ["b.ts", []]])), []);
});

Deno.test("no file in src/ is over 300 lines", async () => {
  const { lines } = await sourceGraph();
  const over: string[] = [];
  for (const [file, count] of lines) {
    if (count > MAX_LINES) over.push(`${file}: ${count} lines (at most ${MAX_LINES})`);
  }
  assert.deepEqual(over, [], "files too long");
});

Deno.test("tests/ mirrors the capability folders of src/engine and src/service", async () => {
  const TESTS = fileURLToPath(new URL("./", import.meta.url));
  const strays: string[] = [];
  for (const top of Object.keys(FOLDERS)) {
    for await (const entry of Deno.readDir(join(TESTS, top))) {
      if (entry.isDirectory && !(entry.name in FOLDERS[top])) strays.push(`${top}/${entry.name}`);
      if (entry.isFile && entry.name.endsWith("_test.ts")) strays.push(`${top}/${entry.name}`);
    }
  }
  assert.deepEqual(strays, [], "test folders (or tests) outside the capability folders");
});

Deno.test("every capability folder of engine/ and service/ has a mod.ts that opens by saying what it owns", async () => {
  const missing: string[] = [];
  for (const [top, folders] of Object.entries(FOLDERS)) {
    for (const name of Object.keys(folders)) {
      if (name.endsWith(".ts")) continue;
      const text = await Deno.readTextFile(join(SRC, top, name, "mod.ts")).catch(() => "");
      if (!/^\/\*\*\n \* \S/.test(text)) missing.push(`${top}/${name}/mod.ts`);
    }
  }
  assert.deepEqual(missing, [], "capability folders without a mod.ts doc comment");
});
