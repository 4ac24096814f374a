// The HTTP API as the console uses it: the key kept per tab, JSON in and out, typed errors, and
// server-sent events read with fetch() (EventSource cannot send the Authorization header).

const KEY = "cordon.key";

/** An answer the API refused, with its { code, message, details }. */
export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
    this.details = error?.details;
  }
}

let askForKey = () => {};

/** Sets what happens when the server answers 401 (the key form opens). */
export function onUnauthorized(fn) {
  askForKey = fn;
}

/** The key this tab uses, if any. */
export function getKey() {
  return sessionStorage.getItem(KEY) ?? "";
}

/** Keeps `key` for this tab (empty: forget it). */
export function setKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

function headers(extra = {}) {
  const out = { ...extra };
  const key = getKey();
  if (key) out.authorization = `Bearer ${key}`;
  return out;
}

async function failed(res) {
  let error;
  try {
    error = (await res.json()).error;
  } catch {
    // Not JSON: the status says it.
  }
  const err = new ApiError(res.status, error);
  if (res.status === 401) askForKey(err);
  return err;
}

/** Calls the API; resolves with the JSON answer or throws an ApiError. */
export async function api(method, path, body) {
  const init = { method, headers: headers({ accept: "application/json" }) };
  if (method !== "GET" && method !== "DELETE") {
    // Every POST says JSON, also without a body: the server refuses it otherwise.
    init.headers["content-type"] = "application/json";
    init.body = body === undefined ? "" : JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (!res.ok) throw await failed(res);
  return res.status === 204 ? undefined : await res.json();
}

/** Downloads a file the API serves, with the key, as a file the browser saves. */
export async function download(path, filename) {
  const res = await fetch(path, { headers: headers() });
  if (!res.ok) throw await failed(res);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Parses server-sent events from a fetch() body; calls onEvent({ id, event, data }). */
async function readEvents(res, onEvent, signal) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const stop = () => reader.cancel().catch(() => {});
  signal.addEventListener("abort", stop);
  let buffer = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e = { event: "message", data: [] };
        for (const line of block.split("\n")) {
          if (line === "" || line.startsWith(":")) continue;
          const i = line.indexOf(":");
          const field = i === -1 ? line : line.slice(0, i);
          const v = i === -1 ? "" : line.slice(i + 1).replace(/^ /, "");
          if (field === "id") e.id = v;
          else if (field === "event") e.event = v;
          else if (field === "data") e.data.push(v);
        }
        if (e.data.length === 0) continue;
        let data;
        try {
          data = JSON.parse(e.data.join("\n"));
        } catch {
          data = e.data.join("\n");
        }
        onEvent({ id: e.id, event: e.event, data });
      }
    }
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/**
 * Follows an event stream until `signal` aborts: reconnects after a drop (with Last-Event-ID,
 * waiting longer each time), and stops for good when the server ends a stream that `ends` (an
 * execution's events end at its end) or refuses it. `onState` hears "live", "retrying" and
 * "closed".
 */
export async function follow(path, { onEvent, onState = () => {}, signal, ends = false }) {
  let last;
  let delay = 500;
  while (!signal.aborted) {
    try {
      const res = await fetch(path, {
        headers: headers({
          accept: "text/event-stream",
          ...(last ? { "last-event-id": last } : {}),
        }),
        signal,
      });
      if (!res.ok) {
        const err = await failed(res);
        onState("closed", err);
        return err;
      }
      onState("live");
      delay = 500;
      await readEvents(res, (e) => {
        if (e.id) last = e.id;
        onEvent(e);
      }, signal);
      if (ends) {
        onState("closed");
        return;
      }
    } catch (err) {
      if (signal.aborted) break;
      onState("retrying", err);
    }
    if (signal.aborted) break;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 10_000);
  }
  onState("closed");
}
