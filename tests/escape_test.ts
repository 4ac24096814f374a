/**
 * The escape corpus: every script in `fixtures/escapes/` is something a
 * hostile model might submit. Each one runs through the real runtime; the
 * test asserts the outcome its header names, that no planted secret shows up
 * anywhere in what the host returns or stores, that nothing was written
 * where the secrets live, and that the host still runs a normal tool call
 * afterwards.
 *
 * A fixture is a text file: a header of `//` lines, then the code.
 *
 * ```
 * // What the script tries (free text).
 * // expect: blocked NotCapable,TypeError   completed with result.blocked === true and
 * //                                        every name in result.error listed (default NotCapable)
 * // expect: error sandbox_timeout,sandbox_memory   ended with one of these codes
 * // expect: result "real"                  completed with exactly this (JSON) result
 * // expect: completed                      completed with any result
 * // expect: reached                        positive control: got the local server's token
 * // because: Requires net access           a regex that result.message must match (blocked)
 * // options: {"timeoutMs": 1000}           merged into execute(); $PORT etc. substituted
 * // meta: {"logsTruncated": true}          a subset of result.meta
 * // absent: root:x:0:0                     one more string that must not appear
 * // runtime: private                       run on a runtime with allowPrivateNetwork
 * // calls: {"add": 1, "hit": 0}            host-side tool executions during the fixture
 * // guard: cgroup                          expectations hold where a cgroup guards memory
 * ```
 *
 * Several `expect:` lines are alternatives. A line `// --- next run ---`
 * starts another execution of the same fixture, with its own header.
 * Values the scripts need (secret paths, server ports) arrive in `input`.
 *
 * The corpus runs in a child `deno run` of this same file (`import.meta.main`),
 * which reports one line per fixture; the test turns each into a step. That
 * keeps its runtime, env var and memory bombs out of the process `--parallel`
 * test files share.
 *
 * @module
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult, type Runtime } from "../mod.ts";
import { assertNoSandboxChildren } from "./_helpers/processes.ts";
import { FROZEN_RUN_FLAGS } from "./_helpers/deno_run.ts";

const FIXTURES = new URL("./fixtures/escapes/", import.meta.url);
const MIN_FIXTURES = 40;
const NEXT_RUN = "// --- next run ---";
const HEADER_KEYS = new Set([
  "expect",
  "because",
  "options",
  "meta",
  "absent",
  "runtime",
  "calls",
  "guard",
]);

interface RunSpec {
  code: string;
  expect: string[];
  because?: RegExp;
  /** The options JSON before substitution. */
  options?: string;
  meta?: Record<string, unknown>;
  absent: string[];
}

interface Fixture {
  name: string;
  runs: RunSpec[];
  runtime: "default" | "private";
  calls?: Record<string, number>;
  guard?: "cgroup";
}

function parseSegment(name: string, segment: string): { run: RunSpec; keys: Map<string, string> } {
  const lines = segment.split("\n");
  let i = 0;
  const keys = new Map<string, string>();
  const run: RunSpec = { code: "", expect: [], absent: [] };
  for (; i < lines.length && (lines[i].startsWith("//") || lines[i].trim() === ""); i++) {
    const m = /^\/\/\s*([a-z]+):\s?(.*)$/.exec(lines[i]);
    if (!m || !HEADER_KEYS.has(m[1])) continue;
    const [, key, value] = m;
    if (key === "expect") run.expect.push(value.trim());
    else if (key === "absent") run.absent.push(value.trim());
    else if (key === "because") run.because = new RegExp(value.trim());
    else if (key === "options") run.options = value.trim();
    else if (key === "meta") run.meta = JSON.parse(value);
    else keys.set(key, value.trim());
  }
  run.code = lines.slice(i).join("\n").trim();
  assert.ok(run.code.length > 0, `${name}: a run has no code`);
  assert.ok(run.expect.length > 0, `${name}: a run has no "// expect:" line`);
  return { run, keys };
}

function parseFixture(name: string, text: string): Fixture {
  const segments = text.replaceAll("\r\n", "\n").split(`\n${NEXT_RUN}\n`);
  const parsed = segments.map((s) => parseSegment(name, s));
  const keys = parsed[0].keys;
  const runtime = keys.get("runtime") ?? "default";
  assert.ok(runtime === "default" || runtime === "private", `${name}: runtime ${runtime}`);
  const guard = keys.get("guard");
  assert.ok(guard === undefined || guard === "cgroup", `${name}: guard ${guard}`);
  return {
    name,
    runs: parsed.map((p) => p.run),
    runtime,
    calls: keys.has("calls") ? JSON.parse(keys.get("calls")!) : undefined,
    guard,
  };
}

/** `CORDON_ESCAPES=py_` runs only the fixtures whose names start so (while working on them). */
function fixtureNames(): string[] {
  const only = Deno.env.get("CORDON_ESCAPES") ?? "";
  const names: string[] = [];
  for (const entry of Deno.readDirSync(FIXTURES)) {
    if (entry.isFile && entry.name.endsWith(".txt") && entry.name.startsWith(only)) {
      names.push(entry.name);
    }
  }
  return names.sort();
}

const FIXTURE_NAMES = fixtureNames();

/** JSON of anything the host returned, with bytes shown as text so a leak in them is seen. */
function dump(value: unknown): string {
  const decoder = new TextDecoder();
  return JSON.stringify(value, (_k, v) => {
    if (typeof v === "bigint") return `${v}n`;
    if (v instanceof Uint8Array) return decoder.decode(v);
    if (v instanceof ArrayBuffer) return decoder.decode(new Uint8Array(v));
    if (v instanceof Map) return [...v.entries()];
    if (v instanceof Set) return [...v.values()];
    return v;
  }) ?? "undefined";
}

function token(label: string): string {
  return `${label}-${crypto.randomUUID().replaceAll("-", "")}`;
}

interface World {
  secrets: { file: string; env: string; net: string };
  input: Record<string, unknown>;
  vars: Record<string, string>;
  secretDir: string;
}

/** Checks one alternative; returns why it does not hold, or undefined when it does. */
function mismatch(
  expect: string,
  out: ExecuteResult,
  run: RunSpec,
  world: World,
): string | undefined {
  const [kind, ...rest] = expect.split(/\s+/);
  const arg = expect.slice(kind.length).trim();
  const result = out.status === "completed" ? out.result as Record<string, unknown> : undefined;
  switch (kind) {
    case "blocked": {
      if (out.status !== "completed") return `status ${out.status}, not completed`;
      if (result === null || typeof result !== "object") return "the result is not an object";
      if (result.blocked !== true) return "result.blocked is not true";
      const allowed = (rest[0] ?? "NotCapable").split(",");
      const names = String(result.error).split(",");
      const stray = names.filter((n) => !allowed.includes(n));
      if (stray.length > 0) return `blocked by ${stray.join(",")}, expected ${allowed.join(",")}`;
      if (run.because && !run.because.test(String(result.message))) {
        return `result.message does not match ${run.because}`;
      }
      return undefined;
    }
    case "error": {
      if (out.status !== "error" && out.status !== "rejected") return `status ${out.status}`;
      const codes = arg.split(",");
      return codes.includes(out.error.code) ? undefined : `error ${out.error.code}`;
    }
    case "result": {
      if (out.status !== "completed") return `status ${out.status}, not completed`;
      try {
        assert.deepStrictEqual(out.result, JSON.parse(arg));
        return undefined;
      } catch {
        return `result ${dump(out.result).slice(0, 200)}, not ${arg}`;
      }
    }
    case "completed":
      return out.status === "completed" ? undefined : `status ${out.status}`;
    case "reached": {
      if (out.status !== "completed") return `status ${out.status}, not completed`;
      if (result?.blocked !== false) return "the control was blocked";
      return result.leaked === world.secrets.net ? undefined : "the control read something else";
    }
    default:
      return `unknown expectation "${expect}"`;
  }
}

function assertMeta(name: string, out: ExecuteResult, meta: Record<string, unknown>): void {
  for (const [key, want] of Object.entries(meta)) {
    assert.deepStrictEqual(
      (out.meta as unknown as Record<string, unknown>)[key],
      want,
      `${name}: meta.${key}`,
    );
  }
}

function assertNoLeak(
  name: string,
  out: ExecuteResult,
  stored: unknown,
  run: RunSpec,
  world: World,
): void {
  const reached = run.expect.includes("reached");
  const forbidden: [string, string][] = [
    ["the secret file's content", world.secrets.file],
    ["the host's secret env var", world.secrets.env],
    ...(reached ? [] : [["the local server's token", world.secrets.net] as [string, string]]),
    ...run.absent.map((s) => [`"${s}"`, s] as [string, string]),
  ];
  for (const [where, text] of [["the result", dump(out)], ["the stored execution", dump(stored)]]) {
    for (const [label, secret] of forbidden) {
      const at = text.indexOf(secret);
      assert.ok(
        at === -1,
        `${name}: ${label} leaked into ${where}: …${text.slice(Math.max(0, at - 200), at + 100)}…`,
      );
    }
  }
}

/** The secret directory as it was planted: names, the secret's bytes and mode. */
async function snapshot(dir: string): Promise<string> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  const secret = join(dir, "secret.txt");
  const info = await Deno.lstat(secret);
  return JSON.stringify([names.sort(), await Deno.readTextFile(secret), info.mode, info.size]);
}

function makeConnectors() {
  const counts: Record<string, number> = { add: 0, hit: 0 };
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.number(),
        execute: ({ a, b }) => {
          counts.add++;
          return a + b;
        },
      },
    },
  });
  const probe = defineConnector({
    name: "probe",
    description: "Counts calls",
    tools: {
      hit: {
        description: "Count one call and echo the argument",
        input: z.unknown(),
        execute: (value) => {
          counts.hit++;
          return { n: counts.hit, echo: value };
        },
      },
    },
  });
  return { connectors: [math, probe], counts };
}

/** A name other than `localhost` that /etc/hosts maps to loopback, else this host's name. */
async function loopbackName(): Promise<string> {
  try {
    const hosts = await Deno.readTextFile("/etc/hosts");
    for (const line of hosts.split("\n")) {
      const [addr, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
      if (!addr || !/^(127\.|::1$)/.test(addr)) continue;
      const name = names.find((n) => !/^(localhost|ip6-)/i.test(n) && /^[a-z0-9.-]+$/i.test(n));
      if (name) return name.toLowerCase();
    }
  } catch {
    // No /etc/hosts: fall through.
  }
  return Deno.hostname().toLowerCase();
}

function interfaceAddress(): string {
  const found = Deno.networkInterfaces().find((i) =>
    i.family === "IPv4" && !i.address.startsWith("127.")
  );
  return found?.address ?? "127.0.0.1";
}

function serve(hostname: string, handler: Deno.ServeHandler): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname, port: 0, onListen() {} }, handler);
}

Deno.test({
  name: `the escape corpus has at least ${MIN_FIXTURES} fixtures, each with an expectation`,
  ignore: Deno.env.get("CORDON_ESCAPES") !== undefined,
}, async () => {
  assert.ok(
    FIXTURE_NAMES.length >= MIN_FIXTURES,
    `only ${FIXTURE_NAMES.length} fixtures in ${FIXTURES.pathname}`,
  );
  for (const name of FIXTURE_NAMES) {
    const fixture = parseFixture(name, await Deno.readTextFile(new URL(name, FIXTURES)));
    assert.ok(fixture.runs.every((r) => r.expect.length > 0), name);
  }
});

/** One fixture's verdict, as the corpus runner reports it. */
interface Report {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
  notes: string[];
}

const REPORT_PREFIX = "@@escape-report ";
const TEARDOWN = "(teardown)";

/**
 * Runs the whole corpus against one runtime and reports each fixture as it ends. It runs in a
 * process of its own (see the test below), so its sandbox children are nobody else's.
 */
async function runCorpus(report: (r: Report) => void): Promise<void> {
  const secrets = { file: token("FILE"), env: token("ENV"), net: token("NET") };
  const secretDir = await Deno.makeTempDir({ prefix: "cordon-escape-" });
  const secretPath = join(secretDir, "secret.txt");
  const jsonPath = join(secretDir, "secret.json");
  const linkPath = join(secretDir, "link");
  const addonPath = join(secretDir, "addon.node");
  await Deno.writeTextFile(secretPath, `${secrets.file}\n`);
  await Deno.writeTextFile(jsonPath, JSON.stringify({ secret: secrets.file }));
  await Deno.symlink(secretPath, linkPath);
  await Deno.writeFile(addonPath, new TextEncoder().encode(secrets.file));
  Deno.env.set("CORDON_ESCAPE_SECRET", secrets.env);

  const redirectTo = { port: 0 };
  const handler: Deno.ServeHandler = (req) => {
    if (req.headers.get("upgrade") === "websocket") {
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onopen = () => socket.send(secrets.net);
      return response;
    }
    if (new URL(req.url).pathname === "/redirect") {
      return Response.redirect(`http://127.0.0.1:${redirectTo.port}/`, 302);
    }
    return new Response(secrets.net);
  };
  const main = serve("127.0.0.1", handler);
  const other = serve("127.0.0.1", handler);
  redirectTo.port = other.addr.port;
  const wildcard = serve("0.0.0.0", handler);
  let v6: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    v6 = serve("::1", handler);
  } catch {
    // No IPv6 loopback here: the [::1] fixtures then aim at a closed port.
  }
  const vars: Record<string, string> = {
    PORT: String(main.addr.port),
    PORT2: String(other.addr.port),
    PORT6: String(v6?.addr.port ?? main.addr.port),
    PORT0: String(wildcard.addr.port),
    LOOPNAME: await loopbackName(),
    HOSTIP: interfaceAddress(),
  };
  const input = {
    secretPath,
    secretDir,
    jsonPath,
    linkPath,
    addonPath,
    port: main.addr.port,
    port2: other.addr.port,
    port6: Number(vars.PORT6),
    port0: wildcard.addr.port,
    loopName: vars.LOOPNAME,
    hostIp: vars.HOSTIP,
  };
  const world: World = { secrets, input, vars, secretDir };
  const planted = await snapshot(secretDir);

  const { connectors, counts } = makeConnectors();
  const runtimeLimits = { timeoutMs: 10_000 };
  const runtime: Runtime = await createRuntime({
    connectors,
    db: ":memory:",
    pool: { size: 2 },
    limits: runtimeLimits,
    // Tenancy fixtures probe another namespace's state keys.
    builtins: { state: {} },
  });
  let privateRuntime: Runtime | undefined;
  const guard = runtime.capabilities().memoryGuard.kind;
  const substitute = (text: string) =>
    text.replace(/\$(PORT6|PORT0|PORT2|PORT|LOOPNAME|HOSTIP)\b/g, (_m, k: string) => vars[k]);

  try {
    for (const name of FIXTURE_NAMES) {
      const notes: string[] = [];
      const fixtureStarted = performance.now();
      const check = async () => {
        const fixture = parseFixture(name, await Deno.readTextFile(new URL(name, FIXTURES)));
        let rt = runtime;
        if (fixture.runtime === "private") {
          privateRuntime ??= await createRuntime({
            connectors,
            db: ":memory:",
            pool: { size: 0 },
            limits: runtimeLimits,
            sandbox: { allowPrivateNetwork: true },
          });
          rt = privateRuntime;
        }
        const marker = token("MARK");
        const before = { ...counts };
        for (const [index, run] of fixture.runs.entries()) {
          const label = fixture.runs.length > 1 ? `${name} (run ${index + 1})` : name;
          const options = run.options ? JSON.parse(substitute(run.options)) : {};
          const started = performance.now();
          const out = await rt.execute({
            code: run.code,
            input: { ...input, marker },
            ...options,
          });
          const ms = Math.round(performance.now() - started);
          const stored = await rt.execution(out.executionId);
          assertNoLeak(label, out, stored, run, world);
          if (fixture.guard === "cgroup" && guard === "heap-only") {
            // Reported, not enforced: without a cgroup this host cannot bound non-heap memory.
            notes.push(`${label}: no cgroup guard here; ended ${out.status} in ${ms} ms`);
            continue;
          }
          const reasons = run.expect.map((e) => mismatch(e, out, run, world));
          if (reasons.some((r) => r === undefined)) {
            if (run.meta) assertMeta(label, out, run.meta);
            continue;
          }
          assert.fail(
            `${label}: expected ${run.expect.join(" or ")}; ${reasons.join("; ")}\n${
              dump({
                status: out.status,
                result: out.status === "completed" ? out.result : undefined,
                error: "error" in out ? out.error : undefined,
                logs: out.logs.slice(0, 5),
              }).slice(0, 1500)
            }`,
          );
        }
        if (fixture.calls) {
          for (const [tool, want] of Object.entries(fixture.calls)) {
            assert.equal(counts[tool] - before[tool], want, `${name}: host-side ${tool} calls`);
          }
        }
        assert.equal(await snapshot(secretDir), planted, `${name}: the secret directory changed`);
        await assert.rejects(
          Deno.lstat(join(tmpdir(), `cordon-escape-${marker}`)),
          Deno.errors.NotFound,
          `${name}: wrote to the host's temp dir`,
        );
        // The host is healthy: a normal run still reaches the real tool, once.
        const addsBefore = counts.add;
        const control = await runtime.execute({ code: "return await math.add({ a: 1, b: 2 })" });
        assert.equal(
          control.status,
          "completed",
          `${name}: control ${dump(control).slice(0, 500)}`,
        );
        assert.equal(control.result, 3, `${name}: control result`);
        assert.equal(counts.add, addsBefore + 1, `${name}: control add count`);
      };
      try {
        await check();
        report({ name, ok: true, ms: Math.round(performance.now() - fixtureStarted), notes });
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        report({
          name,
          ok: false,
          ms: Math.round(performance.now() - fixtureStarted),
          error,
          notes,
        });
      }
    }
  } finally {
    await runtime.close();
    await privateRuntime?.close();
    await Promise.all([main, other, wildcard, v6].map((s) => s?.shutdown()));
    Deno.env.delete("CORDON_ESCAPE_SECRET");
    await Deno.remove(secretDir, { recursive: true });
  }
  const teardownStarted = performance.now();
  try {
    await assertNoSandboxChildren();
    // Children run in this empty directory; nothing may have been left in it.
    const leftovers: string[] = [];
    for await (const e of Deno.readDir(join(tmpdir(), "cordon", "empty"))) leftovers.push(e.name);
    assert.deepEqual(leftovers, [], "the sandbox working directory is no longer empty");
    report({
      name: TEARDOWN,
      ok: true,
      ms: Math.round(performance.now() - teardownStarted),
      notes: [],
    });
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    report({ name: TEARDOWN, ok: false, ms: 0, error, notes: [] });
  }
}

if (import.meta.main) {
  await runCorpus((r) => console.log(REPORT_PREFIX + JSON.stringify(r)));
}

/** The longest the corpus may take before the runner is killed (Python fixtures boot Pyodide). */
const CORPUS_DEADLINE_MS = 300_000;

Deno.test("every escape attempt in the corpus is blocked and leaks nothing", async (t) => {
  // A runtime of its own process: with --parallel, test files share this process, and its
  // pool children would otherwise show up in other files' leak checks (and theirs in ours).
  const config = fileURLToPath(new URL("../deno.json", import.meta.url));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...FROZEN_RUN_FLAGS,
      "--allow-all",
      "--config",
      config,
      fileURLToPath(import.meta.url),
    ],
    cwd: dirname(config),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const deadline = setTimeout(() => child.kill("SIGKILL"), CORPUS_DEADLINE_MS);
  let output: Deno.CommandOutput;
  try {
    output = await child.output();
  } finally {
    clearTimeout(deadline);
  }
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  const reports = new Map<string, Report>();
  for (const line of stdout.split("\n")) {
    if (!line.startsWith(REPORT_PREFIX)) continue;
    const r = JSON.parse(line.slice(REPORT_PREFIX.length)) as Report;
    reports.set(r.name, r);
  }
  for (const name of [...FIXTURE_NAMES, TEARDOWN]) {
    await t.step(name.replace(/\.txt$/, ""), () => {
      const r = reports.get(name);
      assert.ok(
        r,
        `${name}: the corpus runner gave no report (exit ${output.code}${
          output.signal ? `, ${output.signal}` : ""
        })\n${stderr.slice(-2000)}`,
      );
      for (const note of r.notes) console.log(note);
      if (!r.ok) assert.fail(r.error);
    });
  }
});
