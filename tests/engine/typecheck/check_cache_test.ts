import assert from "node:assert/strict";
import {
  CHECK_CACHE_ENTRIES,
  CHECK_CACHE_MAX_CODE,
  CheckCache,
} from "../../../src/engine/typecheck/check_cache.ts";
import type { CheckRequest, CheckResult } from "../../../src/engine/typecheck/check.ts";

const request = (code: string, extra: Partial<CheckRequest> = {}): CheckRequest => ({
  code,
  form: "script",
  declarations: "declare const math: {};",
  declarationHash: "h1",
  ...extra,
});
const result = (n: number): CheckResult => ({ diagnostics: [], syntaxErrors: [], ms: n });

Deno.test("CheckCache reuses a result only for the very same inputs", async () => {
  const cache = new CheckCache();
  let checks = 0;
  const check = () => Promise.resolve(result(++checks * 10));
  assert.equal((await cache.get(request("return 1"), check)).ms, 10);
  assert.equal((await cache.get(request("return 1"), check)).ms, 0, "a kept result took time");
  assert.equal(checks, 1);
  // Anything that can change the findings is part of the key.
  await cache.get(request("return 2"), check);
  await cache.get(request("return 1", { declarationHash: "h2" }), check);
  await cache.get(request("return 1", { form: "function" }), check);
  await cache.get(request("return 1", { sessionDeclarations: "declare let x: number;" }), check);
  await cache.get(request("return 1", { inputType: "{ a: number }" }), check);
  assert.equal(checks, 6);
});

Deno.test("CheckCache forgets failures, long code and the least recently used", async () => {
  const cache = new CheckCache();
  let checks = 0;
  const failing = () => (checks++, Promise.reject(new Error("checker stopped")));
  await assert.rejects(() => cache.get(request("return 1"), failing));
  await assert.rejects(() => cache.get(request("return 1"), failing));
  assert.equal(checks, 2, "a failure was kept");
  const ok = () => (checks++, Promise.resolve(result(1)));
  const long = "return 1;" + " ".repeat(CHECK_CACHE_MAX_CODE);
  await cache.get(request(long), ok);
  await cache.get(request(long), ok);
  assert.equal(checks, 4, "long code was kept");
  checks = 0;
  await cache.get(request("first"), ok);
  for (let i = 0; i < CHECK_CACHE_ENTRIES; i++) await cache.get(request(`return ${i}`), ok);
  await cache.get(request("first"), ok);
  assert.equal(checks, CHECK_CACHE_ENTRIES + 2, "the oldest entry was not dropped");
});
