/**
 * What the model can discover: the generated declarations and their hash,
 * search over tools and snippets, `describe` of one of them, and the output
 * shapes observed for tools whose schema says little.
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { type SearchDocument, SearchIndex, type SearchPage } from "../../connectors/search.ts";
import {
  isShape,
  mergeShapes,
  observeShape,
  type Shape,
  shapeToTs,
} from "../../connectors/shape.ts";
import { toolDocuments } from "../../connectors/search_documents.ts";
import type { ToolInfo } from "../../connectors/types.ts";
import { buildDeclarations, toolSignature } from "../../connectors/typegen/mod.ts";
import { CordonError } from "../../errors.ts";
import type { ShapeStore } from "../../store/shapes.ts";
import type { SnippetRow } from "../../store/snippets.ts";
import { checkNamespace } from "../common/namespace.ts";
import type { Db } from "../../store/client.ts";
import { SemanticSearch, type SemanticSettings } from "../semantic/mod.ts";
import type { Description } from "./description.ts";
import { exampleCall, notFound, snippetDocument, snippetKey } from "./entries.ts";
import { HitSignatures, withSignatures } from "./search_hits.ts";

export type { Description };

export interface Observed {
  shape: Shape;
  samples: number;
  /** The shape as TypeScript: what a write is worth making for (counts change every time). */
  rendered: string;
  /** When it was last observed (ms since the epoch; from the store: when it last changed). */
  at: number;
}

/**
 * Tools with an observed shape, per namespace. A namespace observes at most the host's tools,
 * so this binds only a catalogue larger than any model reads (a few hundred tools, each shape
 * itself bounded by the shape limits); past it, new tools go unobserved for that namespace.
 */
export const MAX_OBSERVED_TOOLS_PER_NAMESPACE = 1_000;

/** The key of a namespace's observation of a tool. */
function observedKey(namespace: string, path: string): string {
  return `${namespace}\u0000${path}`;
}

/** A schema that says nothing useful about an output: absent, `{}`, or `unknown`-like. */
function saysLittle(schema: ToolInfo["outputSchema"]): boolean {
  if (!schema) return true;
  const keys = Object.keys(schema).filter((k) => !["$schema", "description", "title"].includes(k));
  return keys.length === 0;
}

/** The catalogue of one runtime. */
export class Catalogue {
  #declarations = "";
  #declarationHash = "";
  readonly #registry: ConnectorRegistry;
  readonly #shapes: ShapeStore;
  readonly #index = new SearchIndex();
  /** Observations by namespace and tool: one tenant's field names never reach another. */
  readonly #observed = new Map<string, Observed>();
  /** Tools observed per namespace, for {@link MAX_OBSERVED_TOOLS_PER_NAMESPACE}. */
  readonly #observedCount = new Map<string, number>();
  readonly #snippets = new Map<string, SnippetRow>();
  /** Tools' call signatures by path, computed when a search first returns them. */
  readonly #signatures: HitSignatures;

  readonly #extra: string;
  /** Ranking by meaning too, when the runtime has an embedder. */
  readonly semantic?: SemanticSearch;

  private constructor(
    registry: ConnectorRegistry,
    shapes: ShapeStore,
    extra: string,
    semantic?: { db: Db; settings: SemanticSettings },
  ) {
    this.#registry = registry;
    this.#signatures = new HitSignatures(registry);
    this.#shapes = shapes;
    this.#extra = extra;
    if (semantic) this.semantic = new SemanticSearch(this.#index, semantic.db, semantic.settings);
    this.#build();
  }

  /** Every connector's declarations and `codemode`'s. */
  get declarations(): string {
    return this.#declarations;
  }

  /** The hash of {@link declarations}: stable across restarts, changed by any schema change. */
  get declarationHash(): string {
    return this.#declarationHash;
  }

  #build(): void {
    ({ declarations: this.#declarations, declarationHash: this.#declarationHash } =
      buildDeclarations(this.#registry.list(), this.#extra));
  }

  #toolDocuments(): SearchDocument[] {
    // The connectors themselves: their tags and `useWhen` are searched too.
    return toolDocuments(this.#registry.names().map((name) => this.#registry.connector(name)!));
  }

  /** A connector's tool list changed: declarations, hash and index (and vectors) follow. */
  toolsChanged(): void {
    this.#build();
    this.#signatures.clear();
    const tools = this.#toolDocuments();
    this.#index.replaceAll([...tools, ...[...this.#snippets.values()].map(snippetDocument)]);
    this.semantic?.toolsChanged(this.#registry.list(), tools);
  }

  /** Builds the catalogue, with the shapes and snippets the store already has. */
  static async open(
    registry: ConnectorRegistry,
    shapes: ShapeStore,
    snippets: SnippetRow[],
    /** More declarations (the allowed packages' modules), part of the hash. */
    extra = "",
    /** The store and settings of ranking by meaning, when there is an embedder. */
    semantic?: { db: Db; settings: SemanticSettings },
  ): Promise<Catalogue> {
    const c = new Catalogue(registry, shapes, extra, semantic);
    const tools = c.#toolDocuments();
    const docs = [...tools];
    for (const s of snippets) {
      c.#snippets.set(snippetKey(s.namespace, s.name), s);
      docs.push(snippetDocument(s));
      c.semantic?.snippetChanged(s.namespace, snippetDocument(s));
    }
    c.#index.replaceAll(docs);
    c.semantic?.toolsChanged(registry.list(), tools);
    for (const row of await shapes.all()) {
      if (isShape(row.shape)) {
        c.#remember(row.namespace, `${row.connector}.${row.tool}`, {
          shape: row.shape,
          samples: row.samples,
          rendered: shapeToTs(row.shape),
          at: row.updatedAt,
        });
      }
    }
    return c;
  }

  /** Ranks tools and the namespace's snippets for a query (fused with meaning, with an embedder). */
  async search(
    query: string,
    options: { limit?: number; cursor?: string; namespace?: string } = {},
  ): Promise<SearchPage> {
    if (typeof query !== "string") {
      throw new CordonError("invalid_request", "search() needs a query string");
    }
    const scoped = { ...options, namespace: checkNamespace(options.namespace) };
    const page = this.semantic
      ? await this.semantic.search(query, scoped)
      : this.#index.search(query, scoped);
    return withSignatures(page, (hit) => this.#signatures.of(hit));
  }

  /** A snippet was saved (or a new version) or deleted. */
  snippetChanged(namespace: string, name: string, row: SnippetRow | undefined): void {
    const before = this.#snippets.get(snippetKey(namespace, name));
    if (row) {
      this.#snippets.set(snippetKey(namespace, name), row);
      this.#index.add(snippetDocument(row));
      this.semantic?.snippetChanged(namespace, snippetDocument(row));
    } else {
      this.#snippets.delete(snippetKey(namespace, name));
      this.#index.remove(`snippet:${name}`, namespace);
      if (before) this.semantic?.snippetChanged(namespace, snippetDocument(before), true);
    }
  }

  /**
   * Describes `connector.tool`, or a snippet by its bare name or `snippet:name` (with its
   * code), as `namespace` sees it: its snippets, and the output shapes its own results showed.
   */
  describe(
    path: string,
    snippetTypes?: (row: SnippetRow) => string,
    namespace?: string,
  ): Description {
    if (typeof path !== "string" || path === "") {
      throw new CordonError("invalid_request", "describe() needs a path like math.add");
    }
    const ns = checkNamespace(namespace);
    // A tool is always `connector.tool`; a snippet's name has no dot.
    const name = path.startsWith("snippet:")
      ? path.slice("snippet:".length)
      : path.includes(".")
      ? undefined
      : path;
    if (name !== undefined) return this.#describeSnippet(path, name, ns, snippetTypes);
    const dot = path.indexOf(".");
    const connector = dot > 0 ? path.slice(0, dot) : "";
    const toolName = dot > 0 ? path.slice(dot + 1) : "";
    const tool = this.#registry.tool(connector, toolName);
    if (!tool) throw notFound(path, "tool_not_found");
    const sig = toolSignature(connector, tool);
    const d: Description = {
      kind: "tool",
      path,
      description: tool.description,
      signature: sig.signature,
      input: sig.input,
      output: sig.output,
      examples: [exampleCall(connector, tool.name)],
      annotations: { ...tool.annotations },
    };
    const seen = this.#observed.get(observedKey(ns, path));
    if (seen && saysLittle(tool.outputSchema)) {
      d.observedShape = seen.rendered;
      d.observedSamples = seen.samples;
    }
    return d;
  }

  #describeSnippet(
    path: string,
    name: string,
    namespace: string,
    snippetTypes?: (row: SnippetRow) => string,
  ): Description {
    const row = this.#snippets.get(snippetKey(namespace, name));
    if (!row) throw notFound(path, "snippet_not_found");
    const input = snippetTypes ? snippetTypes(row) : "unknown";
    return {
      kind: "snippet",
      path: `snippet:${row.name}`,
      description: row.description,
      signature: `codemode.run("${row.name}", input: ${input}): Promise<unknown>`,
      input,
      output: "unknown",
      examples: [`const out = await codemode.run(${JSON.stringify(row.name)}, input);`],
      code: row.code,
      version: row.version,
      stale: row.stale,
      connectors: row.connectors,
    };
  }

  /**
   * Folds a tool's result, got by an execution of `namespace`, into that namespace's observed
   * shape of the tool (tools without a useful output schema).
   */
  observe(connector: string, tool: string, value: unknown, namespace?: string): void {
    const def = this.#registry.tool(connector, tool);
    if (!def || !saysLittle(def.outputSchema)) return;
    const ns = checkNamespace(namespace);
    const before = this.#observed.get(observedKey(ns, `${connector}.${tool}`));
    const shape = before ? mergeShapes(before.shape, observeShape(value)) : observeShape(value);
    const rendered = shapeToTs(shape);
    const samples = (before?.samples ?? 0) + 1;
    const observed = { shape, samples, rendered, at: Date.now() };
    if (!this.#remember(ns, `${connector}.${tool}`, observed)) return;
    // Written only when what describe() shows changed: after a few results, almost never.
    if (rendered !== before?.rendered) {
      this.#shapes.put({ namespace: ns, connector, tool, shape, samples, updatedAt: Date.now() })
        .catch(() => {});
    }
  }

  /** The output shape `namespace`'s results of `connector.tool` showed, if any. */
  observation(path: string, namespace?: string): Readonly<Observed> | undefined {
    return this.#observed.get(observedKey(checkNamespace(namespace), path));
  }

  /** Keeps an observation; false when the namespace is at its cap and this tool is new to it. */
  #remember(namespace: string, path: string, observed: Observed): boolean {
    const key = observedKey(namespace, path);
    if (!this.#observed.has(key)) {
      const count = this.#observedCount.get(namespace) ?? 0;
      if (count >= MAX_OBSERVED_TOOLS_PER_NAMESPACE) return false;
      this.#observedCount.set(namespace, count + 1);
    }
    this.#observed.set(key, observed);
    return true;
  }
}
