/**
 * The engine, one folder per capability (docs/architecture.md draws them):
 * `common`, `source` and `semantic` (embeddings, fused ranking) at the bottom; `artifacts`,
 * `logs`, `packages`, `workspaces`, `catalogue`, `languages`, `typecheck` and `sessions` above
 * them; the
 * execution core (`execution`) on those; `snippets`, `discovery` and `code`
 * extending it; `runtime` wiring them into `createRuntime()`. Imports only
 * point down this list.
 *
 * @module
 */
export * from "./common/mod.ts";
export * from "./source/mod.ts";
export * from "./semantic/mod.ts";
export * from "./artifacts/mod.ts";
export * from "./logs/mod.ts";
export * from "./packages/mod.ts";
export * from "./workspaces/mod.ts";
export * from "./catalogue/mod.ts";
export * from "./languages/mod.ts";
export * from "./typecheck/mod.ts";
export * from "./sessions/mod.ts";
export * from "./execution/mod.ts";
export * from "./snippets/mod.ts";
export * from "./programs/mod.ts";
export * from "./discovery/mod.ts";
export * from "./code/mod.ts";
export * from "./runtime/mod.ts";
