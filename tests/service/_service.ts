/**
 * Starts a real service for a test: the fixture config, a temp data
 * directory, a free port on 127.0.0.1. Also a small server-sent events
 * reader over fetch.
 */
import { fileURLToPath } from "node:url";
import { loadConfigFile, type ServiceConfig } from "../../src/service/server/config.ts";
import { type Service, startService } from "../../src/service/server/server.ts";

export const FIXTURE_CONFIG = fileURLToPath(
  new URL("../fixtures/service/cordon.config.ts", import.meta.url),
);

export interface TestService extends AsyncDisposable {
  service: Service;
  dir: string;
  /** fetch against the service with JSON in and out. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    // deno-lint-ignore no-explicit-any -- tests read JSON answers by path; assertions check them
  ): Promise<{ status: number; json: any; headers: Headers }>;
}

export async function openService(
  extra: Partial<ServiceConfig> = {},
  dir?: string,
): Promise<TestService> {
  const dataDir = dir ?? await Deno.makeTempDir({ prefix: "cordon-service-" });
  const config = {
    ...(await loadConfigFile(FIXTURE_CONFIG)),
    host: "127.0.0.1",
    port: 0,
    dataDir,
    ...extra,
  };
  const service = await startService(config, { shutdownGraceMs: 5_000 });
  return {
    service,
    dir: dataDir,
    async call(method, path, body, headers = {}) {
      const res = await fetch(`${service.url}${path}`, {
        method,
        // A POST always says JSON, also without a body (the service refuses it otherwise).
        headers: body === undefined && method !== "POST"
          ? headers
          : { "content-type": "application/json", ...headers },
        body: body === undefined
          ? undefined
          : typeof body === "string"
          ? body
          : JSON.stringify(body),
      });
      const text = await res.text();
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch { /* not JSON */ }
      return { status: res.status, json, headers: res.headers };
    },
    async [Symbol.asyncDispose]() {
      await service.close();
      if (!dir) await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event: string;
  // deno-lint-ignore no-explicit-any -- event data is JSON the tests check field by field
  data: any;
}

/**
 * Reads events from `url` until `until` says stop (or the stream ends); then cancels the
 * stream.
 */
export async function readEvents(
  url: string,
  until: (e: SseEvent, all: SseEvent[]) => boolean,
  headers: Record<string, string> = {},
): Promise<{ status: number; events: SseEvent[]; ended: boolean }> {
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers } });
  const events: SseEvent[] = [];
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    return { status: res.status, events, ended: true };
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return { status: res.status, events, ended: true };
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e: SseEvent = { event: "message", data: undefined };
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const i = line.indexOf(":");
          const field = i === -1 ? line : line.slice(0, i);
          const v = i === -1 ? "" : line.slice(i + 1).replace(/^ /, "");
          if (field === "id") e.id = v;
          else if (field === "event") e.event = v;
          else if (field === "data") data.push(v);
        }
        if (data.length === 0) continue;
        e.data = JSON.parse(data.join("\n"));
        events.push(e);
        if (until(e, events)) return { status: res.status, events, ended: false };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
