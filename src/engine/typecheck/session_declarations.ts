/**
 * The declarations each session's executions made, kept for the type check
 * of the session's next execution (see `session_types.ts`). Node-local, like
 * sessions; bounded in sessions and in characters per session.
 *
 * @module
 */
import type { SessionDeclaration } from "./session_types.ts";

/** Sessions whose declarations are kept; the least recently used goes first. */
const MAX_SESSIONS = 512;
/** Characters of declarations kept per session: past it, new names are declared `any`. */
const MAX_CHARS_PER_SESSION = 64 * 1024;

/** Declarations by session id, later ones replacing earlier ones of the same name. */
export class SessionDeclarations {
  readonly #sessions = new Map<string, Map<string, string>>();

  /** The ambient text of what `sessionId` declared so far, or `undefined` (nothing known). */
  text(sessionId: string): string | undefined {
    const decls = this.#sessions.get(sessionId);
    if (!decls || decls.size === 0) return undefined;
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, decls);
    return [...decls.values()].join("\n");
  }

  /** Adds what one execution in `sessionId` declared. */
  add(sessionId: string, declared: readonly SessionDeclaration[]): void {
    if (declared.length === 0) return;
    let decls = this.#sessions.get(sessionId);
    if (decls) this.#sessions.delete(sessionId);
    else if (this.#sessions.size >= MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    decls ??= new Map();
    this.#sessions.set(sessionId, decls);
    let chars = 0;
    for (const t of decls.values()) chars += t.length;
    for (const d of declared) {
      const name = d.key.slice(d.key.indexOf(":") + 1);
      const fits = chars + d.text.length <= MAX_CHARS_PER_SESSION;
      const text = fits ? d.text : d.key.startsWith("value:") ? `declare var ${name}: any;` : "";
      if (text === "") continue;
      chars += text.length - (decls.get(d.key)?.length ?? 0);
      decls.set(d.key, text);
    }
  }
}
