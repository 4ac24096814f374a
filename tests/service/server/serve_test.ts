/**
 * The service as a user starts it: `deno task serve` from the repository, called with curl,
 * stopped with SIGTERM; keys made with `deno task keys`.
 */
import assert from "node:assert/strict";
import { FIXTURE_CONFIG } from "../_service.ts";
import { childProcesses } from "../../_helpers/processes.ts";
import { freePort, ROOT, serve } from "./_serve.ts";

/** Every process below `pid`. */
async function descendants(pid: number): Promise<{ pid: number; cmd: string }[]> {
  const out = [];
  for (const c of await childProcesses(pid)) out.push(c, ...(await descendants(c.pid)));
  return out;
}

async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function task(args: string[], env: Record<string, string>): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", ...args],
    cwd: ROOT,
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

async function curl(...args: string[]): Promise<{ code: number; body: string }> {
  const out = await new Deno.Command("curl", {
    args: ["-s", "-w", "\n%{http_code}", ...args],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const cut = text.lastIndexOf("\n");
  return { code: Number(text.slice(cut + 1)), body: text.slice(0, cut) };
}

Deno.test({
  name: "deno task serve: curl runs code, keys from deno task keys, SIGTERM stops it cleanly",
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "cordon-serve-" });
    const port = freePort();
    const env = { CORDON_PORT: String(port), CORDON_DATA_DIR: dataDir };
    try {
      const server = await serve(env);
      const banner = server.stdout();
      assert.match(banner, new RegExp(`listening on http://127\\.0\\.0\\.1:${port}`));
      assert.match(banner, new RegExp(`data: +${dataDir}/cordon\\.db`));
      assert.match(banner, /memory guard: +(cgroup-v1|cgroup-v2|heap-only)/);
      assert.match(banner, /orphan guard: +(pdeathsig|none)/);
      assert.match(banner, /connectors: +demo \(3\), state \(\d+\)/);
      const url = `http://127.0.0.1:${port}`;
      const run = await curl(
        `${url}/v1/executions`,
        "-H",
        "content-type: application/json",
        "-d",
        '{"code":"return 1 + 1"}',
      );
      assert.equal(run.code, 200, run.body);
      assert.equal(JSON.parse(run.body).result, 2);
      // A slow run accepted just before SIGTERM is still answered.
      const slow = curl(
        `${url}/v1/executions`,
        "-H",
        "content-type: application/json",
        "-d",
        JSON.stringify({
          code: "await new Promise((r) => setTimeout(r, 1_500)); return 'late'",
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
      const tree = await descendants(server.child.pid);
      assert.ok(tree.some((p) => p.cmd.includes("sandbox/guest/entry.")), "sandbox children run");
      const stopping = performance.now();
      const stopped = await server.stop();
      const answered = await slow;
      assert.equal(answered.code, 200, answered.body);
      assert.equal(JSON.parse(answered.body).result, "late");
      assert.ok(performance.now() - stopping > 500, "shutdown waited for the accepted request");
      assert.equal(stopped.status.code, 0, stopped.stderr);
      assert.match(stopped.stdout, /cordon: stopped/);
      for (const p of tree) assert.equal(await alive(p.pid), false, `reaped: ${p.cmd}`);

      // A key made by the CLI: now the server needs it.
      const made = await task(
        ["keys", "create", "--name", "ci", "--scopes", "execute", "--namespace", "ci", "--json"],
        env,
      );
      assert.equal(made.code, 0, new TextDecoder().decode(made.stderr));
      const { token, key } = JSON.parse(new TextDecoder().decode(made.stdout));
      assert.equal(key.namespace, "ci");
      const listed = new TextDecoder().decode((await task(["keys", "list"], env)).stdout);
      assert.match(listed, new RegExp(`${key.id}\\s+ci\\s+execute\\s+ci\\s+active`));
      assert.doesNotMatch(listed, new RegExp(token), "tokens are never shown again");

      const again = await serve(env);
      assert.match(again.stdout(), /auth: +API keys required/);
      const refused = await curl(`${url}/v1/executions`);
      assert.equal(refused.code, 401);
      const allowed = await curl(`${url}/v1/executions`, "-H", `authorization: Bearer ${token}`);
      assert.equal(allowed.code, 200, allowed.body);
      assert.equal((await again.stop("SIGINT")).status.code, 0);

      const revoked = await task(["keys", "revoke", key.id], env);
      assert.equal(revoked.code, 0);
      assert.equal((await task(["keys", "revoke", key.id], env)).code, 1);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test("deno task serve: a bad config, a bad port or a public address without keys exit 1", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cordon-serve-" });
  try {
    const env = { CORDON_DATA_DIR: dataDir, CORDON_PORT: String(freePort()) };
    const publicHost = await task(["serve", "--host", "0.0.0.0"], env);
    assert.equal(publicHost.code, 1);
    assert.match(new TextDecoder().decode(publicHost.stderr), /without API keys/);
    const badPort = await task(["serve", "--port", "http"], env);
    assert.equal(badPort.code, 1);
    assert.match(new TextDecoder().decode(badPort.stderr), /--port must be a port number/);
    const badConfig = `${dataDir}/bad.json`;
    await Deno.writeTextFile(badConfig, JSON.stringify({ pool: { size: "big" }, typo: 1 }));
    const bad = await task(["serve", "--config", badConfig], env);
    assert.equal(bad.code, 1);
    assert.match(new TextDecoder().decode(bad.stderr), /pool\.size|typo/);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

/**
 * A data directory this process cannot write: a read-only bind mount as root (root ignores
 * modes), mode 0555 otherwise. A string says why it cannot be made here.
 */
async function readOnlyDir(seed: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cordon-ro-" });
  await seed(dir);
  const run = (cmd: string, args: string[]) =>
    new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output()
      .then((o) => o.success, () => false);
  const root = Deno.uid() === 0;
  if (root ? !(await run("mount", ["--bind", "-o", "ro", dir, dir])) : false) {
    await Deno.remove(dir, { recursive: true });
    return "mount --bind is not permitted in this container";
  }
  if (!root) await Deno.chmod(dir, 0o555);
  return {
    dir,
    async [Symbol.asyncDispose]() {
      if (root) await run("umount", ["-l", dir]);
      else await Deno.chmod(dir, 0o755);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("deno task serve: a read-only data directory exits 1 with a one-line error", async (t) => {
  const { openDb } = await import("../../../src/store/client.ts");
  const { migrate } = await import("../../../src/store/migrations.ts");
  const seeds: Record<string, (dir: string) => Promise<void>> = {
    "empty": async () => {},
    "with a database": async (dir) => {
      const db = await openDb(`file:${dir}/cordon.db`);
      await migrate(db);
      db.close();
    },
  };
  for (const [name, seed] of Object.entries(seeds)) {
    await t.step(name, async () => {
      const ro = await readOnlyDir(seed);
      if (typeof ro === "string") return console.log(`ignored: ${ro}`);
      await using _ro = ro;
      for (const dataDir of [ro.dir, `${ro.dir}/sub`]) {
        const out = await task(["serve"], {
          CORDON_DATA_DIR: dataDir,
          CORDON_PORT: String(freePort()),
        });
        const stderr = new TextDecoder().decode(out.stderr);
        assert.equal(out.code, 1, stderr);
        assert.equal(stderr.trim().split("\n").length, 1, `one line, no stack trace: ${stderr}`);
        assert.match(stderr, /^cordon: Cannot open database .*(read-only|not writable)/);
      }
    });
  }
});

Deno.test("a JSON config adds limits, pool and builtins; a TypeScript one adds connectors", async () => {
  const { loadConfigFile } = await import("../../../src/service/server/config.ts");
  const { runtimeOptionsOf } = await import("../../../src/service/server/server.ts");
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/cordon.config.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        port: 9000,
        limits: { timeoutMs: 5_000 },
        pool: { size: 3 },
        builtins: { state: false, http: { allow: ["api.example.com"] } },
        mcpServers: [{
          name: "fs",
          command: "node",
          args: ["server.js"],
          cwd: "sub",
          env: { TOKEN: "mcp-secret-value" },
        }],
        sessions: { idleTtlMs: 60_000 },
        logs: { retainMs: 3_600_000 },
        artifacts: { maxBytes: 1_000_000 },
        redact: { values: ["operator-secret"] },
      }),
    );
    const config = await loadConfigFile(path);
    assert.equal(config.port, 9000);
    const options = await runtimeOptionsOf(config);
    assert.equal(options.pool?.size, 3);
    assert.equal(options.builtins?.state, undefined);
    assert.deepEqual(options.builtins?.http, { allow: ["api.example.com"] });
    assert.equal(options.connectors?.[0].name, "fs");
    assert.equal(options.sessions?.idleTtlMs, 60_000);
    assert.equal(options.logs?.retainMs, 3_600_000);
    assert.equal(options.artifacts?.maxBytes, 1_000_000);
    assert.deepEqual(options.redact?.values, ["operator-secret", "mcp-secret-value"]);
    const ts = await loadConfigFile(FIXTURE_CONFIG);
    assert.deepEqual(ts.connectors?.map((c) => c.name), ["math", "mail", "client"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
