/**
 * The code executor: the code blocks of a model's answer, extracted and run
 * in order through the runtime, stopping at the first failure.
 *
 * @module
 */
export {
  type CodeBlock,
  type CodeRunner,
  executeCode,
  type ExecuteCodeRequest,
  type ExecuteCodeResult,
  extractCodeBlocks,
  type ExtractCodeBlocksOptions,
  SUPPORTED_LANGUAGES,
} from "./executor.ts";
