/**
 * The service's routes: one table drives both the server and its OpenAPI
 * document; executions, discovery and snippets, sessions and artifacts, and
 * the server-sent event stream of one execution.
 *
 * @module
 */
export { openApiDocument, type Route, route } from "./route.ts";
export type { ServiceDeps } from "./deps.ts";
export { executionRoutes } from "./executions.ts";
export { catalogueRoutes } from "./catalogue.ts";
export { sessionRoutes } from "./sessions.ts";
export { programRoutes } from "./programs.ts";
export { artifactRoutes } from "./artifacts.ts";
export { eventStream } from "./sse.ts";
export { activityRoutes } from "./activity.ts";
export { keyRoutes } from "./keys.ts";
