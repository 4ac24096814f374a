import assert from "node:assert/strict";
import { CordonError } from "../../src/errors.ts";
import { isTypeScript, languageOf, LANGUAGES } from "../../src/sandbox/languages.ts";

Deno.test("languageOf() reads every documented spelling, in any case", () => {
  const names = (list: unknown[]) => list.map((l) => languageOf(l).name);
  assert.deepEqual(names([undefined, null, "typescript", "TS", " js ", "JavaScript"]), [
    "typescript",
    "typescript",
    "typescript",
    "typescript",
    "typescript",
    "typescript",
  ]);
  assert.deepEqual(names(["python", "py", "Python"]), ["python", "python", "python"]);
  assert.deepEqual(LANGUAGES.map((l) => l.name), ["typescript", "python", "bash"]);
});

Deno.test("languageOf() reads bash's names and refuses unknown languages with typed errors", () => {
  assert.equal(languageOf("SH").name, "bash");
  assert.equal(languageOf("python3").name, "python");
  for (
    const [raw, code] of [
      [
        "ruby",
        "invalid_request",
      ],
      [42, "invalid_request"],
      ["", "invalid_request"],
    ] as const
  ) {
    assert.throws(
      () => languageOf(raw),
      (e) => e instanceof CordonError && e.code === code,
      String(raw),
    );
  }
});

Deno.test("isTypeScript() tells which requests the type check applies to", () => {
  assert.deepEqual(
    [undefined, "ts", "JS", "python", "py", "bash"].map(isTypeScript),
    [true, true, true, false, false, false],
  );
});
