/** What the workspace tests import, in one place. @module */
export * from "../../../mod.ts";
export { newMetadata as newMetadataForTest } from "../../../src/engine/workspaces/metadata.ts";
