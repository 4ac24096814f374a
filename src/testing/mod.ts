/**
 * The connector author's test kit: a real runtime around the connector
 * under test, and assertions on runs, calls, outputs and declarations.
 *
 * @module
 */
export { assertCalls, type CallSource, callsTo, type ExpectedCall } from "./calls.ts";
export {
  checkConnector,
  checkOutput,
  type ConnectorProblem,
  type OutputCheck,
} from "./connector_check.ts";
export { checkDeclarations } from "./declarations.ts";
export { createTestKit, type RunOptions, TestKit, type TestKitOptions } from "./kit.ts";
export { expectCompleted, expectError, expectPaused } from "./outcome.ts";
