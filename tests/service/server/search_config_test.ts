/**
 * `search.embeddings` in the service's config: an OpenAI-compatible endpoint whose key stays on
 * the host (redacted from logs), wired into the runtime the service runs.
 */
import assert from "node:assert/strict";
import { CordonError } from "../../../src/errors.ts";
import { parseConfig } from "../../../src/service/server/config.ts";
import { runtimeOptionsOf } from "../../../src/service/server/server.ts";
import { fakeOpenAi } from "../../engine/semantic/fake_openai.ts";
import { openService } from "../_service.ts";

const KEY_ENV = "CORDON_TEST_EMBEDDINGS_KEY";

Deno.test("config search.embeddings: the service ranks by meaning with the key from the environment", async () => {
  const fake = fakeOpenAi();
  Deno.env.set(KEY_ENV, "sk-from-the-environment");
  try {
    const embeddings = { url: fake.url, model: "concepts-svc", apiKeyEnv: KEY_ENV, batchSize: 8 };
    const options = await runtimeOptionsOf(parseConfig({ search: { embeddings } }));
    assert.equal(options.search?.embed?.model, "concepts-svc");
    assert.equal(options.search?.batchSize, 8);
    assert.ok(options.redact?.values?.includes("sk-from-the-environment"), "the key is redacted");

    await using t = await openService({ search: { embeddings } });
    await t.service.runtime.warm();
    const status = t.service.runtime.searchStatus();
    assert.ok(status.semantic && status.documents > 0 && status.embedded === status.documents);
    const r = await t.call("GET", "/v1/search?q=add%20two%20numbers&limit=3");
    assert.equal(r.status, 200);
    assert.ok(r.json.items.length > 0);
    assert.ok(fake.requests.length >= 2, "documents and the query were embedded");
    for (const req of fake.requests) {
      assert.equal(req.headers.get("authorization"), "Bearer sk-from-the-environment");
      assert.equal(req.body.model, "concepts-svc");
    }
  } finally {
    Deno.env.delete(KEY_ENV);
    await fake.server.shutdown();
  }
});

Deno.test("config search.embeddings: a missing key variable, both key forms, or a typo is invalid_config", async () => {
  const base = { url: "http://127.0.0.1:9/v1", model: "m" };
  const invalid = (err: unknown) => err instanceof CordonError && err.code === "invalid_config";
  await assert.rejects(
    runtimeOptionsOf(
      parseConfig({ search: { embeddings: { ...base, apiKeyEnv: "CORDON_NOPE_X" } } }),
    ),
    (err: unknown) => invalid(err) && /CORDON_NOPE_X/.test((err as Error).message),
  );
  for (
    const bad of [
      { ...base, apiKey: "a", apiKeyEnv: "B" },
      { ...base, modle: "typo" },
      { url: "not a url", model: "m" },
      { ...base, dimensions: 0 },
    ]
  ) {
    assert.throws(() => parseConfig({ search: { embeddings: bad } }), invalid, JSON.stringify(bad));
  }
  assert.throws(() => parseConfig({ search: { embedder: base } }), invalid);
  // Without search.embeddings, search is lexical.
  assert.equal((await runtimeOptionsOf(parseConfig({}))).search, undefined);
});
