/**
 * What a new user gets from `deno task serve` with no config file: the example connector `demo`,
 * whose deploy pauses for approval (the README's own curl commands run against a real served
 * child), and one stdout line per request and per run state change. A config file leaves the
 * example off and can turn the request lines off.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { resolveConfig } from "../../../src/service/server/cli.ts";
import { freePort, ROOT, serve } from "./_serve.ts";

/** Runs one of the README's `sh` blocks (a curl command) with the port and id filled in. */
async function sh(block: string, port: number, id = "") {
  const script = block.replaceAll("localhost:8787", `127.0.0.1:${port}`).replaceAll("exec_…", id);
  const out = await new Deno.Command("sh", { args: ["-c", script], stdout: "piped" }).output();
  assert.equal(out.code, 0, script);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** The README's `sh` block holding `needle`. */
async function readmeBlock(needle: string): Promise<string> {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1])
    .find((b) => b.includes(needle));
  assert.ok(block, `README.md has no sh block with ${needle}`);
  return block;
}

async function post(port: number, path: string, body: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, id: res.headers.get("x-request-id"), json: await res.json() };
}

Deno.test({
  name:
    "deno task serve without a config: demo pauses for approval as the README shows; a line per request and run",
  // The child's pipes close when it exits; the pump may still hold a reader for a moment.
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cordon-defaults-" });
    const port = freePort();
    try {
      const server = await serve({ CORDON_PORT: String(port), CORDON_DATA_DIR: dataDir });
      const banner = server.stdout();
      assert.match(banner, /connectors: +demo \(3\), state \(\d+\)/);
      assert.match(banner, /examples: +demo is an example.*CORDON_EXAMPLES=0/);

      // The README's curl runs code calling the approval tool: the answer is paused.
      const paused = await sh(await readmeBlock("demo.deploy"), port);
      assert.equal(paused.status, "paused", JSON.stringify(paused));
      assert.deepEqual(
        paused.pending.map((
          p: Record<string, unknown>,
        ) => [p.seq, p.connector, p.tool, p.resolution]),
        [[1, "demo", "deploy", "approval"]],
      );
      assert.deepEqual(paused.pending[0].args, { service: "api", version: "1.5.0" });
      // The README's curl approves it: the same run continues to its end.
      const done = await sh(await readmeBlock("/approve"), port, paused.executionId);
      assert.equal(done.status, "completed", JSON.stringify(done));
      assert.deepEqual(done.result, { service: "api", version: "1.5.0", previous: "1.4.0" });

      // The client-resolved tool waits for the caller's value.
      const asked = await post(port, "/v1/executions", {
        code: 'return "answer: " + await demo.ask({ question: "Which version?" })',
      });
      assert.equal(asked.json.status, "paused");
      assert.equal(asked.json.pending[0].resolution, "client");
      const resolved = await post(port, `/v1/executions/${asked.json.executionId}/resolve`, {
        seq: 1,
        result: "1.5.0",
      });
      assert.equal(resolved.json.result, "answer: 1.5.0");
      const listed = await post(port, "/v1/executions", { code: "return await demo.services({})" });
      assert.deepEqual(listed.json.result, [
        { service: "api", version: "1.5.0" },
        { service: "web", version: "2.1.3" },
      ]);

      // Lines never hold bodies or query values.
      const secret = "body-secret-5e1f";
      const queried = await fetch(
        `http://127.0.0.1:${port}/v1/search?q=query-secret-9a7c&limit=3`,
      );
      await queried.body?.cancel();
      const withSecret = await post(port, "/v1/executions", { code: `return "${secret}"` });
      assert.equal(withSecret.json.result, secret);
      const stopped = await server.stop();
      assert.equal(stopped.status.code, 0, stopped.stderr);
      const lines = stopped.stdout.split("\n");
      const id = paused.executionId;
      const runLines = lines.filter((l) => l.includes(` run ${id} `));
      assert.deepEqual(
        runLines.map((l) => l.split(" ").slice(3, 5).join(" ")),
        ["ns=default started", "ns=default paused", "ns=default resumed", "ns=default completed"],
        runLines.join("\n"),
      );
      for (const l of runLines.slice(1)) {
        assert.match(l, /^\S+Z run exec_\w+ ns=default \w+ \d+ms$/);
      }
      const approve = lines.find((l) => l.includes(`POST /v1/executions/${id}/approve`));
      assert.match(
        approve ?? "",
        new RegExp(
          `^\\S+Z request [\\w-]+ ns=default POST /v1/executions/${id}/approve 200 \\d+ms$`,
        ),
      );
      const search = lines.find((l) => l.includes(" GET /v1/search"));
      assert.match(search ?? "", / GET \/v1\/search 200 \d+ms$/, "the path without its query");
      const resolveLine = lines.find((l) => l.includes("/resolve 200"))!;
      assert.ok(resolveLine.includes(` request ${resolved.id} `), "the answer's X-Request-Id");
      assert.ok(!stopped.stdout.includes(secret), "no request body in the log");
      assert.ok(!stopped.stdout.includes("query-secret-9a7c"), "no query value in the log");
      // The README's bodiless approve once made Deno warn about request.signal on stderr.
      assert.doesNotMatch(stopped.stderr, /request\.signal|legacy/, stopped.stderr);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    'deno task serve: a config with "examples": false has no demo; "log": { "requests": false } keeps run lines only',
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cordon-defaults-" });
    const port = freePort();
    try {
      const config = join(dataDir, "cordon.config.json");
      await Deno.writeTextFile(
        config,
        JSON.stringify({ examples: false, log: { requests: false }, pool: { size: 0 } }),
      );
      const server = await serve(
        { CORDON_PORT: String(port), CORDON_DATA_DIR: dataDir },
        ["--config", config],
      );
      assert.match(server.stdout(), /connectors: +state \(\d+\)\n/);
      assert.doesNotMatch(server.stdout(), /examples:/);
      const connectors = await fetch(`http://127.0.0.1:${port}/v1/connectors`).then((r) =>
        r.json()
      );
      assert.deepEqual(connectors.items.map((c: { name: string }) => c.name), ["state"]);
      const run = await post(port, "/v1/executions", { code: "return await demo.services({})" });
      assert.equal(run.json.status, "error");
      assert.match(run.json.error.message, /demo is not defined/);
      const stopped = await server.stop();
      assert.equal(stopped.status.code, 0, stopped.stderr);
      assert.match(
        stopped.stdout,
        new RegExp(` run ${run.json.executionId} ns=default error \\d+ms`),
      );
      assert.doesNotMatch(stopped.stdout, / request /);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test("resolveConfig(): examples on without a config file, off with one; CORDON_EXAMPLES and the flag decide", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-examples-" });
  const saved = Deno.env.get("CORDON_EXAMPLES");
  const file = join(dir, "cordon.config.json");
  try {
    Deno.env.delete("CORDON_EXAMPLES");
    assert.equal((await resolveConfig({}, dir)).examples, true);
    await Deno.writeTextFile(file, JSON.stringify({ pool: { size: 1 } }));
    assert.equal((await resolveConfig({}, dir)).examples, undefined);
    await Deno.writeTextFile(file, JSON.stringify({ examples: true }));
    assert.equal((await resolveConfig({}, dir)).examples, true);
    Deno.env.set("CORDON_EXAMPLES", "0");
    assert.equal((await resolveConfig({}, dir)).examples, false);
    assert.equal((await resolveConfig({ examples: true }, dir)).examples, true, "the flag wins");
    await Deno.remove(file);
    assert.equal((await resolveConfig({}, dir)).examples, false, "0 without a file");
    Deno.env.set("CORDON_EXAMPLES", "yes");
    await assert.rejects(resolveConfig({}, dir), (err: Error & { code?: string }) => {
      assert.equal(err.code, "invalid_config");
      assert.match(err.message, /CORDON_EXAMPLES must be 0 or 1; got "yes"/);
      return true;
    });
  } finally {
    if (saved === undefined) Deno.env.delete("CORDON_EXAMPLES");
    else Deno.env.set("CORDON_EXAMPLES", saved);
    await Deno.remove(dir, { recursive: true });
  }
});
