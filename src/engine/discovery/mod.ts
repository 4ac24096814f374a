/**
 * Discovery, as the runtime offers it to a caller and to a script: search,
 * describe, declarations and type-check diagnostics, snippets by name,
 * handles, and the `codemode` platform requests a script makes.
 *
 * @module
 */
export { executeChecked, toDiagnostic } from "./checked.ts";
export {
  type DiscoveryApi,
  type InNamespace,
  type RunSnippetOptions,
  type SearchStatus,
} from "./api.ts";
export { codemodeRequests, PLATFORM_METHODS, type PlatformHost } from "./platform.ts";
