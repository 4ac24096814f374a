/**
 * The parts of `@modelcontextprotocol/sdk` Cordon uses, with their types.
 *
 * Why this file: the SDK's wildcard export (`"./*": { "types":
 * "./dist/esm/*.d.ts" }`) sends `…/types.js` to a `types.js.d.ts` that does
 * not exist, so under Deno every deep import type-checks as `any`. Its
 * `./client` export is typed properly; the types here are derived from it,
 * and the few values taken from deep imports get their types here, in one
 * place, instead of `any` spreading through the connector.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client";
import { getDefaultEnvironment as sdkDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport as SdkHttpTransport,
  StreamableHTTPError as SdkHttpError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ReadBuffer as SdkReadBuffer,
  serializeMessage as sdkSerializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import {
  McpError as SdkMcpError,
  ToolListChangedNotificationSchema as SdkToolListChanged,
} from "@modelcontextprotocol/sdk/types.js";

export { Client };

/** A transport the client can connect over. */
export type Transport = Parameters<Client["connect"]>[0];

/** One JSON-RPC message. */
export type JSONRPCMessage = Parameters<Transport["send"]>[0];

/** A server's (or client's) name and version. */
export type Implementation = NonNullable<ReturnType<Client["getServerVersion"]>>;

/** What a server declared it offers at `initialize`. */
export type ServerCapabilities = NonNullable<ReturnType<Client["getServerCapabilities"]>>;

/** A tool as `tools/list` describes it. */
export type McpToolDefinition = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

/** The result of `tools/call` (the current shape, not the 2024 compatibility one). */
export type CallToolResult = Extract<Awaited<ReturnType<Client["callTool"]>>, { content: unknown }>;

/** One block of a tool result's `content`. */
export type ContentBlock = CallToolResult["content"][number];

/** A JSON-RPC error as the SDK raises it (`message` is "MCP error <code>: <text>"). */
export interface McpErrorLike extends Error {
  code: number;
  data?: unknown;
}

/** The SDK's error class, for `instanceof`. */
export const McpError: new (code: number, message: string, data?: unknown) => McpErrorLike =
  SdkMcpError;

/** The notification schema for `notifications/tools/list_changed`. */
export const ToolListChangedNotificationSchema: Parameters<Client["setNotificationHandler"]>[0] =
  SdkToolListChanged;

/** The SDK's Streamable HTTP client transport, as far as Cordon uses it. */
export interface HttpTransport extends Transport {
  /** Sends DELETE for the session (servers free it). */
  terminateSession(): Promise<void>;
  readonly protocolVersion?: string;
}

/** Makes a Streamable HTTP transport. */
export const StreamableHTTPClientTransport: new (
  url: URL,
  options?: { requestInit?: RequestInit },
) => HttpTransport = SdkHttpTransport;

/** An HTTP status the Streamable HTTP transport got instead of an answer (`code` is the status). */
export interface StreamableHTTPError extends Error {
  code: number;
}

/** The SDK's error class for HTTP statuses, for `instanceof`. */
export const StreamableHTTPError: new (code: number, message: string) => StreamableHTTPError =
  SdkHttpError;

/** The SDK's stdio line framing: bytes in, JSON-RPC messages out. */
export interface ReadBuffer {
  append(chunk: Uint8Array): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/** Makes a stdio read buffer (the SDK's default size limit, 10 MiB a line). */
export const ReadBuffer: new () => ReadBuffer = SdkReadBuffer;

/** One message as a line of JSON with its newline. */
export const serializeMessage: (message: JSONRPCMessage) => string = sdkSerializeMessage;

/** The few variables a stdio server inherits from the host (`HOME`, `PATH`, `USER`, …). */
export const getDefaultEnvironment: () => Record<string, string> = sdkDefaultEnvironment;
