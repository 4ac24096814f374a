/**
 * The service as a process: its configuration (file, then environment),
 * the Hono app, starting the server with its runtime and keys, and the
 * command-line entry points (`serve`, `keys`, `mcp`).
 *
 * @module
 */
export { createApp } from "./app.ts";
export { defineConfig, loadConfigFile, type ServiceConfig } from "./config.ts";
export { type Service, startService } from "./server.ts";
