/**
 * The allow-list of npm packages a script may import: validating it, and
 * reading an import specifier against it. Pure functions, no I/O.
 *
 * @module
 */
import { CordonError, type SourceLocation } from "../../errors.ts";

/** Allowed packages: npm name to one exact version. */
export type PackageList = Readonly<Record<string, string>>;

/** The most packages one runtime may allow (each costs an install and a bundle on the host). */
export const MAX_PACKAGES = 64;

// npm's own rules: lowercase, URL-safe, an optional @scope/, at most 214 characters.
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const MAX_NAME_CHARS = 214;
// An exact semver version: no ranges, tags or URLs, so a bundle is the same everywhere.
const EXACT_VERSION =
  /^(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
// What an import may never name: a path, or a URL of any scheme (https:, data:, npm:, jsr: …).
// Node built-ins (`node:…`) are let through before this check.
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Checks an allow-list and returns a frozen copy sorted by name, or throws
 * `invalid_request` naming the bad entry.
 *
 * @example
 * ```ts
 * import { checkPackages } from "./spec.ts";
 * const list = checkPackages({ ms: "2.1.3" });
 * console.assert(list.ms === "2.1.3");
 * ```
 */
export function checkPackages(packages: unknown): PackageList {
  if (packages === undefined) return Object.freeze({});
  if (packages === null || typeof packages !== "object" || Array.isArray(packages)) {
    throw new CordonError("invalid_request", "packages must map npm names to exact versions");
  }
  const entries = Object.entries(packages as Record<string, unknown>);
  if (entries.length > MAX_PACKAGES) {
    throw new CordonError(
      "invalid_request",
      `packages allows at most ${MAX_PACKAGES} packages, not ${entries.length}`,
    );
  }
  const list: Record<string, string> = {};
  for (const [name, version] of entries.sort(([a], [b]) => a < b ? -1 : 1)) {
    if (name.length > MAX_NAME_CHARS || !PACKAGE_NAME.test(name)) {
      throw new CordonError(
        "invalid_request",
        `Cannot allow package "${name}": not a valid npm package name`,
      );
    }
    if (typeof version !== "string" || !EXACT_VERSION.test(version)) {
      throw new CordonError(
        "invalid_request",
        `Cannot allow package "${name}": version ${
          JSON.stringify(version)
        } is not an exact version like "1.2.3" (ranges and tags are not accepted)`,
      );
    }
    list[name] = version;
  }
  return Object.freeze(list);
}

/** An import of an allowed package: its name, version and the subpath it asks for. */
export interface PackageImport {
  name: string;
  version: string;
  /** `.` for the package itself, `./addDays` for `date-fns/addDays`. */
  subpath: string;
}

/** The allow-list in words, for messages. */
export function describeAllowed(list: PackageList): string {
  const names = Object.entries(list).map(([n, v]) => `${n}@${v}`);
  return names.length === 0
    ? "No packages are allowed in this runtime (createRuntime({ packages }))"
    : `Allowed packages: ${names.join(", ")}`;
}

/**
 * Reads `specifier` against the allow-list: the package import it names, or
 * an `import_not_allowed` error saying why not.
 */
export function resolveSpecifier(
  specifier: string,
  list: PackageList,
  location?: SourceLocation,
): PackageImport {
  const refuse = (why: string): never => {
    throw new CordonError(
      "import_not_allowed",
      `Cannot import "${specifier}": ${why}. ${describeAllowed(list)}`,
      { details: { specifier, allowed: { ...list } }, location },
    );
  };
  if (/^\.{0,2}\//.test(specifier) || specifier === "." || specifier === "..") {
    refuse("the sandbox has no files to import; only allowed packages can be imported");
  }
  if (URL_LIKE.test(specifier)) {
    refuse("URLs and schemes (https:, data:, npm:, jsr:, file:) cannot be imported in the sandbox");
  }
  const parts = specifier.split("/");
  const nameParts = specifier.startsWith("@") ? 2 : 1;
  const name = parts.slice(0, nameParts).join("/");
  const rest = parts.slice(nameParts);
  const version = Object.hasOwn(list, name) ? list[name] : undefined;
  if (version === undefined) refuse(`"${name}" is not an allowed package`);
  if (rest.some((p) => p === "" || p === "." || p === "..")) refuse("the subpath is not valid");
  return { name, version: version!, subpath: rest.length === 0 ? "." : `./${rest.join("/")}` };
}
