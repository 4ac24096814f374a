/**
 * The discovery and snippet half of the {@link Runtime} API, built from the
 * catalogue, the snippet store and the engine.
 *
 * @module
 */
import type { SearchPage } from "../../connectors/search.ts";
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { CordonError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Catalogue, Description } from "../catalogue/catalogue.ts";
import { toDiagnostic } from "./checked.ts";
import type { Engine } from "../execution/engine.ts";
import { early } from "../execution/envelope.ts";
import { handleRequest } from "../catalogue/handles.ts";
import { describeForModel } from "../catalogue/model_prompt.ts";
import type { PlatformHost } from "./platform.ts";
import type {
  SaveSnippetOptions,
  Snippet,
  SnippetDetails,
  Snippets,
} from "../snippets/snippets.ts";
import type { ExecuteHooks, ExecuteRequest, ExecuteResult } from "../execution/types.ts";
import type { InNamespace } from "../common/namespace.ts";
import type { SemanticStatus } from "../semantic/mod.ts";

export type { InNamespace };

/**
 * What search ranks with: words alone, or words and meaning (an embedder), with the vectors'
 * counts (documents embedded, calls, failures, searches that fell back to words).
 */
export type SearchStatus = { semantic: false } | ({ semantic: true } & SemanticStatus);

/** Options for `runSnippet()`: an execution's settings besides its code and input. */
export type RunSnippetOptions = Omit<ExecuteRequest, "code" | "input" | "typecheck">;

/** Discovery and snippets, as the runtime offers them. */
export interface DiscoveryApi {
  /** The TypeScript declarations of every connector and `codemode`, and their hash. */
  types(): { declarations: string; declarationHash: string };
  /**
   * Ranks tools and the namespace's snippets for a query, paged. With an embedder
   * (`createRuntime({ search: { embed } })`) the lexical and vector rankings are fused; the
   * query's embedding is why this is async.
   */
  search(
    query: string,
    options?: { limit?: number; cursor?: string } & InNamespace,
  ): Promise<SearchPage>;
  /** Whether search ranks by meaning too, and how its embedding is going. */
  searchStatus(): SearchStatus;
  /** Describes `connector.tool`, or a snippet by its name (`name` or `snippet:name`) with its code. */
  describe(path: string, options?: InNamespace): Promise<Description>;
  /** The compact description of code mode a model sees (the `execute` tool's description). */
  modelDescription(options?: InNamespace): Promise<string>;
  /**
   * Saves an execution's code under `name` (a new version if the name exists), in the
   * execution's namespace, and returns the {@link Snippet}. The execution is
   * `options.executionId` (a completed one), or by default the current one: the execution on
   * whose behalf the calling code runs (a connector tool's `execute`).
   */
  saveSnippet(name: string, options?: SaveSnippetOptions): Promise<Snippet>;
  /** The newest version of every snippet in a namespace, each with its code. */
  snippets(options?: InNamespace): Promise<Snippet[]>;
  /** One snippet with its code and versions; `undefined` if unknown. */
  snippet(name: string, options?: InNamespace): Promise<SnippetDetails | undefined>;
  /** Deletes every version of a snippet. */
  deleteSnippet(name: string, options?: InNamespace): Promise<boolean>;
  /**
   * Runs a snippet's newest version with `input` (validated against its input schema); the
   * snippet is looked up in `options.namespace`, where the execution also runs.
   */
  runSnippet(
    name: string,
    input?: unknown,
    options?: RunSnippetOptions,
    hooks?: ExecuteHooks,
  ): Promise<ExecuteResult>;
}

/** `describe(path)` over the catalogue, typing snippet inputs from their schemas. */
function describer(
  catalogue: Catalogue,
  snippets: Snippets,
): (path: string, namespace?: string) => Promise<Description> {
  return (path, namespace) =>
    Promise.try(() => catalogue.describe(path, (r) => snippets.inputType(r), namespace));
}

/** The store readers a script reaches through `codemode.readLogs`/`readRecovery`/`readResult`. */
export type PlatformReaders = Pick<PlatformHost, "readLogs" | "readRecovery" | "readResult">;

/** The `codemode` host for scripts. */
export function platformHost(
  registry: ConnectorRegistry,
  catalogue: Catalogue,
  snippets: Snippets,
  readers: PlatformReaders,
): PlatformHost {
  return {
    ...readers,
    handle: (params, namespace, signal) =>
      handleRequest(registry, catalogue, params, namespace, signal),
    search: (query, options, namespace) => catalogue.search(query, { ...options, namespace }),
    describe: describer(catalogue, snippets),
    snippet: (name, version, input, namespace) => snippets.module(name, version, input, namespace),
  };
}

/** Builds the API over one runtime's parts. */
export function discoveryApi(
  engine: Engine,
  catalogue: Catalogue,
  snippets: Snippets,
  execute: (request: ExecuteRequest, hooks?: ExecuteHooks) => Promise<ExecuteResult>,
): DiscoveryApi {
  const describe = describer(catalogue, snippets);
  return {
    types: () => ({
      declarations: catalogue.declarations,
      declarationHash: catalogue.declarationHash,
    }),
    search: (query, options) => catalogue.search(query, options),
    searchStatus: () =>
      catalogue.semantic ? { semantic: true, ...catalogue.semantic.status() } : { semantic: false },
    describe: (path, options) => describe(path, options?.namespace),
    modelDescription: async (options) =>
      describeForModel(
        engine.parts.registry.list(),
        (await snippets.list(options?.namespace)).length,
      ),
    saveSnippet: (name, options) => snippets.save(name, options),
    snippets: (options) => snippets.list(options?.namespace),
    snippet: (name, options) => snippets.get(name, options?.namespace),
    deleteSnippet: (name, options) => snippets.delete(name, options?.namespace),
    async runSnippet(name, input, options = {}, hooks) {
      const startedAt = performance.now();
      let prepared;
      try {
        prepared = await snippets.prepare(name, undefined, input, options.namespace);
      } catch (err) {
        if (!(err instanceof CordonError)) throw err;
        return early(newId("exec"), startedAt, err.toInfo(), engine.parts);
      }
      const { row } = prepared;
      const result = await execute({
        ...options,
        code: row.code,
        input: prepared.input,
        typecheck: "off",
      }, hooks);
      result.meta.snippet = { name: row.name, version: row.version, stale: row.stale };
      result.diagnostics.push(...prepared.diagnostics.map(toDiagnostic));
      return result;
    },
  };
}
