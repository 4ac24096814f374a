/**
 * The operator console: a page at `/` with its scripts and styles, served
 * as plain files with strict security headers; everything it shows goes
 * through the HTTP API with the operator's key.
 *
 * @module
 */
export {
  CONSOLE_CSP,
  CONSOLE_FILES,
  CONSOLE_HEADERS,
  CONSOLE_PAGE,
  CONSOLE_PREFIX,
  ConsoleAssets,
} from "./assets.ts";
