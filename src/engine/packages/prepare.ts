/**
 * The preparation step for code that may import allowed npm packages. Code
 * without `import` or `require` goes straight to {@link prepareSource}: no
 * scan, no esbuild. Otherwise the imports are read from sucrase's tokens,
 * checked against the allow-list (`import_not_allowed` before anything
 * runs), and each package entry is bundled once on the host.
 *
 * The user's code is not bundled: static import declarations are lifted
 * onto the wrapper's line (blanked in place, so every line and column of the
 * user's code stays where it was and stack traces map back with the usual
 * one-line offset), and each specifier becomes the package bundle as a
 * `data:application/javascript` URL. The child imports it like any module,
 * with no file or network access; frames inside a package are not taken for
 * the user's (the guest only reads `data:text/javascript` frames).
 *
 * @module
 */
import { join } from "node:path";
import { CordonError } from "../../errors.ts";
import {
  MAX_CODE_CHARS,
  type PreparedSource,
  prepareLifted,
  prepareSource,
} from "../source/source.ts";
import { bundlePackage, type BundleStats, bundleStats } from "./bundle.ts";
import { type FoundImport, MAYBE_IMPORTS, scanImports } from "./imports.ts";
import { installPackage } from "./install.ts";
import {
  checkPackages,
  describeAllowed,
  type PackageImport,
  type PackageList,
  resolveSpecifier,
} from "./spec.ts";

/** Prepared templates kept per package set (code with imports is rarer; each entry is small). */
const TEMPLATE_ENTRIES = 256;

/** Options for {@link PackageSet}. */
export interface PackageSetOptions {
  /** The allow-list, npm name to exact version (checked: `invalid_request` if malformed). */
  packages?: Record<string, string>;
  /** Where installs and bundles live (Cordon's temp dir, `…/cordon/packages`). */
  root: string;
  /** The Deno binary that installs packages. */
  denoPath: string;
  /** Cordon's DENO_DIR (its npm cache). */
  denoDir: string;
}

/** Counters of the package path in this process. */
export interface PackageStats extends BundleStats {
  /** Codes scanned for imports (code without `import`/`require` is never scanned). */
  scans: number;
  /** Executions prepared with at least one package. */
  prepared: number;
}

const counters = { scans: 0, prepared: 0 };

/** A copy of this process's package counters. */
export function packageStats(): PackageStats {
  return { ...bundleStats(), ...counters };
}

/** The version marker of a Node built-in (`node:…`), imported as it is. */
const BUILTIN = "builtin";

interface Template {
  source: PreparedSource;
  /** The placeholder prefix of this template's specifiers. */
  nonce: string;
  /** The package entries, in placeholder order. */
  entries: PackageImport[];
}

function entryId(p: PackageImport): string {
  return `${p.name}@${p.version}${p.subpath === "." ? "" : p.subpath.slice(1)}`;
}

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** The allowed packages of one runtime, and the step that prepares code importing them. */
export class PackageSet {
  /** The allow-list, sorted and frozen. */
  readonly allowed: PackageList;
  readonly #options: PackageSetOptions;
  readonly #templates = new Map<string, Template>();
  readonly #urls = new Map<string, Promise<string>>();

  /** Checks the allow-list; installs nothing until a script imports a package. */
  constructor(options: PackageSetOptions) {
    this.allowed = checkPackages(options.packages);
    this.#options = options;
  }

  /**
   * Prepares `code` for the guest, like {@link prepareSource}, with its
   * package imports resolved. Throws `import_not_allowed`, `syntax_error`,
   * `package_unavailable` or `invalid_request` as a {@link CordonError}.
   */
  prepare(code: string): PreparedSource | Promise<PreparedSource> {
    if (typeof code !== "string" || code.length > MAX_CODE_CHARS || !MAYBE_IMPORTS.test(code)) {
      return prepareSource(code);
    }
    return this.#prepareImports(code);
  }

  /**
   * Installs and bundles every allowed package's main entry ahead of the
   * first script (a cold install is seconds). Rejects with the first failure.
   */
  async warm(): Promise<void> {
    await Promise.all(
      Object.entries(this.allowed).map(([name, version]) =>
        this.#url({ name, version, subpath: "." })
      ),
    );
  }

  async #prepareImports(code: string): Promise<PreparedSource> {
    let template = this.#templates.get(code);
    if (!template) {
      template = this.#template(code);
      if (!template) return prepareSource(code);
      if (this.#templates.size >= TEMPLATE_ENTRIES) {
        this.#templates.delete(this.#templates.keys().next().value!);
      }
      this.#templates.set(code, template);
    }
    const urls = await Promise.all(template.entries.map((e) => this.#url(e)));
    counters.prepared++;
    const pattern = new RegExp(`"${template.nonce}(\\d+)"`, "g");
    const module = template.source.module.replace(
      pattern,
      (_, k) => JSON.stringify(urls[Number(k)]),
    );
    return { ...template.source, module };
  }

  /** Scans, checks and transpiles `code`; undefined when it imports nothing after all. */
  #template(code: string): Template | undefined {
    counters.scans++;
    const scan = scanImports(code);
    if (!scan || scan.imports.length === 0) return undefined;
    const entries: PackageImport[] = [];
    const index = new Map<string, number>();
    const slot = (found: FoundImport): number => {
      if (found.kind === "require") {
        throw new CordonError(
          "import_not_allowed",
          `Cannot require("${found.specifier}"): require() does not exist in the sandbox; use ` +
            `import x from "${found.specifier}". ${describeAllowed(this.allowed)}`,
          { details: { specifier: found.specifier }, location: found.location },
        );
      }
      // Node built-ins stay imports: the child's permissions decide what they may do.
      const entry = found.specifier.startsWith("node:")
        ? { name: found.specifier, version: BUILTIN, subpath: "." }
        : resolveSpecifier(found.specifier, this.allowed, found.location);
      const id = entryId(entry);
      if (!index.has(id)) {
        index.set(id, entries.length);
        entries.push(entry);
      }
      return index.get(id)!;
    };
    const slots = scan.imports.map(slot);
    const nonce = `cordon-package-${crypto.randomUUID()}:`;
    const placeholder = (k: number) => `"${nonce}${k}"`;
    let body = code;
    const lifted: string[] = [];
    const dynamic = new Set<number>();
    // From the end, so earlier offsets stay valid.
    const order = scan.imports.map((f, i) => ({ f, k: slots[i] })).sort((a, b) =>
      b.f.start - a.f.start
    );
    for (const { f, k } of order) {
      if (f.kind === "static" && f.statement) {
        const { start, end, text } = f.statement;
        body = body.slice(0, start) + body.slice(start, end).replace(/[^\n]/g, " ") +
          body.slice(end);
        lifted.unshift(text.replace("\0", placeholder(k)));
      } else if (f.kind === "dynamic") {
        body = body.slice(0, f.start) + `__cordonPackage${k}` + body.slice(f.end);
        dynamic.add(k);
      } else {
        body = body.slice(0, f.start) + placeholder(k) + body.slice(f.end);
      }
    }
    const consts = [...dynamic].map((k) => `const __cordonPackage${k} = ${placeholder(k)};`);
    const prefix = [...lifted.map((s) => s.endsWith(";") ? s : `${s};`), ...consts].join(" ") +
      " ";
    return { source: prepareLifted(body, prefix, scan.isModule), nonce, entries };
  }

  /** The bundle of one package entry as a `data:` URL, made once per runtime. */
  #url(entry: PackageImport): Promise<string> {
    if (entry.version === BUILTIN) return Promise.resolve(entry.name);
    const id = entryId(entry);
    let url = this.#urls.get(id);
    if (!url) {
      url = (async () => {
        const { root, denoPath, denoDir } = this.#options;
        const pkgDir = await installPackage(entry.name, entry.version, {
          root: join(root, "installs"),
          denoPath,
          denoDir,
        });
        const code = await bundlePackage(id, pkgDir, entry.subpath, join(root, "bundles"));
        return `data:application/javascript;base64,${toBase64(code)}`;
      })();
      this.#urls.set(id, url);
      url.catch(() => this.#urls.delete(id));
    }
    return url;
  }
}
