// The console's entry: hash routes, the key form (shown when the API answers 401), the live
// activity stream every view listens to, and the pending count in the navigation.
import { api, follow, getKey, onUnauthorized, setKey } from "./api.js";
import { debounce, errorBox, fill, h } from "./dom.js";
import { executionsView } from "./executions.js";
import { executionView } from "./execution.js";
import { pendingView } from "./pending.js";
import { snippetsView, snippetView } from "./snippets.js";
import { connectorsView, connectorView } from "./connectors.js";
import { artifactsView, artifactView, keysView, sessionsView } from "./admin.js";

const ROUTES = [
  [/^executions\/([^/]+)$/, executionView, "executions"],
  [/^executions$/, executionsView, "executions"],
  [/^pending$/, pendingView, "pending"],
  [/^snippets\/([^/]+)$/, snippetView, "snippets"],
  [/^snippets$/, snippetsView, "snippets"],
  [/^artifacts\/(.+)$/, artifactView, "artifacts"],
  [/^artifacts$/, artifactsView, "artifacts"],
  [/^sessions$/, sessionsView, "sessions"],
  [/^connectors\/([^/]+)$/, connectorView, "connectors"],
  [/^connectors$/, connectorsView, "connectors"],
  [/^keys$/, keysView, "keys"],
];

/** Every execution state change, as DOM events ("change", "sync") views listen to. */
const activity = new EventTarget();

const root = document.getElementById("view");
let current; // { controller } of the view on screen

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "") || "executions";
  const [path, query = ""] = raw.split("?");
  return { path, query: new URLSearchParams(query) };
}

function render() {
  current?.controller.abort();
  const controller = new AbortController();
  current = { controller };
  const { path, query } = parseHash();
  const found = ROUTES.find(([re]) => re.test(path));
  for (const a of document.querySelectorAll("#nav a")) {
    a.classList.toggle("on", a.dataset.view === (found?.[2] ?? ""));
  }
  if (!found) return fill(root, errorBox({ code: "not_found", message: `No view ${path}` }));
  const [re, view] = found;
  const params = re.exec(path).slice(1).map(decodeURIComponent);
  fill(root);
  const ctx = { signal: controller.signal, query, activity, rerender: render };
  Promise.resolve(view(root, params, ctx)).catch((err) => {
    if (!controller.signal.aborted) root.append(errorBox(err));
  });
}

// The key: asked for once, only when the server wants one, kept for this tab.
const form = document.getElementById("key-form");
const keyInput = document.getElementById("key-input");
const keyState = document.getElementById("key-state");

function showKeyState() {
  fill(
    keyState,
    getKey()
      ? [
        "key set · ",
        h("button", {
          type: "button",
          class: "link",
          onclick: () => {
            setKey("");
            location.reload();
          },
        }, "forget"),
      ]
      : "",
  );
}

onUnauthorized((err) => {
  if (!form.hidden) return;
  const had = getKey();
  setKey("");
  showKeyState();
  document.getElementById("key-reason").textContent = had
    ? `The key was refused: ${err.message}`
    : err.message;
  form.hidden = false;
  root.hidden = true;
  keyInput.focus();
});

form.addEventListener("submit", (e) => {
  e.preventDefault();
  setKey(keyInput.value.trim());
  keyInput.value = "";
  form.hidden = true;
  root.hidden = false;
  showKeyState();
  startActivity();
  render();
});

// One stream of every state change for the whole tab.
const live = document.getElementById("live");
let activityRun;

function startActivity() {
  activityRun?.abort();
  activityRun = new AbortController();
  follow("/v1/events", {
    signal: activityRun.signal,
    onEvent: (e) => {
      if (e.event === "ready" || e.event === "reset") {
        activity.dispatchEvent(new CustomEvent("sync"));
      } else activity.dispatchEvent(new CustomEvent("change", { detail: e.data }));
      refreshPending();
    },
    onState: (state) => {
      live.textContent = state === "live"
        ? "live"
        : state === "retrying"
        ? "reconnecting"
        : "offline";
      live.classList.toggle("on", state === "live");
    },
  });
}

// The pending count: only for keys that may decide (others do not see the badge).
const pendingCount = document.getElementById("pending-count");
const refreshPending = debounce(async () => {
  try {
    const { items } = await api("GET", "/v1/pending");
    pendingCount.textContent = String(items.length);
    pendingCount.hidden = items.length === 0;
  } catch {
    pendingCount.hidden = true;
  }
}, 150);

globalThis.addEventListener("hashchange", render);
showKeyState();
startActivity();
render();
