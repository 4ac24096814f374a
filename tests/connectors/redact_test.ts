import assert from "node:assert/strict";
import { REDACTED, Redactor } from "../../src/connectors/builtin/redact.ts";
import { decodeEscapes } from "../../src/connectors/builtin/redact_view.ts";

const SECRET = "Bearer a/b&c=d+e_tok3n-XYZ";

Deno.test("decodeEscapes() maps each decoded character back to its escape", () => {
  const v = decodeEscapes("a\\/b\\u0026%2F&amp;%E2%82%AC&#x1F600;z");
  assert.equal(v.text, "a/b&/&€😀z");
  assert.deepEqual([...v.from], [0, 1, 3, 4, 10, 13, 18, 27, 27, 36]);
  assert.deepEqual([...v.to], [1, 3, 4, 10, 13, 18, 27, 36, 36, 37]);
  // Not escapes: left as written.
  assert.equal(decodeEscapes("100% \\q &nope; %zz \\u12").text, "100% \\q &nope; %zz \\u12");
});

Deno.test("Redactor.text() redacts a secret through mixed and doubled escapes", () => {
  const r = new Redactor([SECRET]);
  for (
    const written of [
      "a\\/b\\u0026c=d+e_tok3n-XYZ",
      "a%2fb%26c%3Dd%2Be_tok3n-XYZ",
      "a&#47;b&amp;c&#x3d;d+e_tok3n-XYZ",
      "a\\\\/b\\\\u0026c=d+e_tok3n-XYZ",
      "Bearer+a%2Fb%26c%3Dd%2Be_tok3n-XYZ",
    ]
  ) {
    assert.equal(r.text(`[${written}]`), `[${REDACTED}]`, written);
  }
  assert.equal(r.text("a/b&c=d+e_tok3n-XY"), "a/b&c=d+e_tok3n-XY", "a different value stays");
});

Deno.test("Redactor.truncatedText() drops a secret or an escape cut at the end", () => {
  const r = new Redactor([SECRET]);
  assert.equal(r.truncatedText("ok: a\\/b\\u00"), "ok: ");
  assert.equal(r.truncatedText("ok: a%2Fb%2"), "ok: ");
  assert.equal(r.truncatedText("ok: a\\/b\\u0026c=d"), "ok: ");
  assert.equal(r.truncatedText("ok: done."), "ok: done.");
});

Deno.test("Redactor.bytes() redacts around bytes that are not text and keeps the rest", () => {
  const r = new Redactor([SECRET]);
  const secret = new TextEncoder().encode("a\\/b&c=d+e_tok3n-XYZ");
  const bytes = Uint8Array.from([0x80, 0, 0xff, ...secret, 0x9d, 7]);
  assert.deepEqual(
    [...r.bytes(bytes)],
    [0x80, 0, 0xff, ...new TextEncoder().encode(REDACTED), 0x9d, 7],
  );
  const cut = Uint8Array.from([1, 2, ...secret.subarray(0, 6)]);
  assert.deepEqual([...r.bytes(cut, true)], [1, 2]);
});
