/**
 * The code executor: the code blocks of a model's answer, extracted and run
 * in order through the runtime, stopping at the first failure.
 *
 * @module
 */
export {
  type CodeRunner,
  executeCode,
  type ExecuteCodeRequest,
  type ExecuteCodeResult,
  SUPPORTED_LANGUAGES,
} from "./executor.ts";
export { type CodeBlock, extractCodeBlocks, type ExtractCodeBlocksOptions } from "./code_blocks.ts";
export {
  type BlockSpec,
  buildBlockSpec,
  type CodeBlockDelimiter,
  DEFAULT_CODE_BLOCK_DELIMITER,
  extractCodeBlock,
} from "./delimited.ts";
