/**
 * A small, real pet store API on 127.0.0.1, matching
 * `tests/fixtures/openapi/petstore.json`, for the OpenAPI connector tests.
 * Every route but `/health`, `/slow` and `/moved?to=<url>` (a 307
 * redirect) wants the header `X-Api-Key: PETSTORE_KEY`.
 *
 * @module
 */

/** The key the store accepts. */
export const PETSTORE_KEY = "petstore-secret-7f3a9c";

/** One request as the store saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: string;
}

/** A running store. */
export interface Petstore extends AsyncDisposable {
  baseUrl: string;
  /** Every request received, oldest first. */
  requests: SeenRequest[];
}

interface Pet {
  id: number;
  name: string;
  tag?: string | null;
  status?: string;
  category?: unknown;
}

const CATEGORY_TREE = {
  name: "Animals",
  children: [{ name: "Mammals", children: [{ name: "Dogs" }, { name: "Cats" }] }, { name: "Fish" }],
};

/** How long `/slow` takes to answer: longer than the timeout the tests set. */
const SLOW_MS = 400;

function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

/** Starts the store on a free port. */
export function startPetstore(): Petstore {
  const pets = new Map<number, Pet>([
    [1, { id: 1, name: "Rex", tag: "dog", status: "available", category: CATEGORY_TREE }],
    [2, { id: 2, name: "Tom", tag: "cat", status: "sold" }],
    [3, { id: 3, name: "Nemo", tag: "fish", status: "available" }],
  ]);
  let nextId = 4;
  const requests: SeenRequest[] = [];
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const body = await req.text();
    requests.push({
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    });
    if (url.pathname === "/health") {
      return new Response("ok", { headers: { "content-type": "text/plain" } });
    }
    if (url.pathname === "/slow") {
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
      return json({ slow: true });
    }
    if (url.pathname === "/moved") {
      return new Response(null, {
        status: 307,
        headers: { location: url.searchParams.get("to")! },
      });
    }
    const key = req.headers.get("x-api-key");
    if (key !== PETSTORE_KEY) return json({ error: "missing or wrong X-Api-Key" }, 401);
    if (url.pathname === "/pets" && req.method === "GET") {
      const tags = url.searchParams.getAll("tags");
      const status = url.searchParams.get("status");
      const limit = Number(url.searchParams.get("limit") ?? 100);
      const found = [...pets.values()]
        .filter((p) => tags.length === 0 || tags.includes(p.tag ?? ""))
        .filter((p) => status === null || p.status === status)
        .slice(0, limit);
      return json(found);
    }
    if (url.pathname === "/pets" && req.method === "POST") {
      if (req.headers.get("content-type") !== "application/json") {
        return json({ error: "send application/json" }, 415);
      }
      const input = JSON.parse(body);
      if (typeof input?.name !== "string" || input.name === "") {
        return json({ error: "name is required" }, 400);
      }
      const pet = { ...input, id: nextId++ };
      pets.set(pet.id, pet);
      return json(pet, 201);
    }
    if (url.pathname === "/categories") return json(CATEGORY_TREE);
    const match = url.pathname.match(/^\/pets\/([^/]+)(\/photos)?$/);
    if (match) {
      const id = Number(decodeURIComponent(match[1]));
      const pet = pets.get(id);
      if (!pet) return json({ error: `pet ${match[1]} not found` }, 404);
      if (match[2]) {
        return json({
          petId: id,
          format: url.searchParams.get("format"),
          headerFormat: req.headers.get("format"),
        });
      }
      if (req.method === "GET") return json(pet);
      if (req.method === "DELETE") {
        if (id === 1) return json({ error: `key ${key} may not delete pet 1` }, 403);
        pets.delete(id);
        return new Response(null, { status: 204 });
      }
    }
    return json({ error: "no such route" }, 404);
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
