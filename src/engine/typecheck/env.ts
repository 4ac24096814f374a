/**
 * The world the type checker puts the model's code in: compiler options,
 * the ES lib, and the web globals a sandboxed script really has. The lib
 * and globals files are parsed once per process and the parsed trees are
 * shared by every checker (their options never change, so neither do the
 * trees).
 *
 * Lib set: Deno 2.9 runs V8 15, which has everything in `esnext`, so that
 * is the ES lib. No DOM: it is 1.9 MB and declares much a sandbox does not
 * have; the globals below are hand-written and small on purpose: what Deno
 * gives a child with permissions denied, with `console` as the guest
 * captures it. `Deno` itself is left out: its calls are denied there.
 *
 * @module
 */
import ts from "typescript";
import { basename, dirname, join } from "node:path";

/** The ES lib, as a `lib` file name (see the module docs for why `esnext`). */
const ES_LIB = "lib.esnext.d.ts";

/** Compiler options of every check: strict, nothing emitted, nothing resolved from disk. */
export const CHECK_OPTIONS: ts.CompilerOptions = {
  strict: true,
  // Scripts write `catch (e) { e.message }`; typing `e` as `unknown` would flag them for nothing.
  useUnknownInCatchVariables: false,
  noEmit: true,
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  // Every non-declaration file is a module: top-level await works, names stay local.
  moduleDetection: ts.ModuleDetectionKind.Force,
  isolatedModules: true,
  skipLibCheck: true,
  noUnusedLocals: false,
  noUnusedParameters: false,
  allowUnreachableCode: true,
  // `/// <reference path>` in declarations is not followed (`lib` references still are).
  noResolve: true,
  types: [],
  lib: [ES_LIB],
};

/** Virtual directory of the checker's own files. */
export const CHECK_DIR = "/cordon/";
/** The sandbox globals' file name. */
export const GLOBALS_FILE = `${CHECK_DIR}globals.d.ts`;
/** Where the tools' declarations live in the checked program. */
export const DECLARATIONS_FILE = `${CHECK_DIR}tools.d.ts`;

/** What a lib file's name looks like (TypeScript also asks after `package.json` there). */
const LIB_FILE_NAME = /^lib\.[\w.]+\.d\.ts$/;
let libDirectory: string | undefined;
const sharedFiles = new Map<string, ts.SourceFile>();
let libParses = 0;

/** The typescript package's `lib/`, next to the compiler that was loaded (wherever npm put it). */
export function defaultLibPath(): string {
  libDirectory ??= dirname(ts.getDefaultLibFilePath(CHECK_OPTIONS));
  return join(libDirectory, ES_LIB);
}

/** Parses a file the way every shared or declarations file is parsed. */
export function parseFile(fileName: string, text: string): ts.SourceFile {
  const options = {
    languageVersion: ts.ScriptTarget.ESNext,
    jsDocParsingMode: ts.JSDocParsingMode.ParseForTypeErrors,
  };
  return ts.createSourceFile(fileName, text, options, false);
}

/**
 * A lib file or the globals file, parsed on first use and kept for the
 * process; `undefined` for any other name. Throws if a lib file cannot be
 * read (checking without the ES lib would report nonsense).
 */
export function sharedFile(fileName: string): ts.SourceFile | undefined {
  const hit = sharedFiles.get(fileName);
  if (hit) return hit;
  let file: ts.SourceFile;
  if (fileName === GLOBALS_FILE) file = parseFile(fileName, SANDBOX_GLOBALS);
  else if (dirname(fileName) === libDirectory && LIB_FILE_NAME.test(basename(fileName))) {
    file = parseFile(fileName, Deno.readTextFileSync(fileName));
    libParses++;
  } else return undefined;
  sharedFiles.set(fileName, file);
  return file;
}

/** Lib files parsed in this process (for tests: it must not grow with checkers or checks). */
export function libParseCount(): number {
  return libParses;
}

/** Ambient `.d.ts` text of the web globals, checked with the ES lib and the tools' declarations. */
const SANDBOX_GLOBALS = `
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  trace(...data: unknown[]): void;
}
declare var console: Console;
declare var performance: { now(): number; readonly timeOrigin: number };

type TimerHandler = (...args: any[]) => void;
declare function setTimeout(handler: TimerHandler, timeout?: number, ...args: any[]): number;
declare function setInterval(handler: TimerHandler, timeout?: number, ...args: any[]): number;
declare function clearTimeout(id?: number): void;
declare function clearInterval(id?: number): void;
declare function queueMicrotask(callback: () => void): void;
declare function structuredClone<T = any>(value: T, options?: { transfer?: any[] }): T;
declare function atob(data: string): string;
declare function btoa(data: string): string;

declare class TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array<ArrayBuffer>;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}

declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | Iterable<[string, string]>);
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  entries(): IterableIterator<[string, string]>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string | URL, base?: string | URL): boolean;
  static parse(url: string | URL, base?: string | URL): URL | null;
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
}

declare var crypto: {
  randomUUID(): \`\${string}-\${string}-\${string}-\${string}-\${string}\`;
  getRandomValues<T extends ArrayBufferView>(array: T): T;
  readonly subtle: {
    digest(
      algorithm: string | { name: string },
      data: ArrayBuffer | ArrayBufferView,
    ): Promise<ArrayBuffer>;
    [method: string]: any;
  };
};

declare class AbortSignal {
  readonly aborted: boolean;
  readonly reason: any;
  throwIfAborted(): void;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
  static abort(reason?: any): AbortSignal;
  static timeout(milliseconds: number): AbortSignal;
  static any(signals: AbortSignal[]): AbortSignal;
}
declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: any): void;
}

type HeadersInit = Headers | Record<string, string> | Iterable<[string, string]>;
declare class Headers {
  constructor(init?: HeadersInit);
  append(name: string, value: string): void;
  delete(name: string): void;
  get(name: string): string | null;
  getSetCookie(): string[];
  has(name: string): boolean;
  set(name: string, value: string): void;
  forEach(callback: (value: string, key: string, parent: Headers) => void): void;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  entries(): IterableIterator<[string, string]>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}
type BodyInit = string | ArrayBuffer | ArrayBufferView | URLSearchParams;
interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
  signal?: AbortSignal | null;
  redirect?: "follow" | "error" | "manual";
}
interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}
declare class Response {
  constructor(body?: BodyInit | null, init?: ResponseInit);
  static json(data: unknown, init?: ResponseInit): Response;
  static error(): Response;
  static redirect(url: string | URL, status?: number): Response;
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected: boolean;
  readonly bodyUsed: boolean;
  readonly body: AsyncIterable<Uint8Array<ArrayBuffer>> | null;
  json(): Promise<any>;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
  clone(): Response;
}
declare function fetch(input: string | URL, init?: RequestInit): Promise<Response>;
`;

/** The parts of a compiler host every check shares: files live at {@link CHECK_DIR} in memory; nothing is read from or written to disk. */
export const HOST_BASE: Pick<
  ts.CompilerHost,
  | "getDefaultLibFileName"
  | "getDefaultLibLocation"
  | "writeFile"
  | "getCurrentDirectory"
  | "getCanonicalFileName"
  | "useCaseSensitiveFileNames"
  | "getNewLine"
  | "readFile"
> = {
  getDefaultLibFileName: defaultLibPath,
  getDefaultLibLocation: () => dirname(defaultLibPath()),
  writeFile: () => {},
  getCurrentDirectory: () => CHECK_DIR,
  getCanonicalFileName: (fileName) => fileName,
  useCaseSensitiveFileNames: () => true,
  getNewLine: () => "\n",
  readFile: () => undefined,
};
