/**
 * Session code: the top-level declarations of a script-form execution
 * become globals of the session's child, so the next execution in the same
 * session sees them (`const rows = await db.query(…)` now, `rows.length`
 * next time). The transpiled module is parsed with acorn and edited by
 * offsets:
 *
 * - `const|let|var a = 1, { b } = o` → `;(a = 1, { b } = o);`
 * - `class C {…}` → `;(C = class C {…});`
 * - `function f() {…}` stays (hoisted) and is copied to `globalThis.f`.
 *
 * Each declared name is created on `globalThis` (as `undefined`) if absent,
 * so assignments work in strict mode. Declarations inside blocks stay local;
 * function- and module-form code is left as it is.
 *
 * @module
 */
import { parse } from "acorn";
import { CordonError } from "../../errors.ts";
import type { PreparedSource } from "../source/source.ts";

/** Session-ready code and the names it declares at top level. */
export interface SessionSource extends PreparedSource {
  declared: string[];
}

// acorn's node shapes, as far as this file reads them.
interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/** Names bound by a declaration pattern (`a`, `{ b, c: d }`, `[e, ...f]`, `g = 1`). */
function patternNames(p: Node | null | undefined, out: string[]): void {
  if (!p) return;
  switch (p.type) {
    case "Identifier":
      out.push(p.name as string);
      break;
    case "ObjectPattern":
      for (const prop of p.properties as Node[]) {
        patternNames((prop.type === "RestElement" ? prop.argument : prop.value) as Node, out);
      }
      break;
    case "ArrayPattern":
      for (const el of p.elements as (Node | null)[]) patternNames(el, out);
      break;
    case "RestElement":
      patternNames(p.argument as Node, out);
      break;
    case "AssignmentPattern":
      patternNames(p.left as Node, out);
      break;
  }
}

const cache = new Map<string, SessionSource>();
const CACHE_ENTRIES = 128;

/** Rewrites a prepared script so its top-level declarations persist in the session. */
export function sessionSource(prepared: PreparedSource): SessionSource {
  if (prepared.form !== "script") return { ...prepared, declared: [] };
  const hit = cache.get(prepared.module);
  if (hit) return hit;
  const src = prepared.module;
  let program: Node;
  try {
    program = parse(src, { ecmaVersion: "latest", sourceType: "module" }) as unknown as Node;
  } catch (err) {
    throw new CordonError("syntax_error", `Syntax error: ${(err as Error).message}`);
  }
  const exported = (program.body as Node[]).find((n) => n.type === "ExportDefaultDeclaration");
  const fn = exported?.declaration as Node | undefined;
  const body = (fn?.body as Node | undefined)?.body as Node[] | undefined;
  if (!fn || !body) return { ...prepared, declared: [] };
  const edits: { start: number; end: number; text: string }[] = [];
  const declared: string[] = [];
  const hoisted: string[] = [];
  for (const stmt of body) {
    if (stmt.type === "VariableDeclaration") {
      const decls = stmt.declarations as Node[];
      const parts = decls.map((d) => {
        patternNames(d.id as Node, declared);
        const id = d.id as Node;
        return d.init ? src.slice(d.start, d.end) : `${src.slice(id.start, id.end)} = undefined`;
      });
      edits.push({ start: stmt.start, end: stmt.end, text: `;(${parts.join(", ")});` });
    } else if (stmt.type === "ClassDeclaration" && stmt.id) {
      const name = (stmt.id as Node).name as string;
      declared.push(name);
      edits.push({
        start: stmt.start,
        end: stmt.end,
        text: `;(${name} = ${src.slice(stmt.start, stmt.end)});`,
      });
    } else if (stmt.type === "FunctionDeclaration" && stmt.id) {
      const name = (stmt.id as Node).name as string;
      declared.push(name);
      hoisted.push(name);
    }
  }
  if (declared.length === 0) {
    const plain = { ...prepared, declared };
    remember(prepared.module, plain);
    return plain;
  }
  const names = [...new Set(declared)];
  // The prelude goes on the function's first line, so line numbers do not move.
  const prelude = `for (const n of ${JSON.stringify(names)}) if (!(n in globalThis)) ` +
    `globalThis[n] = undefined; ${
      hoisted.map((h) => `globalThis[${JSON.stringify(h)}] = ${h};`).join(" ")
    }`;
  const open = (fn.body as Node).start + 1;
  edits.push({ start: open, end: open, text: prelude });
  edits.sort((a, b) => b.start - a.start);
  let module = src;
  for (const e of edits) module = module.slice(0, e.start) + e.text + module.slice(e.end);
  const out: SessionSource = { ...prepared, module, declared: names };
  remember(prepared.module, out);
  return out;
}

function remember(key: string, value: SessionSource): void {
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}
