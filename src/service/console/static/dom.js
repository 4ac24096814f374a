// Small DOM helpers: elements are built with h(), never from HTML strings.

/** An element: h("a", { href, class, onclick }, child, …); children may be text or arrays. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "value") el.value = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** Appends children to `el`, skipping null, undefined and false (Element.append would not). */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/** Replaces what `el` holds. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A value as indented JSON (undefined shows as nothing). */
export function json(value) {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** A JSON block, folded when long. */
export function jsonBlock(value, open = false) {
  const text = json(value);
  if (text.length < 160 && !text.includes("\n  \n")) return h("pre", { class: "json" }, text);
  return h(
    "details",
    { class: "json", open },
    h("summary", {}, text.slice(0, 80).replace(/\s+/g, " ") + " …"),
    h("pre", {}, text),
  );
}

/** A time as local date and time. */
export function time(ms) {
  return ms ? new Date(ms).toLocaleString() : "";
}

/** How long ago `ms` was, in words. */
export function ago(ms) {
  if (!ms) return "";
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

/** A duration in ms, short. */
export function duration(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Bytes, short. */
export function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A status as a coloured badge. */
export function badge(status) {
  return h("span", { class: `badge s-${status}`, "data-status": status }, status);
}

/** An error from the API (or any error) as a box with its code. */
export function errorBox(err) {
  const code = err?.code ?? "error";
  return h(
    "div",
    { class: "error", role: "alert" },
    h("b", {}, code),
    " ",
    err?.message ?? String(err),
  );
}

/** One name and value of a `dl.facts` list. */
export function fact(name, value) {
  return h(
    "div",
    {},
    h("dt", {}, name),
    h("dd", {}, value instanceof Node ? value : String(value ?? "")),
  );
}

/** A section with a title. */
export function section(title, ...children) {
  return h("section", { class: "card" }, h("h2", {}, title), ...children);
}

/** A table from column names and rows of cells. */
export function table(columns, rows, empty = "Nothing here yet.") {
  if (rows.length === 0) return h("p", { class: "muted" }, empty);
  return h(
    "table",
    {},
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows),
  );
}

/** Calls `fn` at most once per `ms`, after the last call. */
export function debounce(fn, ms) {
  let t;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}

/** A button that runs `action`, disabled while it runs; its error shows in `out`. */
export function action(label, run, attrs = {}) {
  const b = h("button", { type: "button", ...attrs }, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await run(b);
    } finally {
      b.disabled = false;
    }
  });
  return b;
}
