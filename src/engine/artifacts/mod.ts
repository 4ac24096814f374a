/**
 * Artifacts: versioned files in the runtime's database, by namespace and
 * name, with their references (`name@version`, `artifact://`) and media
 * types, and the artifacts part of the runtime's API; results too large to
 * return inline stored as artifacts, with their references and pages.
 *
 * @module
 */
export {
  ARTIFACT_NAME,
  ARTIFACT_SCHEME,
  type ArtifactRef,
  checkArtifactName,
  isArtifactName,
  MAX_ARTIFACT_NAME_CHARS,
  parseArtifactRef,
} from "./ref.ts";
export {
  type ArtifactContent,
  type ArtifactInfo,
  type ArtifactPage,
  type ArtifactsApi,
  artifactsApi,
  type ArtifactsOptions,
  DEFAULT_ARTIFACT_MAX_BYTES,
  type DeleteArtifactOptions,
  type ListArtifactsOptions,
  type SaveArtifactOptions,
} from "./api.ts";
export {
  DEFAULT_RESULT_PAGE_BYTES,
  MAX_RESULT_PAGE_BYTES,
  type ReadResultOptions,
  type ResultPage,
} from "./pages.ts";
export { type ResultReference, type ResultShape } from "./results.ts";
