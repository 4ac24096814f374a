/**
 * How tests start Deno subprocesses: against the committed lock, frozen and
 * cached-only, with the runner's cache. Everything a test needs is installed
 * before the tests by `deno install` (the first step of `deno task ok`), so a
 * subprocess never downloads; one that would fails loudly instead.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The repository's root, where `deno install` puts `node_modules/`. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Flags for every `deno run` a test starts: the lock as committed, and nothing
 * fetched (a test subprocess may have an environment that cannot reach the
 * registry, so a missing package must fail loudly, not download).
 */
export const FROZEN_RUN_FLAGS = ["--frozen", "--cached-only"] as const;

/**
 * Variables a Deno test subprocess needs to find the same cache as the test
 * runner, when the caller moved it (`DENO_DIR`, `XDG_CACHE_HOME`).
 */
export function denoCacheEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return env;
}
