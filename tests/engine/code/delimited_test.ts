import assert from "node:assert/strict";
import {
  buildBlockSpec,
  DEFAULT_CODE_BLOCK_DELIMITER,
  extractCodeBlock,
} from "../../../src/engine/code/delimited.ts";
import type { CordonError } from "../../../src/errors.ts";

/** The error a call throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("did not throw");
}

/** The document's own definition, as a backtracking regular expression (small inputs only). */
function byRegex(input: string, start: string, end: string) {
  const q = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`${q(start)}([^\\n]*)\\n([\\s\\S]*?)${q(end)}`, "g");
  return [...input.matchAll(re)].map((m) => ({ language: m[1].trim(), code: m[2] }));
}

Deno.test("extractCodeBlock: the document's example, the final newline kept", () => {
  const blocks = extractCodeBlock(
    "```python\nprint('Hello, World!')\n```",
    DEFAULT_CODE_BLOCK_DELIMITER,
  );
  assert.deepEqual(blocks, [{ language: "python", code: "print('Hello, World!')\n" }]);
  assert.deepEqual(extractCodeBlock("```python\nprint('Hello, World!')```"), [
    { language: "python", code: "print('Hello, World!')" },
  ]);
});

Deno.test("extractCodeBlock: several blocks, custom markers, case kept, no language", () => {
  const answer = "a\n``` Bash \necho 1\n```\ntext ```\nx = 1\n``` tail ```py";
  assert.deepEqual(extractCodeBlock(answer), [
    { language: "Bash", code: "echo 1\n" },
    { language: "", code: "x = 1\n" },
  ]);
  const marked = extractCodeBlock("<execute>\nreturn 2\n</execute>", {
    start: "<execute>",
    end: "</execute>",
  });
  assert.deepEqual(marked, [{ language: "", code: "return 2\n" }]);
});

Deno.test("extractCodeBlock: finds exactly what the document's expression finds", () => {
  const alphabet = ["`", "``", "```", "\n", "py", " ", "x", "<a>", "</a>"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let round = 0; round < 2000; round++) {
    let text = "";
    const n = next() % 14;
    for (let i = 0; i < n; i++) text += alphabet[next() % alphabet.length];
    for (const [start, end] of [["```", "```"], ["<a>", "</a>"], ["`", "``"]]) {
      assert.deepEqual(
        extractCodeBlock(text, { start, end }),
        byRegex(text, start, end),
        JSON.stringify(text),
      );
    }
  }
});

Deno.test("extractCodeBlock: a hostile answer of many openings and no closing is linear", () => {
  const text = "```x\n".repeat(200_000);
  const t0 = performance.now();
  assert.deepEqual(extractCodeBlock(text, { start: "```", end: "~~~" }), []);
  // Not a timing assertion on speed: the quadratic form would take minutes, this must end.
  assert.deepEqual(performance.now() - t0 < 60_000, true);
});

Deno.test("extractCodeBlock: an empty or oversized delimiter is a typed error", () => {
  for (const d of [{ start: "", end: "```" }, { start: "```", end: "" }, { start: 1, end: "x" }]) {
    const err = thrown(() => extractCodeBlock("x", d as never)) as CordonError;
    assert.deepEqual(err.code, "invalid_request");
  }
  const long = thrown(() => extractCodeBlock("x", { start: "`".repeat(65), end: "`" }));
  assert.deepEqual((long as CordonError).code, "invalid_request");
});

Deno.test("buildBlockSpec: the document's table, then Cordon's languages", () => {
  assert.deepEqual(buildBlockSpec(0, { language: "python", code: "" }), {
    file: "code_0.py",
    mode: 0o644,
    cmd: "python3",
    args: [],
  });
  assert.deepEqual(
    buildBlockSpec(3, { language: " PY3".replace("3", ""), code: "" }).file,
    "code_3.py",
  );
  assert.deepEqual(buildBlockSpec(1, { language: "sh", code: "" }), {
    file: "code_1.sh",
    mode: 0o755,
    cmd: "bash",
    args: [],
  });
  assert.deepEqual(buildBlockSpec(2, { language: "TypeScript", code: "" }).cmd, "deno");
  const err = thrown(() => buildBlockSpec(0, { language: "ruby", code: "" })) as CordonError;
  assert.deepEqual([err.code, err.message], ["unsupported_language", "unsupported language: ruby"]);
  assert.deepEqual(
    (thrown(() => buildBlockSpec(-1, { language: "py", code: "" })) as CordonError).code,
    "invalid_request",
  );
  assert.deepEqual(
    (thrown(() => buildBlockSpec(0, { language: "__proto__", code: "" })) as CordonError)
      .code,
    "unsupported_language",
  );
});
