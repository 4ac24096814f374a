/**
 * The service's HTTP edges: the status each error code answers with, JSON
 * and error responses, and the refusal of cross-site requests.
 *
 * @module
 */
export { errorResponse, fail, jsonResponse, statusOf, thrownResponse } from "./http.ts";
export { isTopLevelNavigation, refuseCrossSite } from "./cross_site.ts";
