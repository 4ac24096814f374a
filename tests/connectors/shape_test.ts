import assert from "node:assert/strict";
import {
  MAX_FIELD_NAME_LENGTH,
  MAX_ITEMS_OBSERVED,
  mergeShapes,
  observeShape,
  type Shape,
  SHAPE_LIMITS,
  type ShapeKind,
  shapeToTs,
} from "../../src/connectors/shape.ts";
import { githubIssue, SECRET, SECRET_NUMBER } from "../fixtures/shapes.ts";

function mergeAll(values: unknown[], limits?: Parameters<typeof observeShape>[1]): Shape {
  return values.map((v) => observeShape(v, limits)).reduce((a, b) => mergeShapes(a, b, limits));
}

function ts_(value: unknown, limits?: Parameters<typeof observeShape>[1]): string {
  return shapeToTs(observeShape(value, limits));
}

/** Fields sorted by name, recursively: equal when two shapes differ only in field order. */
function canonical(shape: Shape): Shape {
  return {
    samples: shape.samples,
    kinds: shape.kinds.map((k): ShapeKind => {
      switch (k.kind) {
        case "array":
        case "set":
          return k.items ? { ...k, items: canonical(k.items) } : k;
        case "map":
          return {
            ...k,
            ...(k.keys ? { keys: canonical(k.keys) } : {}),
            ...(k.values ? { values: canonical(k.values) } : {}),
          };
        case "record":
          return { ...k, values: canonical(k.values) };
        case "object":
          return {
            ...k,
            fields: k.fields.map((f) => ({ name: f.name, shape: canonical(f.shape) }))
              .sort((a, b) => a.name < b.name ? -1 : 1),
          };
        default:
          return k;
      }
    }),
  };
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest])
  );
}

Deno.test("observeShape() records primitives as kinds", () => {
  assert.equal(ts_("x"), "string");
  assert.equal(ts_(3), "number");
  assert.equal(observeShape(3).kinds[0].kind, "integer");
  assert.equal(observeShape(2.5).kinds[0].kind, "number");
  assert.equal(ts_(NaN), "number");
  assert.equal(ts_(true), "boolean");
  assert.equal(ts_(null), "null");
  assert.equal(ts_(undefined), "undefined");
  assert.equal(ts_(12n), "bigint");
  assert.equal(ts_(new Date(0)), "Date");
  assert.equal(ts_(new Uint8Array([1, 2])), "Uint8Array");
  assert.equal(ts_(new ArrayBuffer(4)), "Uint8Array");
  assert.equal(ts_(() => 1), "unknown");
  assert.equal(ts_(new Map([["a", 1]])), "Map<string, number>");
  assert.equal(ts_(new Set(["a"])), "Set<string>");
  assert.equal(ts_(new Map()), "Map<unknown, unknown>");
});

Deno.test("mergeShapes() folds integer and number into number", () => {
  const merged = mergeShapes(observeShape(1), observeShape(1.5));
  assert.deepEqual(merged.kinds, [{ kind: "number" }]);
  assert.deepEqual(mergeShapes(merged, observeShape(2)).kinds, [{ kind: "number" }]);
  assert.deepEqual(observeShape([1, 2]).kinds, [{
    kind: "array",
    items: { samples: 2, kinds: [{ kind: "integer" }] },
  }]);
});

Deno.test("observeShape() merges array elements into one element shape", () => {
  assert.equal(ts_([]), "unknown[]");
  assert.equal(ts_([1, "a", null]), "(string | number | null)[]");
  assert.equal(ts_([[1], []]), "number[][]");
  assert.equal(ts_([{ a: 1 }, { a: 2, b: "x" }]), "{ a: number; b?: string }[]");
  assert.equal(ts_([{ a: 1 }, null]), "({ a: number } | null)[]");
  assert.equal(shapeToTs(mergeAll([[], ["x"]])), "string[]");
  // Holes are undefined, as the codec carries them.
  assert.equal(ts_([1, , 3]), "(number | undefined)[]");
});

Deno.test("mergeShapes() marks a field optional when some samples lack it", () => {
  const samples = [
    { id: 1, title: "a", labels: ["x"] },
    { id: 2, title: "b" },
    { id: 3, title: "c", labels: [] },
    { id: 4, title: "d" },
    { id: 5, title: "e", labels: ["y", "z"] },
  ];
  const shape = mergeAll(samples);
  assert.equal(shape.samples, 5);
  const obj = shape.kinds[0];
  assert.ok(obj.kind === "object");
  assert.equal(obj.count, 5);
  assert.equal(obj.fields.find((f) => f.name === "labels")?.shape.samples, 3);
  assert.equal(shapeToTs(shape), "{ id: number; title: string; labels?: string[] }");
  // A field set to undefined is absent on the wire, so optional too.
  assert.equal(shapeToTs(mergeAll([{ a: 1 }, { a: undefined }])), "{ a?: number }");
});

Deno.test("mergeShapes() gives the same shape in any order and grouping", () => {
  const cases: unknown[][] = [
    [{ id: 1, tags: ["a"] }, { id: 2, closed_at: null }, { id: 3, closed_at: "x", tags: [] }],
    [1, "a", null, 2.5],
    [[], [{ a: 1 }], [{ a: "x", b: true }]],
    [{ "1001": { name: "a" } }, { a: 1 }, { "2002": { name: "b", age: 3 } }],
    [githubIssue(1), githubIssue(2), githubIssue(3), githubIssue(4)],
  ];
  for (const values of cases) {
    const shapes = values.map((v) => observeShape(v));
    const expected = canonical(shapes.reduce((a, b) => mergeShapes(a, b)));
    for (const order of permutations(shapes)) {
      assert.deepEqual(canonical(order.reduce((a, b) => mergeShapes(a, b))), expected);
    }
    const [a, b, ...rest] = shapes;
    const rightFirst = mergeShapes(a, rest.reduce((x, y) => mergeShapes(x, y), b));
    assert.deepEqual(canonical(rightFirst), expected, "grouping changes nothing");
  }
});

Deno.test("observeShape() stores no values", () => {
  const value = {
    title: SECRET,
    count: SECRET_NUMBER,
    when: new Date(SECRET_NUMBER),
    big: BigInt(SECRET_NUMBER),
    bytes: new TextEncoder().encode(SECRET),
    tags: [SECRET, `${SECRET}-2`],
    nested: { deeper: { note: SECRET, n: SECRET_NUMBER } },
    byEmail: { [`alice+${SECRET}@example.com`]: 1, [`bob@example.com`]: 2 },
    byId: { [String(SECRET_NUMBER)]: { name: SECRET }, "cus_Nf8v12345": { name: SECRET } },
    lookup: new Map([[SECRET, SECRET_NUMBER]]),
    set: new Set([SECRET]),
    [`7f9c2ba4-e88f-11ee-b962-${SECRET_NUMBER}`]: SECRET,
    ["x".repeat(MAX_FIELD_NAME_LENGTH + 1)]: SECRET,
  };
  const shape = mergeAll([value, githubIssue(7), { ...value, count: SECRET_NUMBER + 1 }]);
  const json = JSON.stringify(shape);
  for (const secret of [SECRET, "hunter2", String(SECRET_NUMBER), "73914", "example.com", "cus_"]) {
    assert.ok(!json.includes(secret), `${secret} leaked into ${json}`);
  }
  assert.ok(!json.includes("x".repeat(MAX_FIELD_NAME_LENGTH)), "overlong key leaked");
  const rendered = shapeToTs(shape);
  assert.ok(!rendered.includes(SECRET) && !rendered.includes(String(SECRET_NUMBER)));
});

Deno.test("observeShape() turns objects keyed by ids into records", () => {
  assert.equal(
    ts_({ "1001": { name: "a" }, "1002": { name: "b", admin: true } }),
    "Record<string, { name: string; admin?: boolean }>",
  );
  assert.equal(ts_({ "a@x.io": 1, "b@y.io": 2 }), "Record<string, number>");
  assert.equal(
    ts_({ "2024-05-01": [1], "2024-05-02": [] }),
    "Record<string, number[]>",
  );
  // A record that meets a struct takes its fields as entries.
  assert.equal(shapeToTs(mergeAll([{ "1001": 1 }, { a: 2 }])), "Record<string, number>");
});

Deno.test("observeShape() treats a wide object with uniform values as a record", () => {
  const flags = Object.fromEntries(
    Array.from(
      { length: SHAPE_LIMITS.maxFields + 10 },
      (_, i) => [`feature_${"abcdefghij"[i % 10]}${i}`, i % 2 === 0],
    ),
  );
  assert.equal(ts_(flags), "Record<string, boolean>");
});

Deno.test("observeShape() keeps the first maxFields fields of a wide struct and marks the rest", () => {
  const wide = { a: "x", b: 1, c: true, d: null, e: [1], f: { g: 1 } };
  assert.equal(
    ts_(wide, { maxFields: 3 }),
    "{ a: string; b: number; c: boolean; [key: string]: unknown }",
  );
  // A key that is data is never a field, and says the object has more.
  assert.equal(
    ts_({ id: 1, name: "n", "9f86d081884c7d65": 1 }),
    "{ id: number; name: string; [key: string]: unknown }",
  );
});

Deno.test("mergeShapes() keeps the most frequent fields past maxFields", () => {
  const limits = { maxFields: 2 };
  const shape = mergeAll([{ a: 1, b: 1 }, { a: 1, rare: 1 }, { a: 1, b: 1 }], limits);
  assert.equal(shapeToTs(shape), "{ a: number; b?: number; [key: string]: unknown }");
  // Past the limit a dropped field's count is gone, so which survives can depend on order.
  const late = mergeAll([{ a: 1, rare: 1 }, { a: 1, b: 1 }, { a: 1, b: 1 }], limits);
  assert.equal(shapeToTs(late), "{ a: number; rare?: number; [key: string]: unknown }");
});

Deno.test("observeShape() turns containers past maxDepth into unknown", () => {
  const value = { a: { b: { c: 1 } }, n: 1 };
  assert.equal(ts_(value, { maxDepth: 2 }), "{ a: { b: unknown }; n: number }");
  assert.equal(ts_(value, { maxDepth: 0 }), "unknown");
  assert.equal(ts_([[["deep"]]], { maxDepth: 2 }), "unknown[][]");
  // Cycles end at the depth limit.
  const cyclic: Record<string, unknown> = { name: "loop" };
  cyclic.self = cyclic;
  assert.match(ts_(cyclic), /^\{ name: string; self: \{ name: string; self: /);
});

Deno.test("mergeShapes() turns a union past maxUnion into unknown", () => {
  const limits = { maxUnion: 3 };
  assert.equal(shapeToTs(mergeAll(["a", 1, true], limits)), "string | number | boolean");
  const four = mergeAll(["a", 1, true, null], limits);
  assert.equal(shapeToTs(four), "unknown");
  assert.equal(four.samples, 4);
  // Unknown absorbs: it stays unknown whatever comes next.
  assert.equal(shapeToTs(mergeShapes(four, observeShape("a"), limits)), "unknown");
  assert.equal(
    shapeToTs(mergeAll([{ v: "a" }, { v: 1 }, { v: true }, { v: [] }], limits)),
    "{ v: unknown }",
  );
});

Deno.test("mergeShapes() stays within maxNodes by cutting the deepest levels", () => {
  const payloads = Array.from({ length: 30 }, (_, i) => ({
    [`kind${"abcdefghijklmnopqrstuvwxyzABCD"[i]}`]: {
      inner: Object.fromEntries(
        Array.from({ length: 8 }, (_, j) => [`f${"abcdefgh"[j]}`, { x: i, y: [j] }]),
      ),
    },
  }));
  const limits = { maxNodes: 120 };
  const shape = mergeAll(payloads, limits);
  const nodes = JSON.stringify(shape).match(/"samples"/g)!.length;
  assert.ok(nodes <= 120, `${nodes} nodes`);
  assert.match(shapeToTs(shape), /^\{ kinda\?: /, "the top level survives");
  assert.ok(shapeToTs(shape).includes("unknown"), "deep levels were cut");
});

Deno.test("observeShape() observes a bounded sample of a long array", () => {
  const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: "row" }));
  const shape = observeShape(rows);
  const arr = shape.kinds[0];
  assert.ok(arr.kind === "array" && arr.items);
  assert.equal(arr.items.samples, MAX_ITEMS_OBSERVED);
  assert.equal(shapeToTs(shape), "{ id: number; name: string }[]");
});

Deno.test("observeShape() gives unknown for a value whose getter throws", () => {
  const hostile = { ok: 1 };
  Object.defineProperty(hostile, "boom", {
    enumerable: true,
    get() {
      throw new Error("no");
    },
  });
  assert.equal(ts_({ wrapper: hostile, n: 1 }), "{ wrapper: unknown; n: number }");
});

Deno.test("observeShape() refuses limits that are not non-negative integers", () => {
  for (const limits of [{ maxDepth: -1 }, { maxFields: 1.5 }, { maxUnion: 0 }, { maxNodes: NaN }]) {
    assert.throws(() => observeShape({}, limits), RangeError);
  }
  assert.equal(ts_({ a: 1 }, { maxDepth: undefined }), "{ a: number }");
});

Deno.test("observeShape() keeps a real API object within the default limits", () => {
  const shape = mergeAll(Array.from({ length: 8 }, (_, i) => githubIssue(i + 1)));
  const nodes = JSON.stringify(shape).match(/"samples"/g)!.length;
  assert.ok(nodes < SHAPE_LIMITS.maxNodes, `${nodes} nodes`);
  assert.equal(shape.samples, 8);
  const rendered = shapeToTs(shape);
  assert.match(
    rendered,
    /milestone: \{ id: number; number: number; title: string; open_issues: number \} \| null/,
  );
  assert.match(rendered, /body: string \| null/);
  assert.match(
    rendered,
    /labels: \{ id: number; name: string; color: string; default: boolean \}\[\]/,
  );
  assert.match(
    rendered,
    /reactions: \{ total_count: number; laugh: number; hooray: number; heart: number; \[key: string\]: unknown \}/,
  );
});
