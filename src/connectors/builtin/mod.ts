/**
 * Built-in connectors: `state` (durable key-value memory in libSQL) and `http` (host-side
 * requests to allowed hosts, with secrets the script never sees).
 *
 * @module
 */
export {
  DEFAULT_HTTP_MAX_REDIRECTS,
  DEFAULT_HTTP_MAX_RESPONSE_BYTES,
  DEFAULT_HTTP_TIMEOUT_MS,
  httpConnector,
  type HttpConnectorOptions,
  MAX_HTTP_URL_LENGTH,
} from "./http.ts";
export {
  DEFAULT_STATE_LIST_LIMIT,
  DEFAULT_STATE_MAX_KEY_LENGTH,
  DEFAULT_STATE_MAX_KEYS,
  DEFAULT_STATE_MAX_VALUE_BYTES,
  MAX_STATE_LIST_LIMIT,
  stateConnector,
  type StateConnectorOptions,
} from "./state.ts";
