/**
 * Snippets: code that worked, kept under a name. `save` promotes a
 * completed execution's code; `prepare` is the gate every run passes
 * (from the host or from `codemode.run` inside a script): the snippet
 * exists, its connectors are all here, its input fits its schema, and if
 * the declarations changed since it was saved it is type-checked again and
 * marked stale when it no longer checks.
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { schemaToTs } from "../../connectors/typegen/mod.ts";
import { CordonError } from "../../errors.ts";
import type { SnippetModule } from "../../sandbox/protocol.ts";
import type { CallStore } from "../../store/calls.ts";
import type { ExecutionRow, ExecutionStore } from "../../store/executions.ts";
import type { SnippetRow, SnippetStore } from "../../store/snippets.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { Checker } from "../typecheck/checker.ts";
import { type PreparedSource, prepareSource } from "../source/source.ts";
import { formOf, type TypeDiagnostic } from "../typecheck/check.ts";
import { checkNamespace } from "../common/namespace.ts";
import { currentExecution } from "../execution/current.ts";
import {
  checkName,
  MAX_INPUT_SCHEMA_CHARS,
  MAX_SNIPPET_DESCRIPTION_CHARS,
  validatorOf,
} from "./rules.ts";
import {
  type PreparedSnippet,
  type SaveSnippetOptions,
  type Snippet,
  type SnippetDetails,
  toSnippetInfo,
} from "./types.ts";

export {
  INPUT_SCHEMA_BOUNDS,
  MAX_INPUT_SCHEMA_CHARS,
  MAX_SNIPPET_DESCRIPTION_CHARS,
  SNIPPET_NAME,
} from "./rules.ts";
export {
  type PreparedSnippet,
  type SaveSnippetOptions,
  type Snippet,
  type SnippetDetails,
  type SnippetInfo,
  toSnippetInfo,
} from "./types.ts";

/** Snippet operations of one runtime. */
export class Snippets {
  constructor(
    private readonly store: SnippetStore,
    private readonly executions: ExecutionStore,
    private readonly calls: CallStore,
    private readonly registry: ConnectorRegistry,
    private readonly catalogue: Catalogue,
    private readonly checker: Checker,
    /** Prepares code for the guest (the runtime's, which resolves allowed packages). */
    private readonly prepareCode: (code: string) => PreparedSource | Promise<PreparedSource> =
      prepareSource,
  ) {}

  async save(name: string, options?: SaveSnippetOptions): Promise<Snippet> {
    checkName(name);
    const o = options ?? {};
    if (typeof o !== "object" || Array.isArray(o)) {
      throw new CordonError("invalid_request", "saveSnippet() options must be an object");
    }
    const description = o.description ?? "";
    if (typeof description !== "string") {
      throw new CordonError("invalid_request", "A snippet's description must be a string");
    }
    if (description.length > MAX_SNIPPET_DESCRIPTION_CHARS) {
      throw new CordonError(
        "invalid_request",
        `A snippet description is at most ${MAX_SNIPPET_DESCRIPTION_CHARS} characters`,
      );
    }
    if (o.inputSchema !== undefined) {
      if (
        o.inputSchema === null || typeof o.inputSchema !== "object" || Array.isArray(o.inputSchema)
      ) {
        throw new CordonError("invalid_request", "inputSchema must be a JSON Schema object");
      }
      if (JSON.stringify(o.inputSchema).length > MAX_INPUT_SCHEMA_CHARS) {
        throw new CordonError(
          "invalid_request",
          `inputSchema is larger than ${MAX_INPUT_SCHEMA_CHARS} characters`,
        );
      }
      validatorOf(o.inputSchema, true);
    }
    const execution = await this.#source(name, o.executionId);
    const row = await this.store.save({
      namespace: execution.namespace,
      name,
      description: description.trim(),
      code: execution.code,
      inputSchema: o.inputSchema,
      connectors: await this.#connectorsUsed(execution.id, execution.code),
      declarationHash: this.catalogue.declarationHash,
      sourceExecutionId: execution.id,
      createdAt: Date.now(),
    });
    this.catalogue.snippetChanged(row.namespace, name, row);
    return toSnippetInfo(row);
  }

  /**
   * The execution to save: `executionId`, or the current one (whose code may still be running:
   * it is the code that runs now). A past one must have completed.
   */
  async #source(name: string, executionId: unknown): Promise<ExecutionRow> {
    const current = currentExecution.getStore();
    const id = executionId ?? current;
    if (id === undefined) {
      throw new CordonError(
        "invalid_request",
        `saveSnippet("${name}") has no current execution to save (it runs outside any ` +
          `execution's tool call): pass { executionId }, e.g. the id of runtime.executions()[0]`,
      );
    }
    if (typeof id !== "string" || id === "") {
      throw new CordonError("invalid_request", "executionId must be an execution's id string");
    }
    const execution = await this.executions.get(id);
    if (!execution) throw new CordonError("execution_not_found", `There is no execution ${id}`);
    const runsNow = id === current && ["running", "paused"].includes(execution.status);
    if (execution.status !== "completed" && !runsNow) {
      throw new CordonError(
        "invalid_state",
        `Execution ${execution.id} is ${execution.status}; only completed code is saved as a snippet`,
      );
    }
    return execution;
  }

  /** Connectors the run called, and the ones the code names (a branch it did not take). */
  async #connectorsUsed(executionId: string, code: string): Promise<string[]> {
    const used = new Set<string>();
    for (const e of await this.calls.list(executionId)) {
      if (e.kind === "tool" && e.connector !== "codemode") used.add(e.connector);
    }
    for (const name of this.registry.names()) {
      if (new RegExp(`(?<![\\w$.])${name}\\s*(?:\\.|\\[)`).test(code)) used.add(name);
    }
    return [...used].sort();
  }

  async list(namespace?: string): Promise<Snippet[]> {
    return (await this.store.latest(checkNamespace(namespace))).map(toSnippetInfo);
  }

  async get(name: string, namespace?: string): Promise<SnippetDetails | undefined> {
    const versions = await this.store.versions(checkNamespace(namespace), checkName(name));
    if (versions.length === 0) return undefined;
    return { ...toSnippetInfo(versions[0]), versions: versions.map((v) => v.version) };
  }

  async delete(name: string, namespace?: string): Promise<boolean> {
    const ns = checkNamespace(namespace);
    const deleted = await this.store.delete(ns, checkName(name));
    if (deleted) this.catalogue.snippetChanged(ns, name, undefined);
    return deleted;
  }

  /** The TypeScript type of a snippet's input. */
  inputType(row: SnippetRow): string {
    return row.inputSchema ? schemaToTs(row.inputSchema) : "unknown";
  }

  /** Clears a snippet to run: exists, connectors present, input valid, checked if stale. */
  async prepare(
    name: string,
    version: number | undefined,
    input: unknown,
    namespace?: string,
  ): Promise<PreparedSnippet> {
    const row = await this.store.get(checkNamespace(namespace), checkName(name), version);
    if (!row) {
      throw new CordonError("snippet_not_found", `There is no snippet "${name}"`, {
        details: { name, ...(version === undefined ? {} : { version }) },
      });
    }
    const known = new Set(this.registry.names());
    const missing = row.connectors.filter((c) => !known.has(c));
    if (missing.length > 0) {
      throw new CordonError(
        "snippet_unavailable",
        `Snippet "${name}" needs the connector${missing.length > 1 ? "s" : ""} ${
          missing.join(", ")
        }, which this runtime does not have`,
        { details: { name, missing } },
      );
    }
    const value = input;
    if (row.inputSchema) {
      const issues = validatorOf(row.inputSchema, false).check(input);
      if (issues.length > 0) {
        throw new CordonError(
          "invalid_input",
          `Snippet "${name}" input does not match its schema: ${
            issues.slice(0, 5).map((i) => `${i.path || "input"}: ${i.message}`).join("; ")
          }`,
          { details: { name, issues: issues.slice(0, 20) } },
        );
      }
    }
    let diagnostics: TypeDiagnostic[] = [];
    if (row.declarationHash !== this.catalogue.declarationHash) {
      const checked = await this.checker.check({
        code: row.code,
        form: formOf(row.code),
        declarations: this.catalogue.declarations,
        declarationHash: this.catalogue.declarationHash,
        inputType: this.inputType(row),
      });
      diagnostics = [...checked.syntaxErrors, ...checked.diagnostics];
      row.stale = diagnostics.some((d) => d.category === "error");
      row.declarationHash = this.catalogue.declarationHash;
      await this.store.markChecked(
        row.namespace,
        row.name,
        row.version,
        row.declarationHash,
        row.stale,
      );
      if (version === undefined) this.catalogue.snippetChanged(row.namespace, row.name, row);
    }
    return { row, input: value, diagnostics };
  }

  /** What `codemode.run` imports. */
  async module(
    name: string,
    version: number | undefined,
    input: unknown,
    namespace: string,
  ): Promise<SnippetModule & { version: number }> {
    const { row, input: value } = await this.prepare(name, version, input, namespace);
    const source = await this.prepareCode(row.code);
    return {
      version: row.version,
      module: source.module,
      lineOffset: source.lineOffset,
      input: value,
    };
  }
}
