/**
 * What `createRuntime({ search })` takes to rank by meaning as well as by words: an embedding
 * function, and the few numbers that bound it, each checked here with its default and reason.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { MAX_VECTOR_DIMENSIONS } from "../../store/vectors.ts";

/** One text's embedding: plain numbers or a `Float32Array`, the same length for every text. */
export type Embedding = readonly number[] | Float32Array;

/**
 * Turns texts into vectors, one per text and in the same order. Cordon calls it in the
 * background for tools and snippets (`batchSize` texts at a time) and once per new search query.
 * It may stop when `signal` aborts (Cordon has stopped waiting: timeout or close).
 *
 * `model` and `dimensions`, when the function carries them (`openAiEmbedder()` does), name what
 * it computes: vectors are stored per model, so another model's are never mixed in.
 */
export interface EmbedFunction {
  (texts: string[], options?: { signal?: AbortSignal }): Promise<readonly Embedding[]>;
  /** The embedding model; vectors are stored and reused per model. */
  readonly model?: string;
  /** The length of its vectors, when known ahead. */
  readonly dimensions?: number;
}

/** How lexical and vector rankings are fused (reciprocal rank fusion). */
export interface FusionOptions {
  /**
   * The rank constant: a document at rank `r` of a ranking earns `weight / (k + r)`. Larger
   * flattens the difference between ranks. Default {@link DEFAULT_RRF_K}.
   */
  k?: number;
  /** Weight of the lexical (BM25) ranking; default 1. */
  lexicalWeight?: number;
  /** Weight of the vector (embedding) ranking; default 1. */
  vectorWeight?: number;
}

/** Options for search, `createRuntime({ search })`. Without `embed`, search is lexical only. */
export interface SearchSettingsOptions {
  /** The embedding function; `openAiEmbedder()` makes one for OpenAI-compatible endpoints. */
  embed?: EmbedFunction;
  /** The model's name, where vectors are kept (default `embed.model`, else `"default"`). */
  model?: string;
  /** The vectors' length (default `embed.dimensions`, else learned from the first answer). */
  dimensions?: number;
  /** Texts per call when embedding tools and snippets (default {@link DEFAULT_EMBED_BATCH_SIZE}). */
  batchSize?: number;
  /** How long one call for tools and snippets may take (ms, default {@link DEFAULT_EMBED_TIMEOUT_MS}). */
  timeoutMs?: number;
  /**
   * How long a search waits for its query's embedding before it answers from words alone (ms,
   * default {@link DEFAULT_QUERY_TIMEOUT_MS}).
   */
  queryTimeoutMs?: number;
  /**
   * After a failure, how long searches skip the embedder and tools wait to be embedded again
   * (ms, default {@link EMBED_FAILURE_COOLDOWN_MS}).
   */
  retryAfterMs?: number;
  /** Reciprocal rank fusion: its constant and the two rankings' weights. */
  fusion?: FusionOptions;
  /** Where warnings go (an embedder failing, search falling back to words); default `console.warn`. */
  onWarning?: (message: string) => void;
}

/**
 * TEI (text-embeddings-inference) refuses more than 32 inputs per request by default; OpenAI
 * takes 2,048. 32 suits both, and a tool's text is short.
 */
export const DEFAULT_EMBED_BATCH_SIZE = 32;
/** OpenAI's own limit on inputs per request. */
export const MAX_EMBED_BATCH_SIZE = 2_048;
/** A batch of long texts on a busy remote endpoint can take seconds; this is its bound. */
export const DEFAULT_EMBED_TIMEOUT_MS = 30_000;
/** A search should answer promptly: past this, the query is ranked by its words alone. */
export const DEFAULT_QUERY_TIMEOUT_MS = 2_000;
/** The constant of Cormack, Clarke and Büttcher's reciprocal rank fusion (SIGIR 2009). */
export const DEFAULT_RRF_K = 60;
/**
 * After a failure, searches skip the embedder (words only) and tools wait to be embedded for
 * this long: a dead endpoint costs one timeout per interval, not one per search.
 */
export const EMBED_FAILURE_COOLDOWN_MS = 30_000;

/** The checked settings of semantic search. */
export interface SemanticSettings {
  embed: EmbedFunction;
  model: string;
  dimensions?: number;
  batchSize: number;
  timeoutMs: number;
  queryTimeoutMs: number;
  fusion: Required<FusionOptions>;
  warn: (message: string) => void;
  /** How long the embedder is left alone after a failure (ms). */
  cooldownMs: number;
}

function invalid(field: string, why: string): CordonError {
  return new CordonError("invalid_request", `search.${field} ${why}`);
}

function positiveInt(value: unknown, field: string, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    throw invalid(field, `must be a whole number from 1 to ${max}, not ${String(value)}`);
  }
  return value;
}

function weight(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw invalid(field, `must be a number of 0 or more, not ${String(value)}`);
  }
  return value;
}

/** Checks `options` and fills in the defaults; undefined when there is no embedder. */
export function semanticSettings(
  options: SearchSettingsOptions | undefined,
): SemanticSettings | undefined {
  if (options === undefined || options.embed === undefined) return undefined;
  const { embed } = options;
  if (typeof embed !== "function") throw invalid("embed", "must be a function");
  const model = options.model ?? embed.model ?? "default";
  if (typeof model !== "string" || model === "" || model.length > 200) {
    throw invalid("model", "must be a name of 1 to 200 characters");
  }
  const given = options.dimensions ?? embed.dimensions;
  const dimensions = given === undefined
    ? undefined
    : positiveInt(given, "dimensions", MAX_VECTOR_DIMENSIONS, 0);
  const fusion = options.fusion ?? {};
  const k = weight(fusion.k, "fusion.k", DEFAULT_RRF_K);
  const lexicalWeight = weight(fusion.lexicalWeight, "fusion.lexicalWeight", 1);
  const vectorWeight = weight(fusion.vectorWeight, "fusion.vectorWeight", 1);
  if (lexicalWeight + vectorWeight === 0) throw invalid("fusion", "needs a weight above 0");
  const warn = options.onWarning ?? ((m: string) => console.warn(`[cordon] ${m}`));
  return {
    embed,
    model,
    dimensions,
    batchSize: positiveInt(
      options.batchSize,
      "batchSize",
      MAX_EMBED_BATCH_SIZE,
      DEFAULT_EMBED_BATCH_SIZE,
    ),
    timeoutMs: positiveInt(options.timeoutMs, "timeoutMs", 600_000, DEFAULT_EMBED_TIMEOUT_MS),
    queryTimeoutMs: positiveInt(
      options.queryTimeoutMs,
      "queryTimeoutMs",
      600_000,
      DEFAULT_QUERY_TIMEOUT_MS,
    ),
    fusion: { k, lexicalWeight, vectorWeight },
    warn,
    cooldownMs: options.retryAfterMs === 0
      ? 0
      : positiveInt(options.retryAfterMs, "retryAfterMs", 3_600_000, EMBED_FAILURE_COOLDOWN_MS),
  };
}
