import assert from "node:assert/strict";
import {
  buildDeclarations,
  CODEMODE_DECLARATION,
  declareConnector,
  toolSignature,
} from "../../src/connectors/typegen/mod.ts";
import type { ConnectorInfo, ToolInfo } from "../../src/connectors/types.ts";
import { loadCorpus } from "./typegen_helpers.ts";

const ADD: ToolInfo = {
  name: "add",
  description: "Add two numbers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  outputSchema: { type: "number" },
  annotations: { readOnly: true },
};
const READ_FILE: ToolInfo = {
  name: "read-file",
  description: "Read a file",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string", description: "Where the file is" } },
    required: ["path"],
  },
  annotations: {},
};

function tool(name: string, extra: Partial<ToolInfo> = {}): ToolInfo {
  return {
    name,
    description: `The ${name} tool`,
    inputSchema: { type: "object", properties: {} },
    annotations: {},
    ...extra,
  };
}

Deno.test("declareConnector() merges a type-only namespace with a const holding the tools", () => {
  const text = declareConnector({
    name: "math",
    description: "Arithmetic",
    tools: [READ_FILE, ADD],
  });
  assert.equal(
    text,
    [
      "/** Arithmetic */",
      "declare namespace math {",
      "  /** Input of math.add */",
      "  type AddInput = { a: number; b: number };",
      "  /** Output of math.add */",
      "  type AddOutput = number;",
      "  /** Input of math.read-file */",
      "  type ReadFileInput = {",
      "    /** Where the file is */",
      "    path: string;",
      "  };",
      "  /** Output of math.read-file */",
      "  type ReadFileOutput = unknown;",
      "}",
      "/** Arithmetic */",
      "declare const math: {",
      "  /**",
      "   * Add two numbers",
      "   * Read-only: changes nothing.",
      "   */",
      "  add(args: math.AddInput): Promise<math.AddOutput>;",
      "  /** Read a file */",
      '  "read-file"(args: math.ReadFileInput): Promise<math.ReadFileOutput>;',
      "};",
      "",
    ].join("\n"),
  );
});

Deno.test("declareConnector() quotes tool names and keeps type names unique", () => {
  const text = declareConnector({
    name: "files",
    description: "Files",
    tools: ["read_file", "read-file", "get_file.v2", "2fa", "class", "---"].map((n) => tool(n)),
  });
  for (
    const line of [
      '"---"(args: files.ToolInput): Promise<files.ToolOutput>;',
      '"2fa"(args: files.T2faInput): Promise<files.T2faOutput>;',
      "class(args: files.ClassInput): Promise<files.ClassOutput>;",
      '"get_file.v2"(args: files.GetFileV2Input): Promise<files.GetFileV2Output>;',
      // Sorted by name, "read-file" comes first and keeps the plain name.
      '"read-file"(args: files.ReadFileInput): Promise<files.ReadFileOutput>;',
      "read_file(args: files.ReadFile2Input): Promise<files.ReadFile2Output>;",
      "type ReadFile2Input = Record<string, never>;",
    ]
  ) {
    assert.ok(text.includes(line), `missing: ${line}\n${text}`);
  }
});

Deno.test("declareConnector() writes descriptions and annotations into JSDoc, escaping */", () => {
  const text = declareConnector({
    name: "ops",
    description: "Ops */ tools",
    tools: [
      tool("wipe", {
        description: "Delete everything */ now\nand forever",
        annotations: { destructive: true, requiresApproval: true },
        outputSchema: { type: "boolean", description: "Whether it */ worked" },
      }),
    ],
  });
  assert.ok(text.startsWith("/** Ops *\\/ tools */\ndeclare namespace ops {"));
  assert.ok(
    text.includes(
      "  /**\n   * Output of ops.wipe\n   * Whether it *\\/ worked\n   */\n  type WipeOutput = boolean;",
    ),
  );
  assert.ok(
    text.includes(
      [
        "  /**",
        "   * Delete everything *\\/ now",
        "   * and forever",
        "   * Destructive: may delete or overwrite data.",
        "   * Needs approval: each call waits until a person approves it.",
        "   */",
        "  wipe(args: ops.WipeInput): Promise<ops.WipeOutput>;",
      ].join("\n"),
    ),
    text,
  );
  assert.equal(
    text.match(/\*\//g)?.length,
    text.match(/\/\*\*/g)?.length,
    "every comment closes once",
  );
});

Deno.test("declareConnector() leaves out a connector whose name cannot be declared", () => {
  for (const name of ["my-tools", "class", "", "1st"]) {
    const text = declareConnector({ name, description: "x", tools: [ADD] });
    assert.equal(
      text,
      `// Connector ${
        JSON.stringify(name)
      } is left out: its name is not a JavaScript identifier.\n`,
    );
  }
});

Deno.test("declareConnector() output does not depend on tool order and drops repeated names", () => {
  const a = declareConnector({ name: "m", description: "", tools: [ADD, READ_FILE] });
  const b = declareConnector({
    name: "m",
    description: "",
    tools: [READ_FILE, ADD, { ...ADD, description: "again" }],
  });
  assert.equal(a, b);
  assert.equal(a.match(/ add\(args/g)?.length, 1);
});

Deno.test("toolSignature() gives full input and output types and a one-line signature", () => {
  assert.deepEqual(toolSignature("math", ADD), {
    input: "{ a: number; b: number }",
    output: "number",
    signature: "math.add(args: { a: number; b: number }): Promise<number>",
  });
  assert.deepEqual(toolSignature("math", READ_FILE), {
    input: "{\n  /** Where the file is */\n  path: string;\n}",
    output: "unknown",
    signature: 'math["read-file"](args: { path: string }): Promise<unknown>',
  });
});

Deno.test("buildDeclarations() puts codemode first and connectors in name order", () => {
  const { declarations } = buildDeclarations([
    { name: "zeta", description: "Z", tools: [ADD] },
    { name: "alpha", description: "A", tools: [ADD] },
  ]);
  assert.ok(declarations.startsWith(CODEMODE_DECLARATION));
  const alpha = declarations.indexOf("declare const alpha:");
  const zeta = declarations.indexOf("declare const zeta:");
  assert.ok(alpha > 0 && zeta > alpha, "alpha before zeta");
});

Deno.test("buildDeclarations() hash does not depend on connector or tool order", () => {
  const corpus = loadCorpus();
  const shuffled: ConnectorInfo[] = corpus.toReversed().map((c) => ({
    ...c,
    tools: c.tools.toReversed(),
  }));
  const a = buildDeclarations(corpus);
  const b = buildDeclarations(shuffled);
  assert.match(a.declarationHash, /^[0-9a-f]{64}$/);
  assert.equal(a.declarationHash, b.declarationHash);
  assert.equal(a.declarations, b.declarations);
});

Deno.test("buildDeclarations() hash changes when one schema changes", () => {
  const corpus = loadCorpus();
  const before = buildDeclarations(corpus).declarationHash;
  const edit = (change: (t: ToolInfo) => void) => {
    const copy: ConnectorInfo[] = structuredClone(corpus);
    change(copy.find((c) => c.name === "filesystem")!.tools.find((t) => t.name === "write_file")!);
    return buildDeclarations(copy).declarationHash;
  };
  const hashes = [
    edit((
      t,
    ) => ((t.inputSchema.properties as Record<string, { type: string }>).content.type = "number")),
    edit((t) => (t.inputSchema.required = ["path"])),
    edit((t) => ((t.outputSchema!.properties as Record<string, object>).size = { type: "number" })),
    edit((t) => (t.description += "!")),
    edit((t) => (t.annotations.requiresApproval = true)),
  ];
  for (const h of hashes) assert.notEqual(h, before);
  assert.equal(new Set(hashes).size, hashes.length, "each change gives its own hash");
  // A change TypeScript cannot see leaves the declarations, and so the hash, alone.
  assert.equal(
    edit((t) => (t.inputSchema.$schema = "https://json-schema.org/draft/2020-12/schema")),
    before,
  );
});

Deno.test("buildDeclarations() hash is the same in another process", async () => {
  const here = buildDeclarations(loadCorpus()).declarationHash;
  const script = `
    import { buildDeclarations } from ${
    JSON.stringify(new URL("../../src/connectors/typegen/mod.ts", import.meta.url).href)
  };
    import { loadCorpus } from ${
    JSON.stringify(new URL("./typegen_helpers.ts", import.meta.url).href)
  };
    console.log(buildDeclarations(loadCorpus().reverse()).declarationHash);
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    env: { LC_ALL: "tr_TR.UTF-8", TZ: "Asia/Tokyo" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout).trim(), here);
});
