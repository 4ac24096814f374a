import assert from "node:assert/strict";
import ts from "typescript";
import {
  isShape,
  MAX_FIELD_NAME_LENGTH,
  mergeShapes,
  observeShape,
  type Shape,
  shapeToTs,
} from "../../src/connectors/shape.ts";
import { githubIssue, SECRET } from "../fixtures/shapes.ts";

function mergeAll(values: unknown[], limits?: Parameters<typeof observeShape>[1]): Shape {
  return values.map((v) => observeShape(v, limits)).reduce((a, b) => mergeShapes(a, b, limits));
}

function ts_(value: unknown, limits?: Parameters<typeof observeShape>[1]): string {
  return shapeToTs(observeShape(value, limits));
}

const TS_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  types: [],
};
const TS_FILE = "/virtual/shape_check.ts";

/** Type errors of `source`, checked by the real compiler against the ES lib. */
function typeErrors(source: string): string[] {
  const host = ts.createCompilerHost(TS_OPTIONS);
  const read = host.getSourceFile;
  host.getSourceFile = (name, version, ...rest) =>
    name === TS_FILE
      ? ts.createSourceFile(name, source, version)
      : read.call(host, name, version, ...rest);
  const program = ts.createProgram([TS_FILE], TS_OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, "\n")
  );
}

Deno.test("shapeToTs() quotes property names that are not identifiers", () => {
  const value = { "created-at": "x", "with space": 1, $ok: true, _id: 1, "0day": null, "é": 1 };
  assert.equal(
    ts_(value),
    '{ "created-at": string; "with space": number; $ok: boolean; _id: number; "0day": null; "é": number }',
  );
  assert.equal(ts_({}), "Record<string, never>");
});

Deno.test("shapeToTs() output type-checks and accepts the samples it came from", () => {
  const corpus: unknown[][] = [
    [
      githubIssue(1),
      githubIssue(2),
      githubIssue(3),
      githubIssue(4, { pull_request: { url: "u" } }),
    ],
    [{ "created-at": 1, 'quote"d': "x", "back\\slash": true, "new\nline": null, __proto__x: 1 }],
    [{ "1001": { a: [1, "x"] } }, { "1002": { a: [] } }],
    [[{ a: 1 }, null], [], [{ a: 2, b: [[1.5]] }]],
    [{ v: "a" }, { v: 1 }, { v: true }, { v: [] }, { v: null }],
    [{ ok: true, data: { items: [{ id: 1 }] } }, { ok: false, error: "x" }],
    [{}],
  ];
  const source: string[] = [];
  corpus.forEach((values, i) => {
    source.push(`type T${i} = ${shapeToTs(mergeAll(values))};`);
    values.forEach((v, j) => source.push(`const s${i}_${j}: T${i} = ${JSON.stringify(v)};`));
  });
  source.push(
    `type D = ${shapeToTs(mergeAll([{ at: new Date(), raw: new Uint8Array(), n: 1n }]))};`,
  );
  source.push(`const d: D = { at: new Date(), raw: new Uint8Array(), n: 1n };`);
  source.push(`type M = ${ts_({ m: new Map([[1, new Set(["a"])]]) })};`);
  source.push(`const m: M = { m: new Map([[1, new Set(["a"])]]) };`);
  const errors = typeErrors(source.join("\n"));
  assert.deepEqual(errors, [], source.join("\n"));
  // And the check itself can fail.
  assert.notDeepEqual(typeErrors(`type T = ${ts_({ a: 1 })};\nconst t: T = { a: "x" };`), []);
});

Deno.test("isShape() accepts stored shapes and rejects garbage", () => {
  const good = mergeAll([githubIssue(1), githubIssue(2), { "1001": new Map([[1, new Set([1])]]) }]);
  assert.ok(isShape(JSON.parse(JSON.stringify(good))));
  assert.ok(isShape(observeShape([])));
  const okObject = { samples: 1, kinds: [{ kind: "object", count: 1, fields: [] }] };
  assert.ok(isShape(okObject));
  const bad: unknown[] = [
    null,
    "shape",
    [],
    {},
    { samples: 1 },
    { samples: -1, kinds: [{ kind: "string" }] },
    { samples: 1.5, kinds: [{ kind: "string" }] },
    { samples: 1, kinds: [] },
    { samples: 1, kinds: [{ kind: "widget" }] },
    { samples: 1, kinds: [{ kind: "string", value: SECRET }] },
    { samples: 1, kinds: [{ kind: "string" }], extra: true },
    { samples: 1, kinds: [{ kind: "string" }, { kind: "string" }] },
    { samples: 1, kinds: [{ kind: "unknown" }, { kind: "null" }] },
    { samples: 1, kinds: [{ kind: "array", items: "string" }] },
    { samples: 1, kinds: [{ kind: "record" }] },
    { samples: 1, kinds: [{ kind: "object", count: 1, fields: [], more: false }] },
    { samples: 1, kinds: [{ kind: "object", count: 1, fields: {} }] },
    { samples: 1, kinds: [{ kind: "object", count: 1, fields: [], values: okObject }] },
    {
      samples: 1,
      kinds: [{
        kind: "object",
        count: 1,
        fields: [{ name: "a", shape: okObject }, { name: "a", shape: okObject }],
      }],
    },
    { samples: 1, kinds: [{ kind: "object", count: 1, fields: [{ name: "", shape: okObject }] }] },
    {
      samples: 1,
      kinds: [{
        kind: "object",
        count: 1,
        fields: [{ name: "x".repeat(MAX_FIELD_NAME_LENGTH + 1), shape: okObject }],
      }],
    },
    {
      samples: 1,
      kinds: [{ kind: "record", values: okObject }, { kind: "object", count: 1, fields: [] }],
    },
  ];
  for (const value of bad) assert.equal(isShape(value), false, JSON.stringify(value));
  // Nesting far past any limit is refused without exhausting the stack.
  let deep: unknown = { samples: 1, kinds: [{ kind: "null" }] };
  for (let i = 0; i < 10_000; i++) deep = { samples: 1, kinds: [{ kind: "array", items: deep }] };
  assert.equal(isShape(deep), false);
});
