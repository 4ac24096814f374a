/**
 * The `http` built-in against a real server on 127.0.0.1: a secret echoed in any escaped or
 * encoded form is redacted from text and byte bodies, bodies that are not text come back as
 * bytes (bounded, through the codec and the call log), and a compressed bomb is cut at the
 * limit rather than unpacked.
 */
import assert from "node:assert/strict";
import { httpConnector } from "../../src/connectors/builtin/http.ts";
import { REDACTED } from "../../src/connectors/builtin/redact.ts";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import { createRuntime } from "../../mod.ts";
import { assertNoSandboxChildren } from "../_helpers/processes.ts";

/** A secret with the characters escapes change: `/`, `&`, `=`, `+`, a space. */
const SECRET = "Bearer s3cr3t/t0ken&for=tests+only";
const CREDENTIAL = SECRET.slice("Bearer ".length);
/** What must never come back, in any form: the credential's distinctive middle. */
const MARK = "t0ken";

const u4 = (s: string) =>
  [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
const pct = (s: string) =>
  [...new TextEncoder().encode(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

/** Each way a server might echo the secret into a body. */
const ECHOES: Record<string, (s: string) => string> = {
  raw: (s) => s,
  jsonSlash: (s) => JSON.stringify(s).slice(1, -1).replaceAll("/", "\\/"),
  jsonAmp: (s) => s.replaceAll("&", "\\u0026").replaceAll("/", "\\/"),
  jsonAll: u4,
  jsonUpper: (s) => u4(s).replace(/[a-f]/g, (m) => m.toUpperCase()),
  // A JSON document quoted as a string inside another: `"{\"auth\":\"…\\/…\"}"`.
  doubleJson: (s) => JSON.stringify(`{"auth":"${s.replaceAll("/", "\\/")}"}`).slice(1, -1),
  percent: encodeURIComponent,
  percentAll: pct,
  percentLower: (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  form: (s) => encodeURIComponent(s).replaceAll("%20", "+"),
  mixed: (s) => s.replace("/", "%2F").replace("&", "\\u0026").replace("=", "&#61;"),
  html: (s) => s.replaceAll("&", "&amp;").replaceAll("/", "&#x2F;"),
  base64: (s) => btoa(`x${s}y`),
  base64url: (s) => btoa(`xy${s}`).replaceAll("+", "-").replaceAll("/", "_"),
  credentialOnly: (s) => encodeURIComponent(s.slice("Bearer ".length)),
};

function gzipBomb(): Promise<Uint8Array<ArrayBuffer>> {
  // 64 MiB of zeros pack into about 64 KiB.
  const zeros = new Uint8Array(1 << 20);
  const cs = new CompressionStream("gzip");
  const w = cs.writable.getWriter();
  (async () => {
    for (let i = 0; i < 64; i++) await w.write(zeros);
    await w.close();
  })();
  return new Response(cs.readable).bytes();
}

const BINARY = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) & 0xff);

async function startServer() {
  const bomb = await gzipBomb();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    const auth = req.headers.get("authorization") ?? "";
    const echo = ECHOES[url.searchParams.get("as") ?? "raw"];
    switch (url.pathname) {
      case "/text":
        return new Response(`<${echo(auth)}>`, { headers: { "content-type": "text/plain" } });
      case "/untyped":
        return new Response(new TextEncoder().encode(`<${echo(auth)}>`));
      case "/binary": {
        const secret = new TextEncoder().encode(echo(auth));
        const body = new Uint8Array(4 + secret.length + 4);
        body.set([0, 1, 2, 255]);
        body.set(secret, 4);
        body.set([0, 254, 3, 4], 4 + secret.length);
        return new Response(body, { headers: { "content-type": "application/octet-stream" } });
      }
      case "/big-binary":
        return new Response(BINARY, { headers: { "content-type": "image/png" } });
      case "/file.gz":
        return new Response(bomb, { headers: { "content-type": "application/gzip" } });
      case "/bomb":
        return new Response(bomb, {
          headers: { "content-type": "text/plain", "content-encoding": "gzip" },
        });
      default:
        return new Response("not found", { status: 404 });
    }
  });
  const host = `127.0.0.1:${server.addr.port}`;
  return { host, base: `http://${host}`, [Symbol.asyncDispose]: () => server.shutdown() };
}

function registry(host: string, maxResponseBytes?: number) {
  return new ConnectorRegistry([httpConnector({
    allow: [host],
    allowPrivateNetwork: true,
    secrets: { [host]: { authorization: SECRET } },
    maxResponseBytes,
  })]);
}

async function fetchOk(reg: ConnectorRegistry, url: string): Promise<Record<string, unknown>> {
  const out = await reg.call("http", "fetch", { url }, { executionId: "exec_bytes" });
  if (!out.ok) assert.fail(`${url}: ${out.error.code}: ${out.error.message}`);
  return out.value as Record<string, unknown>;
}

Deno.test("httpConnector() redacts every escaped or encoded echo of a secret in a text body", async () => {
  await using srv = await startServer();
  const reg = registry(srv.host);
  for (const [as, echo] of Object.entries(ECHOES)) {
    for (const path of ["/text", "/untyped"]) {
      const out = await fetchOk(reg, `${srv.base}${path}?as=${as}`);
      const body = String(out.body);
      assert.ok(!body.includes(MARK), `${as} ${path}: ${body}`);
      assert.ok(!body.includes(echo(CREDENTIAL)), `${as} ${path}: ${body}`);
      assert.ok(body.includes(REDACTED), `${as} ${path}: ${body}`);
      if (as === "doubleJson") assert.equal(body, `<{\\"auth\\":\\"${REDACTED}\\"}>`);
      else if (!as.startsWith("base64")) assert.equal(body, `<${REDACTED}>`, as);
    }
  }
});

Deno.test("httpConnector() returns a body that is not text as bytes, redacted byte for byte", async () => {
  await using srv = await startServer();
  const reg = registry(srv.host);
  for (const as of ["raw", "jsonAmp", "percent"]) {
    const out = await fetchOk(reg, `${srv.base}/binary?as=${as}`);
    assert.equal(out.body, undefined);
    const bytes = out.bytes as Uint8Array;
    assert.ok(bytes instanceof Uint8Array, as);
    assert.deepEqual(
      [...bytes],
      [0, 1, 2, 255, ...new TextEncoder().encode(REDACTED), 0, 254, 3, 4],
      as,
    );
  }
  const big = await fetchOk(reg, `${srv.base}/big-binary`);
  assert.deepEqual(big.bytes, BINARY);
  assert.equal(big.truncated, undefined);
});

Deno.test("httpConnector() cuts bytes and a compression bomb at maxResponseBytes", async () => {
  await using srv = await startServer();
  const reg = registry(srv.host, 50_000);
  const file = await fetchOk(reg, `${srv.base}/file.gz`);
  assert.equal(file.truncated, true);
  const gz = file.bytes as Uint8Array;
  assert.equal(gz.length, 50_000);
  assert.deepEqual([...gz.subarray(0, 2)], [0x1f, 0x8b], "returned as sent, not unpacked");
  // content-encoding is undone as the body is read: 64 MiB of zeros stop at the limit.
  const bomb = await fetchOk(reg, `${srv.base}/bomb`);
  assert.equal(bomb.truncated, true);
  const zeros = bomb.bytes as Uint8Array;
  assert.equal(zeros.length, 50_000);
  assert.ok(zeros.every((b) => b === 0));
});

Deno.test("a script gets http bytes through the codec and the call log, not value_too_large", async () => {
  await using srv = await startServer();
  const rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    builtins: { http: { allow: [srv.host], allowPrivateNetwork: true } },
  });
  try {
    const r = await rt.execute({
      code: `const r = await http.fetch({ url: input.url });
        return { isBytes: r.bytes instanceof Uint8Array, length: r.bytes.length, sum: r.bytes.reduce((a, b) => a + b, 0) }`,
      input: { url: `${srv.base}/big-binary` },
    });
    assert.equal(r.status, "completed", JSON.stringify(r).slice(0, 500));
    assert.deepEqual((r as { result: unknown }).result, {
      isBytes: true,
      length: BINARY.length,
      sum: BINARY.reduce((a, b) => a + b, 0),
    });
    const stored = await rt.execution(r.executionId);
    assert.deepEqual(stored?.calls.map((c) => c.state), ["applied"]);
  } finally {
    await rt.close();
  }
  await assertNoSandboxChildren();
});
