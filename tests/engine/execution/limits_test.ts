import assert from "node:assert/strict";
import { CordonError } from "../../../src/errors.ts";
import {
  configureLimits,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  LIMIT_NAMES,
  MIN_MAX_PIDS,
  resolveLimits,
} from "../../../src/engine/execution/limits.ts";
import { programLimits } from "../../../src/engine/programs/spec.ts";
import { CHILD_PIDS_MAX } from "../../../src/sandbox/cgroup.ts";

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

Deno.test("maxPids defaults to its maximum CHILD_PIDS_MAX and refuses less than MIN_MAX_PIDS, naming it", () => {
  assert.equal(DEFAULT_LIMITS.maxPids, CHILD_PIDS_MAX);
  assert.equal(DEFAULT_MAX_LIMITS.maxPids, CHILD_PIDS_MAX);
  assert.equal(MIN_MAX_PIDS, 2 * navigator.hardwareConcurrency + 4);
  assert.equal(
    resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { maxPids: MIN_MAX_PIDS }).maxPids,
    MIN_MAX_PIDS,
  );
  assert.throws(
    () => resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { maxPids: MIN_MAX_PIDS - 1 }),
    (e: unknown) => {
      assert.ok(code("invalid_request")(e));
      assert.match((e as Error).message, new RegExp(`maxPids must be at least ${MIN_MAX_PIDS}`));
      return true;
    },
  );
  assert.throws(() => configureLimits({}, { maxPids: 3 }), code("invalid_request"));
  assert.throws(
    () => resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { maxPids: CHILD_PIDS_MAX + 1 }),
    code("limit_exceeded"),
  );
});

Deno.test("cpuPercent has no default, a maximum of 100 per core, and is configurable", () => {
  assert.equal(DEFAULT_LIMITS.cpuPercent, undefined);
  assert.ok(LIMIT_NAMES.includes("cpuPercent"));
  assert.equal(DEFAULT_MAX_LIMITS.cpuPercent, 100 * navigator.hardwareConcurrency);
  assert.equal(resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, {}).cpuPercent, undefined);
  assert.equal(resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, { cpuPercent: 1 }).cpuPercent, 1);
  assert.throws(
    () =>
      resolveLimits(DEFAULT_LIMITS, DEFAULT_MAX_LIMITS, {
        cpuPercent: 100 * navigator.hardwareConcurrency + 1,
      }),
    code("limit_exceeded"),
  );
  const { defaults, maxima } = configureLimits({ cpuPercent: 50 }, { cpuPercent: 80 });
  assert.equal(defaults.cpuPercent, 50);
  assert.equal(maxima.cpuPercent, 80);
  assert.throws(
    () => configureLimits({ cpuPercent: 90 }, { cpuPercent: 80 }),
    code("limit_exceeded"),
  );
  assert.throws(() => configureLimits({ cpuPercent: 0 }), code("invalid_request"));
});

Deno.test("a program's ResourceLimits become execution limits, each only when set", () => {
  assert.deepEqual(programLimits({ cpuPercent: 25, memoryMB: 256, maxPIDs: 40 }), {
    cpuPercent: 25,
    memoryMiB: 256,
    maxPids: 40,
  });
  assert.deepEqual(programLimits({ memoryMB: 0 }), {});
});
