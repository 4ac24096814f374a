/**
 * npm packages inside the sandbox: the allow-list, installing and bundling
 * on the host, and preparing code that imports them.
 *
 * @module
 */
export { type BundleStats, bundleStats, ESBUILD_VERSION } from "./bundle.ts";
export { type FoundImport, type ImportScan, scanImports } from "./imports.ts";
export { INSTALL_TIMEOUT_MS } from "./install.ts";
export { PackageSet, type PackageSetOptions, type PackageStats, packageStats } from "./prepare.ts";
export {
  checkPackages,
  describeAllowed,
  MAX_PACKAGES,
  type PackageImport,
  type PackageList,
  resolveSpecifier,
} from "./spec.ts";
