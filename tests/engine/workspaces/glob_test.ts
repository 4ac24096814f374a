import assert from "node:assert/strict";
import { compileGlob, MAX_GLOB_CHARS } from "../../../src/engine/workspaces/glob.ts";
import { STALL_BOUND_MS, withLag } from "../../_helpers/lag.ts";

/** The regular expression globs used to be: right, but exponential on hostile globs. */
function reference(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        i++;
        re += "(?:.*/)?";
      } else re += ".*";
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** A small seeded generator, so a failure repeats. */
function random(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x % n;
  };
}

Deno.test("compileGlob() matches what the glob's regular expression matches", () => {
  const pick = random(11);
  const globParts = ["a", "b", "/", "*", "**", "**/", "?", ".", "["];
  const pathParts = ["a", "b", "/", ".", "["];
  let matched = 0;
  for (let g = 0; g < 400; g++) {
    let glob = "";
    for (let i = pick(7); i >= 0; i--) glob += globParts[pick(globParts.length)];
    const mine = compileGlob(glob);
    const theirs = reference(glob);
    for (let p = 0; p < 40; p++) {
      let path = "";
      for (let i = pick(9); i >= 0; i--) path += pathParts[pick(pathParts.length)];
      const want = theirs.test(path);
      if (want) matched++;
      assert.equal(
        mine.test(path),
        want,
        `${JSON.stringify(glob)} against ${JSON.stringify(path)}`,
      );
    }
  }
  assert.ok(matched > 500, `too few matching cases to mean anything (${matched})`);
});

Deno.test("compileGlob(): ** crosses directories, * and ? stay within a name", () => {
  assert.ok(compileGlob("out/**").test("out/a/b.txt"));
  assert.ok(compileGlob("**/*.csv").test("a.csv"));
  assert.ok(compileGlob("**/*.csv").test("x/y/a.csv"));
  assert.ok(!compileGlob("**/*.csv").test("x/y/a.csvx"));
  assert.ok(!compileGlob("*.csv").test("x/a.csv"));
  assert.ok(compileGlob("f?.txt").test("f1.txt"));
  assert.ok(!compileGlob("f?.txt").test("f12.txt"));
  assert.ok(!compileGlob("f?.txt").test("f/.txt"));
  assert.ok(!compileGlob("a**/b").test("axb"), "`**/` needs a whole directory or nothing");
  assert.ok(compileGlob("a**/b").test("ab"));
  assert.ok(compileGlob("[x].txt").test("[x].txt"), "brackets are plain characters");
});

Deno.test("compileGlob() answers a hostile glob over long paths without stalling the host", async () => {
  // `*a*a*a*a*a*a*a*a*b` against a 40-character name froze the host for 4-18 s as a RegExp.
  const { lagMs } = await withLag(() => {
    const hostile = [
      compileGlob("*a*a*a*a*a*a*a*a*b"),
      compileGlob("**a**a**a**a**a**a**a**a**b"),
      compileGlob("*" + "a*".repeat((MAX_GLOB_CHARS - 2) / 2) + "b"),
    ];
    const paths = ["a".repeat(40), "a".repeat(4000), "a/".repeat(2000)];
    for (const g of hostile) for (const p of paths) assert.equal(g.test(p), false);
    assert.ok(hostile[0].test("a".repeat(40) + "b"));
  });
  assert.ok(lagMs < STALL_BOUND_MS, `the event loop stalled ${Math.round(lagMs)} ms`);
});

Deno.test("compileGlob() refuses a glob longer than MAX_GLOB_CHARS", () => {
  compileGlob("a".repeat(MAX_GLOB_CHARS));
  assert.throws(() => compileGlob("a".repeat(MAX_GLOB_CHARS + 1)), RangeError);
});
