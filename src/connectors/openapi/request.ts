/**
 * Turning validated arguments into an HTTP request: the URL (base, path
 * parameters, query), headers and body, with the host's credentials added
 * last so a script can neither see nor override them.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { isRecord } from "../typegen/refs.ts";
import { BODY_PROPERTY, type InputField } from "./input.ts";
import type { OpenApiBody } from "./operations.ts";
import {
  serializeBody,
  serializeHeaderValue,
  serializePathValue,
  serializeQueryValue,
} from "./serialize.ts";

/** Credentials the host adds to every request; the script never sees them. */
export interface HostAuth {
  /** Headers set on every request (`Authorization`, API keys), over any the arguments set. */
  headers?: Record<string, string>;
  /** Query parameters added to every request; an argument of the same name is dropped. */
  query?: Record<string, string>;
}

/** What one tool needs to build its requests. */
export interface RequestPlan {
  /** Upper case. */
  method: string;
  /** The path template, `/pets/{petId}`. */
  path: string;
  baseUrl: string;
  fields: readonly InputField[];
  body?: OpenApiBody;
}

/** A request ready to send. */
export interface BuiltRequest {
  url: URL;
  /** The path as sent, without query: safe to show (no credentials). */
  shownPath: string;
  headers: Headers;
  body?: string;
}

/** The `Accept` header sent unless the host sets one: JSON first, anything else accepted. */
const ACCEPT = "application/json, */*;q=0.5";

/**
 * Builds the request for `args`. Throws `invalid_input` for a missing path
 * parameter or a header value HTTP cannot carry.
 */
export function buildRequest(plan: RequestPlan, args: unknown, auth: HostAuth = {}): BuiltRequest {
  const values = isRecord(args) ? args : {};
  const query: [string, string][] = [];
  const headers = new Headers({ accept: ACCEPT });
  const cookies: string[] = [];
  let path = plan.path;
  for (const { property, parameter } of plan.fields) {
    const value = values[property];
    if (parameter.in === "path") {
      if (value === undefined) {
        throw new CordonError("invalid_input", `Missing path parameter "${property}"`);
      }
      path = path.replaceAll(`{${parameter.name}}`, serializePathValue(parameter, value));
      continue;
    }
    if (value === undefined || value === null) continue;
    if (parameter.in === "query") query.push(...serializeQueryValue(parameter, value));
    else if (parameter.in === "cookie") {
      cookies.push(
        `${parameter.name}=${encodeURIComponent(serializeHeaderValue(parameter, value))}`,
      );
    } else setHeader(headers, parameter.name, serializeHeaderValue(parameter, value));
  }
  if (cookies.length > 0) setHeader(headers, "cookie", cookies.join("; "));
  let body: string | undefined;
  if (plan.body && values[BODY_PROPERTY] !== undefined) {
    body = serializeBody(plan.body.kind, values[BODY_PROPERTY]);
    headers.set("content-type", plan.body.mediaType);
  }
  for (const [name, value] of Object.entries(auth.headers ?? {})) headers.set(name, value);
  const hostQuery = Object.entries(auth.query ?? {});
  const kept = query.filter(([name]) => !hostQuery.some(([hostName]) => hostName === name));
  const url = new URL(plan.baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  const shownPath = url.pathname;
  const pairs = [...kept, ...hostQuery].map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
  );
  if (pairs.length > 0) url.search = [url.search.slice(1), ...pairs].filter(Boolean).join("&");
  return body === undefined ? { url, shownPath, headers } : { url, shownPath, headers, body };
}

function setHeader(headers: Headers, name: string, value: string): void {
  try {
    headers.set(name, value);
  } catch {
    throw new CordonError(
      "invalid_input",
      `Header "${name}" cannot carry ${JSON.stringify(value.slice(0, 40))}: use ASCII text`,
    );
  }
}
