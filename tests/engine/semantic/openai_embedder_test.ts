import assert from "node:assert/strict";
import { createRuntime, openAiEmbedder } from "../../../mod.ts";
import { conceptVector, testConnectors } from "./concepts.ts";
import { type Fake, fakeOpenAi } from "./fake_openai.ts";

Deno.test("openAiEmbedder() posts the texts and returns one vector per text, in order", async () => {
  const fake = fakeOpenAi();
  try {
    const embed = openAiEmbedder({
      url: fake.url,
      model: "text-embedding-3-small",
      apiKey: "sk-test-secret",
      headers: { "openai-organization": "org-1" },
    });
    assert.equal(embed.model, "text-embedding-3-small");
    const texts = ["delete a calendar event", "air quality in a city"];
    const vectors = await embed(texts);
    assert.equal(vectors.length, 2);
    const unit = (v: number[]) => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    texts.forEach((t, i) =>
      unit(conceptVector(t)).forEach((x, j) => assert.ok(Math.abs(vectors[i][j] - x) < 1e-6))
    );
    const [req] = fake.requests;
    assert.equal(req.path, "/v1/embeddings");
    assert.equal(req.headers.get("authorization"), "Bearer sk-test-secret");
    assert.equal(req.headers.get("openai-organization"), "org-1");
    assert.equal(req.headers.get("content-type"), "application/json");
    assert.deepEqual(req.body, {
      model: "text-embedding-3-small",
      input: texts,
      encoding_format: "float",
    });
    // Answers out of order are put back by their index; a full endpoint URL is used as is.
    fake.mode = "shuffled";
    const full = openAiEmbedder({ url: `${fake.url}/embeddings`, model: "m", dimensions: 11 });
    const again = await full(texts);
    assert.deepEqual(again.map((v) => [...v]), vectors.map((v) => [...v]));
    assert.equal(fake.requests[1].path, "/v1/embeddings");
    assert.equal(fake.requests[1].body.dimensions, 11);
    assert.equal(fake.requests[1].headers.get("authorization"), null);
    assert.deepEqual(await full([]), []);
    assert.equal(fake.requests.length, 2, "no request for no texts");
  } finally {
    await fake.server.shutdown();
  }
});

Deno.test("openAiEmbedder() fails typed: HTTP errors, timeouts, malformed answers, no server", async () => {
  const fake = fakeOpenAi();
  try {
    const embed = openAiEmbedder({
      url: fake.url,
      model: "m",
      apiKey: "sk-never-shown",
      timeoutMs: 100,
    });
    const fails = async (mode: Fake["mode"], code: string, message: RegExp) => {
      fake.mode = mode;
      await assert.rejects(embed(["one", "two"]), (err: { code?: string; message?: string }) => {
        assert.equal(err.code, code, `${mode}: ${err.message}`);
        assert.match(err.message!, message);
        assert.ok(!err.message!.includes("sk-never-shown"), "the key never shows");
        return true;
      });
    };
    await fails("401", "embedder_failed", /HTTP 401: Incorrect API key provided/);
    await fails("500", "embedder_failed", /HTTP 500: upstream exploded/);
    await fails("slow", "embedder_timeout", /within 100 ms/);
    await fails("not-json", "embedder_malformed", /did not answer JSON/);
    await fails("no-data", "embedder_malformed", /no data list/);
    await fails("short", "embedder_malformed", /1 vectors for 2 texts/);
    await fails("nan", "embedder_malformed", /not a finite number/);
    fake.mode = "ok";
    const sized = openAiEmbedder({ url: fake.url, model: "m", dimensions: 3 });
    await assert.rejects(sized(["x"]), {
      code: "embedder_malformed",
      message: /11 dimensions, not 3/,
    });
  } finally {
    await fake.server.shutdown();
  }
  // The server is gone: nothing listens on its port.
  const gone = openAiEmbedder({ url: fake.url, model: "m" });
  await assert.rejects(gone(["x"]), { code: "embedder_failed", message: /Cannot reach/ });
  assert.throws(() => openAiEmbedder({ url: "ftp://example.com", model: "m" }), {
    code: "invalid_request",
  });
  assert.throws(() => openAiEmbedder({ url: "not a url", model: "m" }), {
    code: "invalid_request",
  });
  assert.throws(() => openAiEmbedder({ url: fake.url, model: "" }), { code: "invalid_request" });
});

Deno.test("createRuntime({ search: { embed: openAiEmbedder() } }) ranks by meaning over HTTP", async () => {
  const fake = fakeOpenAi();
  const warnings: string[] = [];
  try {
    await using rt = await createRuntime({
      connectors: testConnectors(),
      db: ":memory:",
      pool: { size: 0 },
      typecheck: "off",
      search: {
        embed: openAiEmbedder({ url: fake.url, model: "concepts-http", apiKey: "sk-hidden" }),
        onWarning: (m) => warnings.push(m),
      },
    });
    await rt.warm();
    const status = rt.searchStatus();
    assert.ok(status.semantic && status.embedded === status.documents && status.documents > 0);
    assert.equal(status.model, "concepts-http");
    const page = await rt.search("is the smog bad in Delhi", { limit: 3 });
    assert.ok(page.items.some((h) => h.path === "weather.air_quality"));
    // The endpoint down: search still answers, by words.
    fake.mode = "500";
    const words = await rt.search("forecast for a city", { limit: 3 });
    assert.equal(words.items[0].path, "weather.forecast");
    const after = rt.searchStatus();
    assert.ok(
      after.semantic && after.failures === 1 && after.lastError?.code === "embedder_failed",
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /HTTP 500: upstream exploded\); search ranks by words alone/);
    assert.ok(!warnings[0].includes("sk-hidden"));
  } finally {
    await fake.server.shutdown();
  }
});
