/**
 * The connector author's test kit. {@link createTestKit} starts a real
 * Cordon runtime (an in-memory store and real sandboxed Deno children)
 * around your connectors, so a `deno test` can run the code a model would
 * write and check what happened: how the run ended
 * ({@link expectCompleted}, {@link expectPaused}, {@link expectError}),
 * which tools it called with what ({@link assertCalls}, {@link callsTo}),
 * and how approvals continue it (`kit.approve`, `kit.reject`,
 * `kit.resolve`). It also checks the connector as a model meets it:
 * descriptions, schemas and the generated TypeScript declarations
 * (`kit.assertConnectorsValid()`), and sample outputs against a tool's
 * output schema (`kit.assertOutputMatches()`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineConnector } from "@cordon/runtime";
 * import {
 *   assertCalls,
 *   createTestKit,
 *   expectCompleted,
 *   expectPaused,
 * } from "@cordon/runtime/testing";
 *
 * const weather = defineConnector({
 *   name: "weather",
 *   description: "Forecasts and weather alerts",
 *   tools: {
 *     forecast: {
 *       description: "Tomorrow's high for a city, in °C",
 *       input: z.object({ city: z.string() }),
 *       output: z.object({ city: z.string(), highC: z.number() }),
 *       execute: ({ city }) => ({ city, highC: 7 }),
 *     },
 *     alert: {
 *       description: "Send a weather alert to subscribers",
 *       input: z.object({ message: z.string() }),
 *       output: z.string(),
 *       requiresApproval: true,
 *       execute: ({ message }) => `sent: ${message}`,
 *     },
 *   },
 * });
 *
 * await using kit = await createTestKit({ connectors: [weather] });
 * kit.assertConnectorsValid();
 * kit.assertOutputMatches("weather.forecast", { city: "Oslo", highC: 7 });
 *
 * const result = await kit.run('return (await weather.forecast({ city: "Oslo" })).highC');
 * assert.equal(expectCompleted(result), 7);
 * assertCalls(result, [{ tool: "weather.forecast", args: { city: "Oslo" } }]);
 *
 * const paused = expectPaused(await kit.run('return await weather.alert({ message: "Storm" })'));
 * assert.equal(paused.pending[0].tool, "alert");
 * assert.equal(expectCompleted(await kit.approve(paused)), "sent: Storm");
 * ```
 *
 * @module
 */
export {
  assertCalls,
  type CallSource,
  callsTo,
  checkConnector,
  checkDeclarations,
  checkOutput,
  type ConnectorProblem,
  createTestKit,
  expectCompleted,
  type ExpectedCall,
  expectError,
  expectPaused,
  type OutputCheck,
  type RunOptions,
  TestKit,
  type TestKitOptions,
} from "./src/testing/mod.ts";
