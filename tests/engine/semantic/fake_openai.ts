/**
 * A local HTTP server on 127.0.0.1 that answers like an OpenAI-compatible
 * `POST /v1/embeddings`, with the scripted concept vectors; switchable to fail in the ways
 * real endpoints do. It records what it was sent.
 */
import { conceptVector } from "./concepts.ts";

/** What the fake endpoint answers next, and what it was sent. */
export interface Fake {
  mode: "ok" | "shuffled" | "401" | "500" | "slow" | "not-json" | "no-data" | "short" | "nan";
  requests: { path: string; headers: Headers; body: Record<string, unknown> }[];
  url: string;
  server: Deno.HttpServer<Deno.NetAddr>;
}

/** A local HTTP server that answers like `POST /v1/embeddings` (concept vectors). */
export function fakeOpenAi(): Fake {
  const fake = { mode: "ok", requests: [] } as unknown as Fake;
  fake.server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json() as { input: string[]; dimensions?: number };
    fake.requests.push({ path: new URL(req.url).pathname, headers: req.headers, body });
    const data = body.input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: conceptVector(text),
    }));
    const json = (value: unknown, status = 200) => Response.json(value, { status });
    switch (fake.mode) {
      case "shuffled":
        return json({ object: "list", data: [...data].reverse(), model: "concepts" });
      case "401":
        return json({ error: { message: "Incorrect API key provided", type: "auth" } }, 401);
      case "500":
        return new Response("upstream exploded", { status: 500 });
      case "slow":
        await new Promise((r) => setTimeout(r, 300));
        return json({ data });
      case "not-json":
        return new Response("<html>hello</html>", { headers: { "content-type": "text/html" } });
      case "no-data":
        return json({ object: "list" });
      case "short":
        return json({ data: data.slice(1) });
      case "nan":
        return json({ data: data.map((d) => ({ ...d, embedding: ["x", ...d.embedding] })) });
      default:
        return json({ object: "list", data, model: "concepts", usage: { total_tokens: 1 } });
    }
  });
  fake.url = `http://127.0.0.1:${fake.server.addr.port}/v1`;
  return fake;
}
