/**
 * Semantic search: an embedding function's vectors for every tool and snippet, computed in the
 * background and stored in libSQL (`F32_BLOB`), a query's nearest documents, and their
 * reciprocal rank fusion with the lexical ranking; and `openAiEmbedder()`, the adapter for
 * OpenAI-compatible `/v1/embeddings` endpoints.
 *
 * @module
 */
export {
  DEFAULT_EMBED_BATCH_SIZE,
  DEFAULT_EMBED_TIMEOUT_MS,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_RRF_K,
  EMBED_FAILURE_COOLDOWN_MS,
  type Embedding,
  type EmbedFunction,
  type FusionOptions,
  MAX_EMBED_BATCH_SIZE,
  type SearchSettingsOptions,
  type SemanticSettings,
  semanticSettings,
} from "./options.ts";
export {
  DEFAULT_OPENAI_TIMEOUT_MS,
  MAX_EMBEDDINGS_RESPONSE_BYTES,
  openAiEmbedder,
  type OpenAiEmbedderOptions,
} from "./openai.ts";
export { MAX_EMBED_TEXT_CHARS } from "./documents.ts";
export type { EmbedCounts } from "./embed_health.ts";
export { reciprocalRankFusion } from "./fusion.ts";
export type { SemanticStatus } from "./semantic_index.ts";
export { SemanticSearch, VECTOR_CANDIDATES } from "./semantic_search.ts";
