/**
 * The vector side of search: every tool's and snippet's vector, computed in the background
 * when a document is new or its text changed (never on a search), stored in libSQL and kept in
 * memory; and per search, the query's vector (cached) and its nearest documents.
 *
 * The embedder may fail, hang or answer nonsense: each failure is counted and warned about,
 * and leaves search to words alone; the embedder is then left alone for `retryAfterMs`, after
 * which the next search retries both the query and the documents still waiting. Work is cut
 * into turns of the event loop: hashing between turns, and each batch's vectors written a few
 * rows per transaction.
 *
 * Runtimes sharing one database should share their connectors: each deletes the stored vectors
 * of tools it does not have.
 *
 * @module
 */
import type { SearchDocument } from "../../connectors/search.ts";
import type { ErrorInfo } from "../../errors.ts";
import { keepTurnShort, nextTurn } from "../../loop.ts";
import type { Db } from "../../store/client.ts";
import { VECTOR_READ_PAGE, VectorStore } from "../../store/vectors.ts";
import { documentHash, type SemanticDocument } from "./documents.ts";
import { embedOnce } from "./embed_call.ts";
import { type EmbedCounts, EmbedHealth } from "./embed_health.ts";
import type { SemanticSettings } from "./options.ts";
import { QueryCache } from "./query_cache.ts";
import { vectorKey, VectorMemory } from "./vector_memory.ts";

/** Rows per write transaction: a row is a few KiB, and each write holds the event loop. */
export const VECTOR_WRITE_CHUNK = 8;

/** What semantic search is doing, for `runtime.searchStatus()`. */
export interface SemanticStatus extends EmbedCounts {
  /** The model vectors are stored under. */
  model: string;
  /** The vectors' length, once known. */
  dimensions?: number;
  /** Tools and snippets (of every namespace) that search ranks. */
  documents: number;
  /** Of those, how many have a vector of their current text. */
  embedded: number;
  /** The last failure, if any. */
  lastError?: ErrorInfo;
}

/** A document near a query. */
export interface NearDocument {
  doc: SearchDocument;
  similarity: number;
}

interface Entry {
  namespace: string;
  sd: SemanticDocument;
  /** The hash of its text, once computed. */
  hash?: string;
  /** Its text, while it waits to be embedded. */
  text?: string;
}

/** Vectors for one runtime's tools and snippets, and the nearest of them for a query. */
export class SemanticIndex {
  readonly #settings: SemanticSettings;
  readonly #store: VectorStore;
  readonly #memory = new VectorMemory();
  readonly #docs = new Map<string, Entry>();
  readonly #queries = new QueryCache();
  readonly #inflight = new Map<string, Promise<Float32Array | undefined>>();
  readonly #closing = new AbortController();
  #dimensions: number | undefined;
  #loaded: Promise<void> | undefined;
  #running: Promise<void> | undefined;
  #dirty = false;
  #version = 0;
  readonly #health: EmbedHealth;

  constructor(db: Db, settings: SemanticSettings) {
    this.#settings = settings;
    this.#store = new VectorStore(db, settings.model);
    this.#dimensions = settings.dimensions;
    this.#health = new EmbedHealth(settings.cooldownMs, settings.warn);
  }

  /** Changes whenever the vectors do: a fused ranking computed before is stale. */
  get version(): number {
    return this.#version;
  }

  /** Replaces every tool document (snippets stay); new and changed ones are embedded. */
  setTools(docs: readonly SemanticDocument[]): void {
    for (const [key, e] of this.#docs) if (e.namespace === "") this.#docs.delete(key);
    for (const sd of docs) this.#docs.set(vectorKey("", sd.doc.path), { namespace: "", sd });
    this.#schedule();
  }

  /** A snippet was saved (`sd`) or deleted (undefined). */
  setSnippet(namespace: string, path: string, sd: SemanticDocument | undefined): void {
    if (sd) this.#docs.set(vectorKey(namespace, path), { namespace, sd });
    else this.#docs.delete(vectorKey(namespace, path));
    this.#schedule();
  }

  /** Resolves once every document has its vector, or embedding them failed for now. */
  async settled(): Promise<void> {
    await this.#load().catch(() => {});
    while (this.#running) await this.#running;
  }

  /**
   * The documents nearest `query` that `namespace` sees (the tools and its snippets), at most
   * `k`; undefined when the query cannot be embedded now (search then ranks by words alone).
   */
  async nearest(query: string, namespace: string, k: number): Promise<NearDocument[] | undefined> {
    if (this.#closing.signal.aborted) return undefined;
    if (this.#health.paused()) {
      this.#health.counts.lexicalFallbacks++;
      return undefined;
    }
    // Documents that waited out a failure are tried again now.
    if (this.#dirty && !this.#running) this.#schedule();
    try {
      await this.#load();
    } catch (err) {
      this.#health.failed(err, "loading the stored vectors");
      this.#health.counts.lexicalFallbacks++;
      return undefined;
    }
    const vector = this.#queries.get(query) ?? await this.#embedQuery(query);
    if (!vector) {
      this.#health.counts.lexicalFallbacks++;
      return undefined;
    }
    const live = (ns: string, path: string) => this.#docs.has(vectorKey(ns, path));
    return this.#memory.nearest(vector, namespace, k, live).map((n) => ({
      doc: this.#docs.get(vectorKey(n.namespace, n.path))!.sd.doc,
      similarity: n.similarity,
    }));
  }

  /** Counts and state, for `runtime.searchStatus()`. */
  status(): SemanticStatus {
    let embedded = 0;
    for (const e of this.#docs.values()) {
      if (e.hash !== undefined && this.#memory.get(e.namespace, e.sd.doc.path)?.hash === e.hash) {
        embedded++;
      }
    }
    const out: SemanticStatus = {
      model: this.#settings.model,
      documents: this.#docs.size,
      embedded,
      ...this.#health.counts,
    };
    if (this.#dimensions !== undefined) out.dimensions = this.#dimensions;
    if (this.#health.lastError) out.lastError = this.#health.lastError;
    return out;
  }

  /** Stops embedding; waits for the work under way to notice. */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.#running;
    await Promise.allSettled([...this.#inflight.values()]);
  }

  #schedule(): void {
    this.#dirty = true;
    if (this.#running || this.#closing.signal.aborted || this.#health.paused()) return;
    this.#running = this.#drain().finally(() => (this.#running = undefined));
  }

  async #drain(): Promise<void> {
    // Whoever scheduled finishes its synchronous changes first (a catalogue adds its snippets).
    await nextTurn();
    while (this.#dirty && !this.#closing.signal.aborted) {
      this.#dirty = false;
      try {
        await this.#sync();
      } catch (err) {
        if (!this.#closing.signal.aborted) this.#health.failed(err, "embedding tools and snippets");
        this.#dirty = true;
        return;
      }
    }
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      this.#dimensions ??= await this.#store.storedDimensions();
      const dims = this.#dimensions;
      if (dims === undefined) return;
      let after: [string, string] | undefined;
      for (;;) {
        const page = await this.#store.page(dims, after);
        for (const row of page) this.#memory.set(row);
        if (page.length < VECTOR_READ_PAGE) break;
        after = [page.at(-1)!.namespace, page.at(-1)!.path];
        await nextTurn();
      }
      this.#version++;
    })().catch((err) => {
      this.#loaded = undefined;
      throw err;
    });
    return this.#loaded;
  }

  /** Embeds what is new or changed, and forgets what is gone. */
  async #sync(): Promise<void> {
    await this.#load();
    const signal = this.#closing.signal;
    const todo: [string, Entry][] = [];
    for (const [key, entry] of [...this.#docs]) {
      if (entry.hash === undefined) {
        await keepTurnShort();
        if (signal.aborted) return;
        if (this.#docs.get(key) !== entry) continue;
        entry.text = entry.sd.text();
        entry.hash = await documentHash(this.#settings.model, entry.text);
      }
      if (this.#memory.get(entry.namespace, entry.sd.doc.path)?.hash !== entry.hash) {
        todo.push([key, entry]);
      }
    }
    await this.#forgetGone();
    for (let i = 0; i < todo.length && !signal.aborted; i += this.#settings.batchSize) {
      const batch = todo.slice(i, i + this.#settings.batchSize)
        .filter(([key, entry]) => this.#docs.get(key) === entry);
      if (batch.length === 0) continue;
      this.#health.called(batch.length);
      const vectors = await embedOnce({
        embed: this.#settings.embed,
        texts: batch.map(([, e]) => e.text ??= e.sd.text()),
        dimensions: this.#dimensions,
        timeoutMs: this.#settings.timeoutMs,
        signal,
      });
      const dims = this.#dimensions ??= vectors[0].length;
      const rows = batch.map(([, e], j) => ({
        namespace: e.namespace,
        path: e.sd.doc.path,
        hash: e.hash!,
        vector: vectors[j],
      }));
      for (let j = 0; j < rows.length; j += VECTOR_WRITE_CHUNK) {
        if (signal.aborted) return;
        const chunk = rows.slice(j, j + VECTOR_WRITE_CHUNK);
        await this.#store.put(dims, chunk);
        for (const row of chunk) this.#memory.set(row);
        for (const [, e] of batch.slice(j, j + VECTOR_WRITE_CHUNK)) e.text = undefined;
        this.#version++;
        await keepTurnShort();
      }
    }
  }

  /** Deletes the vectors of documents no longer in the catalogue. */
  async #forgetGone(): Promise<void> {
    const gone = [...this.#memory.entries()]
      .filter((v) => !this.#docs.has(vectorKey(v.namespace, v.path)));
    if (gone.length === 0 || this.#dimensions === undefined) return;
    for (let j = 0; j < gone.length; j += VECTOR_WRITE_CHUNK) {
      const chunk = gone.slice(j, j + VECTOR_WRITE_CHUNK);
      await this.#store.remove(this.#dimensions, chunk);
      for (const v of chunk) this.#memory.delete(v.namespace, v.path);
      await keepTurnShort();
    }
    this.#version++;
  }

  /** The query's vector (one call for concurrent equal queries), or undefined if it failed. */
  #embedQuery(query: string): Promise<Float32Array | undefined> {
    let pending = this.#inflight.get(query);
    if (pending) return pending;
    this.#health.called(1);
    pending = embedOnce({
      embed: this.#settings.embed,
      texts: [query],
      dimensions: this.#dimensions,
      timeoutMs: this.#settings.queryTimeoutMs,
      signal: this.#closing.signal,
    }).then(([vector]) => {
      this.#dimensions ??= vector.length;
      this.#queries.set(query, vector);
      return vector;
    }, (err) => {
      if (!this.#closing.signal.aborted) this.#health.failed(err, "embedding a search query");
      return undefined;
    }).finally(() => this.#inflight.delete(query));
    this.#inflight.set(query, pending);
    return pending;
  }
}
