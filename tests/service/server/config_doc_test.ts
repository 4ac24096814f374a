/**
 * docs/config.md cannot fall behind the config schema: every field of `configSchema`, nested ones
 * too, has a row there, and every row names a field that exists.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { configSchema } from "../../../src/service/server/config.ts";

const DOC = new URL("../../../docs/config.md", import.meta.url);

/** Fields only a TypeScript config has: documented, but not in the JSON schema. */
const CODE_ONLY = ["connectors"];

/**
 * Every field path of a zod schema: `a.b` for nested objects, `a[].b` inside arrays of objects;
 * optional, default and nullable wrappers are looked through, and a union has its options' fields.
 */
function fieldPaths(schema: z.ZodType, path = ""): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case "optional":
    case "default":
    case "nullable":
      return fieldPaths(def.innerType as z.ZodType, path);
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      const own = Object.entries(shape).flatMap(([k, v]) =>
        fieldPaths(v, path ? `${path}.${k}` : k)
      );
      // The object itself is a field, unless it is the element of an array (`a[]`).
      return path && !path.endsWith("[]") ? [path, ...own] : own;
    }
    case "array": {
      // An array of plain values is one field; an array of objects has fields inside.
      const inner = fieldPaths(def.element as z.ZodType, `${path}[]`)
        .filter((p) => p !== `${path}[]`);
      return [path, ...inner];
    }
    case "union":
      return [
        ...new Set((def.options as z.ZodType[]).flatMap((o) => fieldPaths(o, path))),
      ];
    default:
      return [path];
  }
}

/** The fields docs/config.md gives a row: the first cell of each table row, in backticks. */
function documentedFields(markdown: string): string[] {
  return [...markdown.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]);
}

Deno.test("fieldPaths() walks nested objects, arrays of objects and unions", () => {
  const schema = z.object({
    a: z.string().optional(),
    b: z.object({ c: z.number() }).optional(),
    d: z.array(z.object({ e: z.boolean() })),
    f: z.array(z.string()),
    g: z.union([z.literal(false), z.object({ h: z.string() })]),
  });
  assert.deepEqual(fieldPaths(schema).sort(), ["a", "b", "b.c", "d", "d[].e", "f", "g", "g.h"]);
});

Deno.test("docs/config.md has a row for every field of configSchema, and no row for a field it lacks", async () => {
  const fields = [...new Set(fieldPaths(configSchema))];
  assert.ok(fields.length > 60, `the walk found only ${fields.length} fields`);
  for (const expected of ["mcpServers[].approval.destructive", "builtins.http.allow", "log.runs"]) {
    assert.ok(fields.includes(expected), `the walk misses ${expected}`);
  }
  const documented = documentedFields(await Deno.readTextFile(DOC));
  const missing = fields.filter((f) => !documented.includes(f));
  assert.deepEqual(missing, [], "fields of configSchema without a row in docs/config.md");
  const unknown = documented.filter((f) =>
    !fields.includes(f) && !CODE_ONLY.includes(f) && !/^(?:setting|field)$/.test(f)
  );
  assert.deepEqual(unknown, [], "rows of docs/config.md naming no field of configSchema");
});
