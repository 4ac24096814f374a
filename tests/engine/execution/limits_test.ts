import assert from "node:assert/strict";
import { CordonError } from "../../../src/errors.ts";
import {
  configureLimits,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  resolveLimits,
} from "../../../src/engine/execution/limits.ts";

const code = (c: string) => (e: unknown) => e instanceof CordonError && e.code === c;

Deno.test("resolveLimits() applies overrides within the maximum", () => {
  const l = resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { timeoutMs: 1000, heapMiB: 64 });
  assert.equal(l.timeoutMs, 1000);
  assert.equal(l.heapMiB, 64);
  assert.equal(l.maxToolCalls, DEFAULT_LIMITS.maxToolCalls);
});

Deno.test("resolveLimits() refuses a value over the maximum with limit_exceeded and the bound", () => {
  assert.throws(
    () => resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { timeoutMs: 120_001 }),
    (e: unknown) => {
      assert.ok(code("limit_exceeded")(e));
      assert.deepEqual((e as CordonError).details, {
        limit: "timeoutMs",
        requested: 120_001,
        maximum: 120_000,
      });
      return true;
    },
  );
});

Deno.test("resolveLimits() refuses unknown names, zero, negatives and fractions", () => {
  assert.throws(
    () => resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { nope: 1 } as never),
    code("invalid_request"),
  );
  for (const bad of [0, -1, 1.5, NaN, "10"]) {
    assert.throws(
      () => resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { heapMiB: bad as number }),
      code("invalid_request"),
    );
  }
});

Deno.test("configureLimits() lowers defaults to configured maxima and refuses defaults above them", () => {
  const { defaults, maxima } = configureLimits({}, { timeoutMs: 5000 });
  assert.equal(maxima.timeoutMs, 5000);
  assert.equal(defaults.timeoutMs, 5000);
  assert.throws(
    () => configureLimits({ timeoutMs: 9000 }, { timeoutMs: 5000 }),
    code("limit_exceeded"),
  );
});

Deno.test("DEFAULT_LIMITS are the documented values", () => {
  assert.equal(DEFAULT_LIMITS.timeoutMs, 30_000);
  assert.equal(DEFAULT_MAX_LIMITS.timeoutMs, 120_000);
  for (const [k, v] of Object.entries(DEFAULT_LIMITS)) {
    assert.ok(v <= DEFAULT_MAX_LIMITS[k as keyof typeof DEFAULT_LIMITS]!, k);
  }
});
