/**
 * Which execution host code runs on behalf of now, so an API called from it
 * (`saveSnippet()` without an `executionId`) can default to that execution.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The execution on whose behalf host code runs now: set while a request of its child is
 * answered and while its events are told, so a tool's `execute` (and whatever it awaits), every
 * listener told of its calls, its pause or its end, and the decision on a call that waited all
 * see it. `saveSnippet()` defaults to it.
 */
export const currentExecution: AsyncLocalStorage<string> = new AsyncLocalStorage<string>();
