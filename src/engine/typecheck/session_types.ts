/**
 * What a script-form execution declares at top level, as ambient
 * declarations the next execution in the same session is checked against.
 * In a session those names become globals of the child (`sessions/source.ts`),
 * so `rows.length` in a later execution is not `TS2304 Cannot find name`.
 *
 * Each value name gets its type as the checker inferred it, widened
 * (`const n = 5` declares `n: number`) and capped in length; a name whose
 * type cannot be written in a few hundred characters, or a class, is `any`.
 * Top-level `type` and `interface` declarations are carried as written.
 *
 * @module
 */
import ts from "typescript";
import { type CheckForm, formOf, wrap } from "./wrap.ts";

/** One carried declaration: `value:<name>` or `type:<name>`, and its ambient text. */
export interface SessionDeclaration {
  key: string;
  text: string;
}

/** Where the session's earlier declarations live in the checked program (a script, not a module). */
export const SESSION_FILE = "/cordon/session.d.ts";

/** Characters of one carried type: past this the name is declared `any`. */
const MAX_TYPE_CHARS = 600;

const TYPE_FLAGS = ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseFullyQualifiedType |
  ts.TypeFormatFlags.WriteArrowStyleSignature;

function bindingNames(name: ts.BindingName, out: ts.Identifier[]): void {
  if (ts.isIdentifier(name)) out.push(name);
  else {
    for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
  }
}

/** `declare var <name>: any;` for each name (what is known when no check ran). */
export function anyDeclarations(names: readonly string[]): SessionDeclaration[] {
  return names.map((n) => ({ key: `value:${n}`, text: `declare var ${n}: any;` }));
}

/** The statements of the script's body: the wrapper's default-exported function. */
function scriptBody(user: ts.SourceFile): readonly ts.Statement[] {
  for (const st of user.statements) {
    if (ts.isFunctionDeclaration(st) && st.body) return st.body.statements;
  }
  return [];
}

/**
 * The top-level declarations of a wrapped script-form `user` file, typed by `checker`
 * (without it, every value is `any`); `[]` for the other forms, whose names do not persist.
 */
export function topLevelDeclarations(
  user: ts.SourceFile,
  form: CheckForm,
  checker?: ts.TypeChecker,
): SessionDeclaration[] {
  if (form !== "script") return [];
  const out: SessionDeclaration[] = [];
  // A name the tools, the sandbox or the lib already declare keeps that declaration: declaring
  // it again would only conflict (and its type is known anyway).
  const known = (name: string): boolean =>
    checker?.resolveName(name, user, ts.SymbolFlags.Value, false)?.declarations?.some((d) => {
      const file = d.getSourceFile().fileName;
      return file !== SESSION_FILE && file !== user.fileName;
    }) ?? false;
  const push = (name: string, text: string) => {
    if (!known(name)) out.push({ key: `value:${name}`, text });
  };
  const typeOf = (node: ts.Node, annotated: boolean): string => {
    if (!checker || !annotated) return "any";
    try {
      const type = checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(node));
      const text = checker.typeToString(type, undefined, TYPE_FLAGS);
      return text.length > MAX_TYPE_CHARS || text === "never" ? "any" : text;
    } catch {
      return "any";
    }
  };
  for (const st of scriptBody(user)) {
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        const ids: ts.Identifier[] = [];
        bindingNames(d.name, ids);
        const typed = d.initializer !== undefined || d.type !== undefined;
        for (const id of ids) push(id.text, `declare var ${id.text}: ${typeOf(id, typed)};`);
      }
    } else if (ts.isFunctionDeclaration(st) && st.name) {
      const name = st.name.text;
      push(name, `declare var ${name}: ${typeOf(st.name, true)};`);
    } else if (ts.isClassDeclaration(st) && st.name) {
      push(st.name.text, `declare var ${st.name.text}: any;`);
    } else if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) {
      out.push({ key: `type:${st.name.text}`, text: st.getText(user) });
    }
  }
  return out;
}

/**
 * The top-level names of `code` (script form), each declared `any`: what is known of a run
 * no check looked at. Parses only; `[]` for the other forms.
 */
export function topLevelNames(code: string): SessionDeclaration[] {
  const form = formOf(code);
  if (form !== "script") return [];
  try {
    const file = ts.createSourceFile(SESSION_FILE, wrap(code, form, "any").text, {
      languageVersion: ts.ScriptTarget.ESNext,
      jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
    }, true);
    return topLevelDeclarations(file, form);
  } catch {
    return [];
  }
}
