// A small highlighter of its own for TypeScript, Python and bash: keywords, strings, comments
// and numbers, as DOM nodes (never HTML), one row per line with its number.
import { h } from "./dom.js";

const WORDS = {
  typescript: "async await break case catch class const continue default delete do else export " +
    "extends false finally for from function if import in instanceof interface let new null of " +
    "return static super switch this throw true try type typeof undefined var void while yield",
  python: "and as assert async await break class continue def del elif else except False " +
    "finally for from global if import in is lambda None nonlocal not or pass raise return True " +
    "try while with yield print",
  bash: "case do done elif else esac fi for function if in local read return select then " +
    "until while echo export set unset shift exit cd true false",
};

// Each rule: a class and a sticky pattern, tried in order at each position.
const RULES = {
  typescript: [
    ["c", /\/\/[^\n]*/y],
    ["c", /\/\*[\s\S]*?(?:\*\/|$)/y],
    ["s", /`(?:\\[\s\S]|[^\\`])*`?/y],
    ["s", /"(?:\\.|[^\\"\n])*"?/y],
    ["s", /'(?:\\.|[^\\'\n])*'?/y],
  ],
  python: [
    ["c", /#[^\n]*/y],
    ["s", /[rbfRBF]{0,2}"""[\s\S]*?(?:"""|$)/y],
    ["s", /[rbfRBF]{0,2}'''[\s\S]*?(?:'''|$)/y],
    ["s", /[rbfRBF]{0,2}"(?:\\.|[^\\"\n])*"?/y],
    ["s", /[rbfRBF]{0,2}'(?:\\.|[^\\'\n])*'?/y],
  ],
  bash: [
    ["c", /(?<![\w$])#[^\n]*/y],
    ["s", /"(?:\\[\s\S]|[^\\"])*"?/y],
    ["s", /'[^']*'?/y],
    ["v", /\$(?:\{[^}\n]*\}?|\w+|[@*#?$!0-9])/y],
  ],
};
const NUMBER = /\b(?:0[xX][\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?n?)\b/y;
const WORD = /[A-Za-z_$][\w$]*/y;

const keywordSets = Object.fromEntries(
  Object.entries(WORDS).map(([lang, words]) => [lang, new Set(words.split(" "))]),
);

/** The language a name stands for (typescript unless python or bash). */
export function languageOf(name) {
  if (name === "python" || name === "py") return "python";
  if (name === "bash" || name === "sh") return "bash";
  return "typescript";
}

/** Splits `code` into [class, text] tokens; class "" is plain text. */
export function tokens(code, language) {
  const lang = languageOf(language);
  const rules = RULES[lang];
  const keywords = keywordSets[lang];
  const out = [];
  let plain = "";
  let i = 0;
  const push = (cls, text) => {
    if (plain) out.push(["", plain]);
    plain = "";
    out.push([cls, text]);
  };
  scan: while (i < code.length) {
    for (const [cls, re] of rules) {
      re.lastIndex = i;
      const m = re.exec(code);
      if (m && m[0].length > 0) {
        push(cls, m[0]);
        i += m[0].length;
        continue scan;
      }
    }
    NUMBER.lastIndex = i;
    const prev = code[i - 1] ?? "";
    let m = /[\w$]/.test(prev) ? null : NUMBER.exec(code);
    if (m) {
      push("n", m[0]);
      i += m[0].length;
      continue;
    }
    WORD.lastIndex = i;
    m = WORD.exec(code);
    if (m) {
      if (keywords.has(m[0]) && prev !== ".") push("k", m[0]);
      else plain += m[0];
      i += m[0].length;
      continue;
    }
    plain += code[i++];
  }
  if (plain) out.push(["", plain]);
  return out;
}

/**
 * The code as a highlighted block with line numbers; `mark` is a line (from 1) to show as the
 * error's.
 */
export function codeBlock(code, language, mark) {
  const lines = [[]];
  for (const [cls, text] of tokens(code, language)) {
    const parts = text.split("\n");
    parts.forEach((part, k) => {
      if (k > 0) lines.push([]);
      if (part) lines.at(-1).push(cls ? h("span", { class: `t-${cls}` }, part) : part);
    });
  }
  return h(
    "pre",
    { class: "code", "data-language": languageOf(language) },
    lines.map((parts, n) =>
      h(
        "div",
        { class: n + 1 === mark ? "line mark" : "line" },
        h("span", { class: "ln" }, String(n + 1)),
        h("span", { class: "src" }, parts.length ? parts : " "),
      )
    ),
  );
}
