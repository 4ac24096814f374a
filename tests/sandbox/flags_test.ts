import assert from "node:assert/strict";
import { childArgs } from "../../src/sandbox/flags.ts";
import {
  DENIED_NET_RANGES,
  hostDeniedAddresses,
  MAX_NET_ALLOW_HOSTS,
  normalizeNetAllow,
  policyKey,
} from "../../src/sandbox/policy.ts";
import { CordonError } from "../../src/errors.ts";
import { ARG_NO_REHEARSAL } from "../../src/sandbox/protocol.ts";

const base = { guestEntry: "/opt/cordon/entry.ts", runId: "abc" };

Deno.test("childArgs() denies every permission and never lets config, locks or remote code in", () => {
  const args = childArgs({ ...base, policy: { heapMiB: 64, netAllow: [] } });
  for (
    const flag of [
      "--no-prompt",
      "--no-config",
      "--no-lock",
      "--no-remote",
      "--no-npm",
      "--cached-only",
      "--no-code-cache",
      "--deny-read",
      "--deny-write",
      "--deny-env",
      "--deny-run",
      "--deny-ffi",
      "--deny-sys",
      "--deny-import",
      "--deny-net",
    ]
  ) assert.ok(args.includes(flag), flag);
  assert.ok(!args.some((a) => a.startsWith("--allow")));
  assert.ok(args.includes("--location=https://run-abc.invalid"));
  assert.ok(args.includes("--v8-flags=--max-old-space-size=64"));
  // The trusted entry comes last: the user's code is never the entrypoint.
  assert.equal(args.at(-1), base.guestEntry);
});

Deno.test("childArgs() allows listed hosts and still denies private ranges", () => {
  const args = childArgs({ ...base, policy: { heapMiB: 64, netAllow: ["api.example.com"] } });
  assert.ok(args.includes("--allow-net=api.example.com"));
  assert.ok(args.includes(`--deny-net=${DENIED_NET_RANGES.join(",")}`));
  assert.ok(
    DENIED_NET_RANGES.includes("127.0.0.0/8") && DENIED_NET_RANGES.includes("169.254.0.0/16"),
  );
  const open = childArgs({
    ...base,
    policy: { heapMiB: 64, netAllow: ["127.0.0.1:8080"] },
    allowPrivateNetwork: true,
  });
  assert.ok(!open.some((a) => a.startsWith("--deny-net")));
});

Deno.test("normalizeNetAllow() accepts hosts and ports, sorted and without duplicates", () => {
  assert.deepEqual(
    normalizeNetAllow(["B.example.com", "a.example.com:443", "b.example.com"]),
    [
      "a.example.com:443",
      "b.example.com",
    ],
  );
  assert.deepEqual(normalizeNetAllow(undefined), []);
});

Deno.test("normalizeNetAllow() refuses schemes, paths, wildcards and flag injection", () => {
  for (
    const bad of ["https://a.com", "a.com/x", "*.a.com", "a.com,b.com", "--allow-all", "", "a b"]
  ) {
    assert.throws(
      () => normalizeNetAllow([bad]),
      (e: unknown) => e instanceof CordonError && e.code === "invalid_request",
      bad,
    );
  }
  const many = Array.from({ length: MAX_NET_ALLOW_HOSTS + 1 }, (_, i) => `h${i}.example.com`);
  assert.throws(() => normalizeNetAllow(many), /more than/);
});

Deno.test("policyKey() equal only for interchangeable policies", () => {
  assert.equal(policyKey({ heapMiB: 64, netAllow: [] }), policyKey({ heapMiB: 64, netAllow: [] }));
  assert.notEqual(
    policyKey({ heapMiB: 64, netAllow: [] }),
    policyKey({ heapMiB: 128, netAllow: [] }),
  );
  assert.notEqual(
    policyKey({ heapMiB: 64, netAllow: [] }),
    policyKey({ heapMiB: 64, netAllow: ["a.com"] }),
  );
});

Deno.test("normalizeNetAllow() refuses IPv6 literals, which Deno cannot deny by range", () => {
  for (const host of ["[::1]:80", "[::ffff:127.0.0.1]:8080", "[fd00::1]"]) {
    assert.throws(
      () => normalizeNetAllow([host]),
      (e: unknown) => e instanceof CordonError && e.code === "invalid_request",
    );
  }
});

Deno.test("hostDeniedAddresses() lists this host's addresses in a form Deno accepts", async () => {
  const denied = hostDeniedAddresses();
  assert.ok(denied.includes("127.0.0.1"), denied.join(","));
  // Deno parses every entry: a child with the whole deny list starts and runs.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ok.ts`, "console.log('parsed')");
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        "--allow-net=example.com",
        `--deny-net=${[...DENIED_NET_RANGES, ...denied].join(",")}`,
        `${dir}/ok.ts`,
      ],
    }).output();
    assert.equal(
      new TextDecoder().decode(out.stdout).trim(),
      "parsed",
      new TextDecoder().decode(out.stderr),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("childArgs() gives a language's files read-only, with its guest arguments after the entry", () => {
  const files = {
    readPaths: ["/opt/pyodide", "/cache/py.snapshot"],
    args: ["--cordon-pyodide=/x"],
  };
  const alone = childArgs({ ...base, policy: { heapMiB: 64, netAllow: [] }, files });
  assert.ok(alone.includes("--allow-read=/opt/pyodide,/cache/py.snapshot"));
  assert.ok(alone.includes("--deny-write"));
  assert.ok(!alone.includes("--deny-read"));
  assert.ok(!alone.some((a) => a.startsWith("--allow-write")));
  assert.deepEqual(alone.slice(-2), [base.guestEntry, "--cordon-pyodide=/x"]);
  const ws = childArgs({
    ...base,
    policy: { heapMiB: 64, netAllow: [], workspaceDir: "/ws/1", language: "python" },
    files,
  });
  assert.ok(ws.includes("--allow-read=/ws/1,/opt/pyodide,/cache/py.snapshot"));
  assert.ok(ws.includes("--allow-write=/ws/1"));
  // The language is part of the pool key: a Python child is never handed to TypeScript.
  assert.notEqual(
    policyKey({ heapMiB: 64, netAllow: [] }),
    policyKey({ heapMiB: 64, netAllow: [], language: "python" }),
  );
});

Deno.test("childArgs() tells a child a run waits for to skip its rehearsal, after the entry", () => {
  const policy = { heapMiB: 64, netAllow: [] };
  const waited = childArgs({ ...base, policy, noRehearsal: true });
  assert.deepEqual(waited.slice(-2), [base.guestEntry, ARG_NO_REHEARSAL]);
  assert.ok(!childArgs({ ...base, policy }).includes(ARG_NO_REHEARSAL));
});
