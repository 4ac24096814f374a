/**
 * The type checker's thread: a warm {@link TypeChecker} answering one
 * request at a time, so checking runs beside executions instead of
 * blocking the host's event loop.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { type CheckRequest, TypeChecker } from "./check.ts";

const checker = new TypeChecker();

self.onmessage = (event: MessageEvent<{ id: number; request: CheckRequest }>) => {
  const { id, request } = event.data;
  try {
    self.postMessage({ id, result: checker.check(request) });
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
