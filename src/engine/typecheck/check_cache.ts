/**
 * Check results kept by everything that decides them: the code, its form,
 * the input type, the tools' declarations (by hash) and the session's
 * declarations. The same script checked again (a saved snippet run again, a
 * retry) costs a map lookup instead of a TypeScript pass on the checker's
 * thread, which on a busy host shares the CPU with the runs.
 *
 * @module
 */
import type { CheckRequest, CheckResult } from "./check.ts";

/** Results kept, least recently used dropped first. */
export const CHECK_CACHE_ENTRIES = 256;

/** Code longer than this is checked every time (its key alone would hold the memory). */
export const CHECK_CACHE_MAX_CODE = 16 * 1024;

/** Recent check results by their inputs. */
export class CheckCache {
  readonly #entries = new Map<string, Promise<CheckResult>>();

  /** The key of `request`, or undefined when it is not kept. */
  #key(r: CheckRequest): string | undefined {
    const session = r.sessionDeclarations ?? "";
    if (r.code.length + session.length > CHECK_CACHE_MAX_CODE) return undefined;
    return JSON.stringify([r.declarationHash, r.form, r.inputType ?? "", session, r.code]);
  }

  /** The kept result of `request`, or `check()`'s, kept when it succeeds. */
  get(request: CheckRequest, check: () => Promise<CheckResult>): Promise<CheckResult> {
    const key = this.#key(request);
    if (key === undefined) return check();
    const kept = this.#entries.get(key);
    if (kept) {
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      // Found, not checked: it took no checking time.
      return kept.then((r) => ({ ...r, ms: 0 }));
    }
    const result = check();
    this.#entries.set(key, result);
    result.catch(() => this.#entries.delete(key));
    if (this.#entries.size > CHECK_CACHE_ENTRIES) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    return result;
  }
}
