import assert from "node:assert/strict";
import { bestHostMatch, parseHostPattern } from "../../src/connectors/builtin/host_pattern.ts";
import { isJsonType, readBounded } from "../../src/connectors/builtin/http_body.ts";
import { HttpPolicy } from "../../src/connectors/builtin/http_policy.ts";
import { isPublicAddress } from "../../src/connectors/builtin/net_address.ts";
import { Redactor } from "../../src/connectors/builtin/redact.ts";
import { CordonError } from "../../src/errors.ts";

Deno.test("isPublicAddress() approves public unicast addresses only", () => {
  const publicOnes = [
    "8.8.8.8",
    "93.184.215.14",
    "172.32.0.1",
    "2606:4700::1111",
    "2a00:1450:4001::1",
    "::ffff:8.8.8.8",
  ];
  const closed = [
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.251",
    "198.18.0.1",
    "::",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "0:0:0:0:0:ffff:a00:1",
    "::ffff:169.254.169.254",
    "::ffff:0:7f00:1",
    "::127.0.0.1",
    "fd00::1",
    "fe80::1%eth0",
    "ff02::1",
    "64:ff9b::a00:1",
    "2002:a00:1::",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2001:db8::1",
    "localhost",
    "not an address",
  ];
  for (const a of publicOnes) assert.equal(isPublicAddress(a), true, a);
  for (const a of closed) assert.equal(isPublicAddress(a), false, a);
});

Deno.test("parseHostPattern() normalizes names and refuses what is not a host", () => {
  assert.deepEqual(parseHostPattern("API.Example.com"), {
    source: "API.Example.com",
    host: "api.example.com",
    wildcard: false,
  });
  assert.equal(parseHostPattern("exämple.com").host, "xn--exmple-cua.com");
  assert.equal(parseHostPattern("[::1]:8080").port, 8080);
  assert.equal(parseHostPattern("*.example.com").wildcard, true);
  for (
    const bad of [
      "",
      "*",
      "*.com",
      "http://a.com",
      "a.com/x",
      "u@a.com",
      "a.com:0",
      "a.com:99999",
      "a*.com",
      "*.*.com",
    ]
  ) {
    assert.throws(() => parseHostPattern(bad), CordonError, bad);
  }
});

Deno.test("bestHostMatch() matches port, wildcard and exact names, most specific first", () => {
  const patterns = ["*.example.com", "api.example.com", "api.example.com:8443"].map(
    parseHostPattern,
  );
  const match = (url: string) => bestHostMatch(patterns, new URL(url))?.source;
  assert.equal(match("https://api.example.com:8443/"), "api.example.com:8443");
  assert.equal(match("https://api.example.com/"), "api.example.com");
  assert.equal(match("https://a.b.example.com/"), "*.example.com");
  assert.equal(match("https://example.com/"), undefined);
  assert.equal(match("https://badexample.com/"), undefined);
  assert.equal(match("https://api.example.com.evil.test/"), undefined);
  const ported = [parseHostPattern("svc.test:443")];
  assert.ok(bestHostMatch(ported, new URL("https://svc.test/")));
  assert.equal(bestHostMatch(ported, new URL("http://svc.test/")), undefined);
});

Deno.test("Redactor removes secrets as written, escaped, encoded and as a bare credential", () => {
  const r = new Redactor(['Bearer tok"en-123456', ""]);
  assert.equal(r.text('a Bearer tok"en-123456 b'), "a [redacted] b");
  assert.equal(r.text('{"a":"Bearer tok\\"en-123456"}'), '{"a":"[redacted]"}');
  assert.equal(r.text("?t=tok%22en-123456"), "?t=[redacted]");
  assert.equal(r.text('only tok"en-123456'), "only [redacted]");
  assert.deepEqual(r.value({ ['tok"en-123456']: ['Bearer tok"en-123456', 1] }), {
    "[redacted]": ["[redacted]", 1],
  });
  assert.equal(r.truncatedText('cut here: Bearer tok"e'), "cut here: ");
  assert.equal(new Redactor(["Basic abc"]).text("Basic abc, abc"), "[redacted], abc");
});

Deno.test("readBounded() stops at the limit and cancels the rest", async () => {
  let cancelled = false;
  let pulls = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      controller.enqueue(new Uint8Array(10).fill(65));
    },
    cancel() {
      cancelled = true;
    },
  });
  const out = await readBounded(endless, 25);
  assert.equal(out.bytes.length, 25);
  assert.equal(out.truncated, true);
  assert.equal(cancelled, true);
  assert.ok(pulls <= 4, `pulled ${pulls} chunks`);
  const exact = await readBounded(new Response("x".repeat(25)).body, 25);
  assert.equal(exact.truncated, false);
  assert.ok(isJsonType("application/problem+json; charset=utf-8"));
  assert.ok(!isJsonType("text/html"));
});

Deno.test("HttpPolicy.checkHeaders() refuses client-owned and secret headers, not others", () => {
  const policy = new HttpPolicy({
    name: "http",
    allow: ["*.example.com"],
    secrets: { "api.example.com": { "x-api-key": "k-1234567890" } },
  });
  const api = new URL("https://api.example.com/");
  const other = new URL("https://www.example.com/");
  assert.throws(() => policy.checkHeaders(api, { "X-API-Key": "mine" }), /supplied by the host/);
  assert.equal(policy.checkHeaders(other, { "X-API-Key": "mine" }).get("x-api-key"), "mine");
  assert.throws(() => policy.checkHeaders(other, { "Transfer-Encoding": "chunked" }), CordonError);
  assert.deepEqual(policy.secretsFor(api), [["x-api-key", "k-1234567890"]]);
  assert.deepEqual(policy.secretsFor(other), []);
  assert.ok(policy.isSecretHeader("X-Api-Key"));
});
