/**
 * Languages besides TypeScript that a block can be written in: what the
 * host prepares for them. bash: the just-bash bundle a bash child reads.
 *
 * @module
 */
export { BASH_BUNDLE_DIR, bashBundle, bashFiles } from "./bash_bundle.ts";
