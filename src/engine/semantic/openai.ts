/**
 * An {@link EmbedFunction} for any OpenAI-compatible embeddings endpoint (OpenAI, Azure's
 * OpenAI-style routes, Ollama, vLLM, LM Studio, text-embeddings-inference, LiteLLM…):
 * `POST …/embeddings` with `{ model, input: [...] }`, answered `{ data: [{ embedding, index }] }`.
 * Failures are typed: `embedder_failed` (unreachable, or an HTTP error: its status and the
 * endpoint's own message), `embedder_timeout`, `embedder_malformed` (not JSON, or not one
 * vector of numbers per text). The API key is sent as a bearer token and never appears in an
 * error.
 *
 * @module
 */
import { readAtMost } from "../../bytes.ts";
import { CordonError } from "../../errors.ts";
import { checkVectors } from "./embed_call.ts";
import type { EmbedFunction } from "./options.ts";

/** Options for {@link openAiEmbedder}. */
export interface OpenAiEmbedderOptions {
  /**
   * The API base (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`) or the full
   * endpoint (`…/v1/embeddings`).
   */
  url: string;
  /** The embedding model, e.g. `text-embedding-3-small`. */
  model: string;
  /** Sent as `authorization: Bearer <apiKey>`; a host-side secret. */
  apiKey?: string;
  /** Asks for vectors of this length (models that can shorten them) and checks the answer. */
  dimensions?: number;
  /** More headers for every request (an organization, a gateway's key). */
  headers?: Record<string, string>;
  /** How long one request may take (ms, default {@link DEFAULT_OPENAI_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** One request's bound when the caller gives none (the runtime sets its own, shorter, ones). */
export const DEFAULT_OPENAI_TIMEOUT_MS = 60_000;
/**
 * The largest answer read: 2,048 vectors of 3,072 numbers as JSON text is about 130 MB, but a
 * runtime asks for 32 at a time (about 2 MB); anything far larger is refused, not buffered.
 */
export const MAX_EMBEDDINGS_RESPONSE_BYTES = 64 * 1024 * 1024;
/** How much of an HTTP error's body is quoted in the error's message. */
const ERROR_BODY_CHARS = 300;

function endpointOf(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CordonError("invalid_request", `openAiEmbedder: "${url}" is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CordonError("invalid_request", `openAiEmbedder: the URL must be http(s), not ${url}`);
  }
  if (!/\/embeddings\/?$/.test(parsed.pathname)) {
    parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/embeddings`;
  }
  return parsed;
}

/** The endpoint as an error may show it: no credentials, no query. */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Reads at most `max` bytes of a body as text; undefined if it is longer. */
async function boundedText(res: Response, max: number): Promise<string | undefined> {
  const bytes = await readAtMost(res.body, max);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/** The endpoint's own words about an HTTP error (`{ error: { message } }` or the text). */
function errorWords(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
    const message = typeof parsed.error === "string" ? parsed.error : parsed.error?.message;
    if (typeof message === "string") return message.slice(0, ERROR_BODY_CHARS);
  } catch { /* not JSON: quote the text */ }
  return body.slice(0, ERROR_BODY_CHARS).trim();
}

/** The vectors of an answer body, in the order of the texts. */
function vectorsOf(body: string, count: number, dimensions: number | undefined): Float32Array[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new CordonError("embedder_malformed", "The embedding endpoint did not answer JSON");
  }
  const data = (parsed as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    throw new CordonError("embedder_malformed", "The embedding endpoint's answer has no data list");
  }
  // Counted first: a missing vector is named as one, not as a bad index.
  if (data.length !== count) return checkVectors(data, count, dimensions);
  const ordered: unknown[] = new Array(data.length);
  data.forEach((item, i) => {
    const index = (item as { index?: unknown } | null)?.index;
    const at = Number.isInteger(index) ? index as number : i;
    if (at < 0 || at >= data.length || ordered[at] !== undefined) {
      throw new CordonError("embedder_malformed", `The answer's data has a bad index ${at}`);
    }
    ordered[at] = (item as { embedding?: unknown } | null)?.embedding;
  });
  return checkVectors(ordered, count, dimensions);
}

/**
 * An embedding function for an OpenAI-compatible `/v1/embeddings` endpoint; pass it as
 * `createRuntime({ search: { embed } })`. It carries its `model` and `dimensions`.
 *
 * @example
 * ```ts ignore
 * import { createRuntime, openAiEmbedder } from "@cordon/runtime";
 * const embed = openAiEmbedder({
 *   url: "https://api.openai.com/v1",
 *   model: "text-embedding-3-small",
 *   apiKey: Deno.env.get("OPENAI_API_KEY"),
 * });
 * await using runtime = await createRuntime({ search: { embed } });
 * ```
 */
export function openAiEmbedder(options: OpenAiEmbedderOptions): EmbedFunction {
  const endpoint = endpointOf(options.url);
  const { model, apiKey, dimensions } = options;
  if (typeof model !== "string" || model === "") {
    throw new CordonError("invalid_request", "openAiEmbedder: model must be a model's name");
  }
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 1)) {
    throw new CordonError("invalid_request", "openAiEmbedder: dimensions must be a whole number");
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_OPENAI_TIMEOUT_MS;
  const headers: Record<string, string> = {
    ...options.headers,
    "content-type": "application/json",
    accept: "application/json",
  };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const where = shown(endpoint);
  const embed = async (texts: string[], o: { signal?: AbortSignal } = {}) => {
    if (texts.length === 0) return [];
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort("timeout"), timeoutMs);
    const onAbort = () => controller.abort(o.signal?.reason);
    o.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const body: Record<string, unknown> = { model, input: texts, encoding_format: "float" };
      if (dimensions !== undefined) body.dimensions = dimensions;
      const res = await fetch(endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const text = await boundedText(res, MAX_EMBEDDINGS_RESPONSE_BYTES);
      if (!res.ok) {
        throw new CordonError(
          "embedder_failed",
          `The embedding endpoint ${where} answered HTTP ${res.status}: ${
            errorWords(text ?? "") || res.statusText
          }`,
          { details: { status: res.status } },
        );
      }
      if (text === undefined) {
        throw new CordonError(
          "embedder_malformed",
          `The embedding endpoint's answer is over ${MAX_EMBEDDINGS_RESPONSE_BYTES} bytes`,
        );
      }
      return vectorsOf(text, texts.length, dimensions);
    } catch (err) {
      if (err instanceof CordonError) throw err;
      if (controller.signal.aborted && controller.signal.reason === "timeout") {
        throw new CordonError(
          "embedder_timeout",
          `The embedding endpoint ${where} did not answer within ${timeoutMs} ms`,
          { details: { timeoutMs } },
        );
      }
      const message = err instanceof Error ? err.message : String(err);
      throw new CordonError(
        "embedder_failed",
        `Cannot reach the embedding endpoint ${where}: ${message}`,
        { cause: err },
      );
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
    }
  };
  return Object.assign(embed, { model, dimensions }) as EmbedFunction;
}
