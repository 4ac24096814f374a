/**
 * What every capability of the engine shares and nothing else owns: the
 * namespace a call acts in (the tenant), and page limits and cursors.
 *
 * @module
 */
export {
  checkNamespace,
  DEFAULT_NAMESPACE,
  type InNamespace,
  NAMESPACE_PATTERN,
} from "./namespace.ts";
export { MAX_PAGE } from "./paging.ts";
