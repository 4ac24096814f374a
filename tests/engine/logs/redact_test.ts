import assert from "node:assert/strict";
import {
  createRedactor,
  createRuntime,
  type ExecutionEvent,
  redactCredentials,
  redactValue,
} from "../../../mod.ts";
import { LogBuffer } from "../../../src/engine/logs/buffer.ts";
import { runtimeRedactor } from "../../../src/engine/logs/settings.ts";

const redact = redactCredentials;

Deno.test("createRedactor() keeps the scheme of authorization headers and drops the credential", () => {
  assert.equal(
    redact("Authorization: Bearer abc.def-ghi_123"),
    "Authorization: Bearer [redacted:token]",
  );
  assert.equal(
    redact('{"authorization":"Basic dXNlcjpwYXNz"}'),
    '{"authorization":"Basic [redacted:token]"}',
  );
  assert.equal(
    redact("proxy-authorization: token gh12345x"),
    "proxy-authorization: token [redacted:token]",
  );
  assert.equal(redact("sent Bearer 0123456789abcdef to it"), "sent Bearer [redacted:token] to it");
});

Deno.test("createRedactor() leaves prose about Bearer and Basic alone", () => {
  const prose = "Bearer tokens are described in RFC 6750; Basic authentication is older.";
  assert.equal(redact(prose), prose);
});

Deno.test("createRedactor() redacts JWTs", () => {
  const jwt =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  assert.equal(redact(`id_token=${jwt};`), "id_token=[redacted:token];");
  assert.equal(redact(`got ${jwt} back`), "got [redacted:token] back");
});

Deno.test("createRedactor() redacts provider API keys", () => {
  const cases = [
    "sk-proj-AbCdEf0123456789AbCdEf0123",
    "sk-ant-api03-AbCdEf0123456789AbCdEf",
    "sk_live_51H8abcdefghijklmnopqrst",
    "rk_test_51H8abcdefghijklmnopqrst",
    "ghp_1234567890abcdefghijklmnopqrstuvwxyz12",
    "gho_1234567890abcdefghijklmnopqrstuvwxyz12",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-1234567890-abcdefghij",
    "xoxp-1234567890-0987654321-abcdef",
    "cordon_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefg",
  ];
  for (const key of cases) {
    assert.equal(redact(`key ${key} used`), "key [redacted:token] used", key);
  }
});

Deno.test("createRedactor() keeps log references, which page these very logs", () => {
  const ref = "log_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefg";
  assert.equal(redact(`logs at ${ref}`), `logs at ${ref}`);
});

Deno.test("createRedactor() redacts PEM private key blocks, whole or cut short", () => {
  const pem =
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc+/=\n-----END RSA PRIVATE KEY-----";
  assert.equal(redact(`key:\n${pem}\nafter`), "key:\n[redacted:private_key]\nafter");
  assert.equal(
    redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA"),
    "[redacted:private_key]",
  );
  const cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
  assert.equal(redact(cert), cert);
});

Deno.test("createRedactor() keeps the key of secret assignments and redacts the value", () => {
  assert.equal(
    redact("password=hunter2 user=bob&api_key=abc123&x=1"),
    "password=[redacted:secret] user=bob&api_key=[redacted:secret]&x=1",
  );
  assert.equal(
    redact('{"client_secret": "shh 123", "DB_PASSWORD":\'p w\'}'),
    '{"client_secret": "[redacted:secret]", "DB_PASSWORD":\'[redacted:secret]\'}',
  );
  assert.equal(
    redact("X-Api-Key: k-123 secret: s3"),
    "X-Api-Key: [redacted:secret] secret: [redacted:secret]",
  );
  assert.equal(
    redact("https://example.com/cb?token=abc123&page=2"),
    "https://example.com/cb?token=[redacted:secret]&page=2",
  );
});

Deno.test("createRedactor() redacts the password of a URL and keeps the user", () => {
  assert.equal(
    redact("postgres://admin:p4ssw0rd@db.internal:5432/app"),
    "postgres://admin:[redacted:secret]@db.internal:5432/app",
  );
});

Deno.test("createRedactor() redacts e-mail addresses", () => {
  assert.equal(
    redact("mail ana.maria+tag@example.co.uk or bob@sub.example.org."),
    "mail [redacted:email] or [redacted:email].",
  );
  assert.equal(redact("<x_y@mail.example.com>"), "<[redacted:email]>");
});

Deno.test("createRedactor() leaves ordinary text alone", () => {
  // Ids, digests and versions are not secrets by shape: logs are full of them.
  const ordinary = [
    "The quick brown fox jumps over the lazy dog; 42 items, 3.5% done.",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "commit da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "https://deno.land/x/mod.ts?version=2&lang=en#top",
    "npm:zod@4.6.7 and npm:@scope/pkg@1.2.3",
    "max_tokens=100 tokenizer=bpe secretary=ann passwords=3",
    "exec_0192f1c3a4b5_9f3c0a1b2c3d4e5f6a7b",
    "task-sk-items and ask_for_help",
    "An access token expires; a secret is kept.",
    "@decorator and user @mentions",
  ];
  for (const text of ordinary) assert.equal(redact(text), text);
});

Deno.test("createRedactor() redacts known values in their plain, JSON and URL forms", () => {
  const r = createRedactor({ values: ['s3cr3t"value', "Bearer abcdef123456"] });
  assert.equal(r('v=s3cr3t"value'), "v=[redacted:secret]");
  assert.equal(r(JSON.stringify({ v: 's3cr3t"value' })), '{"v":"[redacted:secret]"}');
  assert.equal(r(`q=${encodeURIComponent('s3cr3t"value')}`), "q=[redacted:secret]");
  assert.equal(r("just abcdef123456 here"), "just [redacted:secret] here");
});

Deno.test("createRedactor() ignores known values shorter than 6 characters", () => {
  const r = createRedactor({ values: ["admin", "", "123456"] });
  assert.equal(r("admin logged in with 123456"), "admin logged in with [redacted:secret]");
});

Deno.test('createRedactor() applies extra patterns and refuses ones matching ""', () => {
  const r = createRedactor({ patterns: [/EMP-\d{4}/] });
  assert.equal(r("EMP-1234 and EMP-5678"), "[redacted:secret] and [redacted:secret]");
  assert.throws(() => createRedactor({ patterns: [/x*/] }), { code: "invalid_request" });
});

Deno.test("createRedactor() output is stable when redacted again", () => {
  const r = createRedactor({ values: ["known-secret-1"] });
  const once = r("password=known-secret-1 Authorization: Bearer known-secret-1 ana@example.com");
  assert.equal(r(once), once);
  assert.equal(
    once,
    "password=[redacted:secret] Authorization: Bearer [redacted:secret] [redacted:email]",
  );
});

Deno.test("createRedactor() handles a 1 MB line of adversarial text", () => {
  // No timing here (timing belongs in bench/); each input would take seconds with a
  // backtracking pattern, so a regression shows as a hung test.
  const inputs = [
    "a".repeat(1_000_000),
    "eyJ-".repeat(250_000),
    "a.".repeat(500_000),
    "x@" + "a.".repeat(499_000),
    "-----BEGIN ".repeat(90_000),
    "password ".repeat(110_000),
    "Bearer ".repeat(140_000),
  ];
  for (const text of inputs) assert.equal(redact(text).length, text.length);
  const line = "user ana@example.com token=abc123 ".repeat(30_000);
  const out = redact(line);
  assert.equal(out.includes("ana@example.com"), false);
  assert.equal(out.includes("abc123"), false);
});

Deno.test("redactValue() redacts strings inside a JSON-like value and keeps keys", () => {
  const value = {
    "ana@example.com": { to: ["bob@example.com", 1, null, true], date: new Date(0) },
    nested: [{ password: "password=x1" }],
  };
  assert.deepEqual(redactValue(value, redact), {
    "ana@example.com": { to: ["[redacted:email]", 1, null, true], date: new Date(0) },
    nested: [{ password: "password=[redacted:secret]" }],
  });
});

Deno.test("LogBuffer redacts each kept line once and counts the bytes it received", () => {
  const seen: string[] = [];
  let calls = 0;
  const counting = (text: string) => (calls++, redact(text));
  const logs = new LogBuffer(1000, 1000, performance.now(), (e) => seen.push(e.message), counting);
  const line = "mail ana@example.com";
  logs.add({ level: "info", message: line });
  assert.equal(calls, 1);
  assert.deepEqual(logs.entries.map((e) => e.message), ["mail [redacted:email]"]);
  assert.deepEqual(logs.inline().map((e) => e.message), ["mail [redacted:email]"]);
  assert.deepEqual(seen, ["mail [redacted:email]"]);
  assert.equal(logs.receivedBytes, new TextEncoder().encode(line).length);
  assert.equal(logs.keptBytes, logs.receivedBytes);
});

Deno.test("LogBuffer redacts the built-in shapes when given no redactor", () => {
  const logs = new LogBuffer(1000, 1000, performance.now());
  logs.add({ level: "log", message: "token=abc123" });
  assert.equal(logs.entries[0].message, "token=[redacted:secret]");
});

Deno.test("console lines are redacted inline, in the store, in readLogs and in live events", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  const events: ExecutionEvent[] = [];
  const off = rt.subscribe((e) => events.push(e));
  const out = await rt.execute({
    code: `console.log("to ana@example.com"); console.warn("Authorization: Bearer abc123def456");`,
  });
  off();
  assert.equal(out.status, "completed");
  const expected = ["to [redacted:email]", "Authorization: Bearer [redacted:token]"];
  assert.deepEqual(out.logs.map((e) => e.message), expected);
  assert.deepEqual(
    events.flatMap((e) => e.type === "log" ? [e.entry.message] : []),
    expected,
  );
  const details = await rt.execution(out.executionId);
  const page = await rt.readLogs({ logRef: details!.logRef });
  assert.deepEqual(page.items.map((e) => e.message), expected);
});

Deno.test("runtimeRedactor() knows the http built-in's secrets and redact.values", () => {
  const r = runtimeRedactor({
    redact: { values: ["plain-looking-secret"], patterns: [/EMP-\d{4}/] },
    builtins: {
      http: { allow: ["api.example.com"], secrets: { "api.example.com": { "x-k": "hostheld99" } } },
    },
  });
  assert.equal(
    r("plain-looking-secret EMP-1234 hostheld99 ana@example.com"),
    "[redacted:secret] [redacted:secret] [redacted:secret] [redacted:email]",
  );
  assert.throws(() => runtimeRedactor({ redact: { values: [1 as unknown as string] } }), {
    code: "invalid_request",
  });
});

/**
 * Known values reach LogBuffer only once Pass passes `options.redact` on (PassOptions.redact,
 * EngineParts.redact; runtime.ts already hands the engine its redactor). Flip this then.
 */
const REDACT_VALUES_WIRED = true;

Deno.test({
  name: "console lines are redacted of the runtime's known secret values",
  ignore: !REDACT_VALUES_WIRED,
  async fn() {
    await using rt = await createRuntime({
      db: ":memory:",
      pool: { size: 0 },
      redact: { values: ["plain-looking-secret"], patterns: [/EMP-\d{4}/] },
      builtins: {
        http: {
          allow: ["api.example.com"],
          secrets: { "api.example.com": { "x-k": "hostheld99" } },
        },
      },
    });
    const out = await rt.execute({
      code: `console.log("plain-looking-secret EMP-1234 hostheld99");`,
    });
    assert.deepEqual(out.logs.map((e) => e.message), [
      "[redacted:secret] [redacted:secret] [redacted:secret]",
    ]);
  },
});
