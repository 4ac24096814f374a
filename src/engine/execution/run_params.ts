/**
 * The `run` frame a pass sends its child: the prepared code, its input, the
 * connectors (unless the child was told them at spawn), the result bound,
 * and the run's language, program and workspace when it has them.
 *
 * @module
 */
import type { RunParams } from "../../sandbox/protocol.ts";
import type { PassOptions } from "./pass_options.ts";

/** The run frame of a pass. */
export function runParams(o: PassOptions): RunParams {
  const { child, registry, source, program, workspace } = o;
  return {
    module: source.module,
    lineOffset: source.lineOffset,
    input: o.input,
    // A child told its connectors at spawn (`prepare`) has its globals already.
    connectors: child.preparedFor === registry.guestKey() ? [] : registry.guestConnectors(),
    maxResultBytes: o.limits.maxResultBytes,
    ...(source.language ? { language: source.language } : {}),
    ...(program ? { program } : {}),
    ...(workspace ? { workspace: { dir: workspace.dir } } : {}),
  };
}
