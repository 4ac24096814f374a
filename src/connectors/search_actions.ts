/**
 * Whether a request reads or changes something, and whether a tool does. Near-duplicates often
 * differ only so: `get_issue_comments` and `add_issue_comment`, `get_pull_request_reviews` and
 * `create_pull_request_review`, `list_incidents` and `create_incident`. A request that names
 * things without a verb ("comments on PROJ-7", "datadog incidents", "octocat's open PRs") or
 * asks a question ("who approved it") wants to read; one that opens with a verb that changes
 * something ("approve the PR", "log a call") wants to write.
 *
 * The verbs are those common APIs name their operations with, and the everyday verbs of
 * requests for them; a tool's kind is the first such verb of its name.
 *
 * @module
 */

/** What an operation does to what it names. */
export type Action = "read" | "write";

/** Verbs of operations that only read. */
const READ_VERBS =
  "get list search find fetch read retrieve query show view see look lookup browse describe " +
  "display check inspect count aggregate explain analyze analyse report watch compare download " +
  "export print preview summarize summarise identify locate whoami top head scan audit " +
  "calculate estimate measure";

/** Verbs of operations that change something; each is a verb wherever it stands. */
const WRITE_VERBS =
  "create add insert make update edit modify rename move clone duplicate delete remove destroy " +
  "erase trash purge cancel abort stop kill terminate halt pause resume reboot launch execute " +
  "trigger invoke dispatch revert undo retry rerun send publish respond forward invite assign " +
  "unassign reassign grant revoke approve reject decline accept reopen resolve acknowledge ack " +
  "escalate snooze mute unmute silence unarchive restore unpin unstar upload attach subscribe " +
  "unsubscribe enroll convert uninstall downgrade resize provision enable disable toggle unlock " +
  "unblock ban kick join unlink associate disconnect write save apply submit ask notify remind " +
  "give jot nudge wake buy purchase finalize finalise generate rotate replace overwrite tell " +
  "let dial transition promote demote mark";

/**
 * Words that are verbs when they open a request and nouns or adjectives elsewhere: "page the
 * DBA" but "a wiki page", "open a PR" but "open PRs", "log a call" but "error logs".
 */
const OPENING_WRITE_VERBS =
  "page text message email call comment note label tag star pin book open close archive draft " +
  "review release deploy build sync bill invoice charge refund transfer order alert ping post " +
  "reply share schedule log record lock block flag link test deal ship run change copy " +
  "fork drop upgrade rollback fix reset import install push leave turn hand swap bump scale " +
  "void request start set pay merge restart clear connect mention keep hide";

/** Words that open a request before its verb ("can you please…", "I want to…"). */
const LEADING =
  "please pls kindly can could would will you i we me id im just quickly also now then go " +
  "ahead want need like to lets help m s d ll re ve hey ok okay so";

const set = (text: string, by = " ") => new Set(text.split(by));
const READ = set(READ_VERBS);
const WRITE = set(WRITE_VERBS);
const OPENING_WRITE = set(OPENING_WRITE_VERBS);
const LEAD = set(LEADING);

/** Verbs of two words that change something: "roll back", "hang up", "turn off". */
const PHRASAL_WRITE = set(
  "go back|roll back|hang up|shut down|turn off|turn on|spin up|tear down|clean up|wake up|" +
    "hand over|back up|give back|sign up|set up|take down|bring down|bring up|switch off|" +
    "switch on|kick off|cut off|top up|pay back|pay out|write down|write up|jot down|note down|" +
    "send out|sign off|opt out|opt in|check in|check out|log in|log out",
  "|",
);
/** Words that open a question: the request wants to know something. */
const ASKING = set(
  "what whats which who whose whom when where why how is are was were did does do has have any",
);
/** Who may come before a verb in a question asking how to do it ("how do I create…"). */
const DOER = set("i we to you");

/** `tell me`, `show me`, `give me`: what follows is to be read. */
const TO_ME = new Set(["tell", "show", "give", "get", "send", "let"]);

/** What a request wants done, and whether a verb of it says so. */
export interface RequestAction {
  action: Action;
  /** False when the request reads without a verb saying it ("datadog incidents"). */
  said: boolean;
}

/**
 * What a request wants done, from its lowercased words: the first verb that is the request's
 * own (its opening word, or a verb that is nothing else, not a participle such as "changed"),
 * or reading when it has none.
 *
 * @example
 * ```ts
 * import { requestAction } from "./search_actions.ts";
 * console.assert(requestAction(["approve", "the", "pr"]).action === "write");
 * console.assert(requestAction(["comments", "on", "the", "pr"]).said === false);
 * console.assert(requestAction(["which", "files", "changed"]).action === "read");
 * ```
 */
export function requestAction(words: readonly string[]): RequestAction {
  let i = 0;
  while (i < words.length - 1 && LEAD.has(words[i])) i++;
  // In a question, a verb is what it asks to do only after its doer ("how do I create").
  const question = ASKING.has(words[i]);
  for (let k = i; k < words.length; k++) {
    const w = words[k];
    if (k === i && TO_ME.has(w) && words[k + 1] === "me") return { action: "read", said: false };
    if (READ.has(w)) return { action: "read", said: true };
    if (question && !DOER.has(words[k - 1])) continue;
    const writes = WRITE.has(w) || (k === i && OPENING_WRITE.has(w)) ||
      PHRASAL_WRITE.has(`${w} ${words[k + 1]}`);
    if (writes) return { action: "write", said: true };
  }
  return { action: "read", said: false };
}

/** Whether `word` (lowercased) is a form of a verb that is only a verb (`updates`, `gets`). */
export function isVerbForm(word: string, base: string): boolean {
  return word !== base && (READ.has(base) || WRITE.has(base));
}

/** Read verbs of operations that return many things. */
const LISTING = set("list search find query browse aggregate scan");

/** What a tool's name says it does. */
export interface NameAction {
  action: Action;
  /** A read that returns many things: its verb lists (`list_`, `search_`) or its name is plural. */
  many: boolean;
}

/** The normalized form of each verb, by kind, for tools' name terms. */
let nameVerbs: Map<string, NameAction> | undefined;

/**
 * A tool's kind from its name's terms (normalized as search_terms.ts does): the first that is a
 * verb, or `undefined` for names without one (`table_sizes`, `maps_elevation`). `plural` says
 * whether a word of the name is plural (`get_issue_comments`).
 */
export function nameAction(
  nameTerms: readonly string[],
  plural: boolean,
  normalize: (word: string) => string | null,
): NameAction | undefined {
  if (!nameVerbs) {
    nameVerbs = new Map();
    const add = (words: Iterable<string>, action: Action) => {
      for (const w of words) {
        const t = normalize(w);
        if (t !== null && !nameVerbs!.has(t)) nameVerbs!.set(t, { action, many: LISTING.has(w) });
      }
    };
    add(READ, "read");
    add(WRITE, "write");
    add(OPENING_WRITE, "write");
  }
  for (const t of nameTerms) {
    const kind = nameVerbs.get(t);
    if (kind) return kind.action === "read" && plural ? { action: "read", many: true } : kind;
  }
  return undefined;
}

/**
 * Verbs whose particle is a word search drops ("in", "up", "out", "on"): written as one word,
 * so "logged in" is not "logs" and "look up" is a lookup.
 */
const PARTICLE_VERBS: readonly [RegExp, string][] = [
  [/\b(?:log|logged|logging|sign|signed|signing)\s+(?:in|into|on)\b/gi, "authenticated login"],
  [/\b(?:log|logged|sign|signed)\s+out\b/gi, "logout"],
  [/\b(?:sign|signed|signing)\s+up\b/gi, "signup register"],
  [/\b(?:look|looking|looked)\s+up\b/gi, "lookup"],
  [/\b(?:set|setting)\s+up\b/gi, "setup configure"],
  [/\b(?:turn|turned|switch)\s+on\b/gi, "enable"],
  [/\b(?:back|backed)\s+up\b/gi, "backup"],
  [/\b(?:clean|cleaned)\s+up\b/gi, "cleanup delete"],
  [/\b(?:find|found)\s+out\b/gi, "find"],
  [/\b(?:get|got|getting)\s+rid\s+of\b/gi, "delete"],
  [/\b(?:throw|threw|throwing)\s+(?:away|out)\b/gi, "delete"],
  [/\b(?:fill|filled)\s+in\b/gi, "update"],
  [/\bopt(?:ed)?\s+out\b/gi, "unsubscribe"],
  [/\bopt(?:ed)?\s+in\b/gi, "subscribe"],
];

/** A request with its particle verbs written as one word ("logged in" → authenticated). */
export function joinParticleVerbs(text: string): string {
  let out = text;
  for (const [pattern, word] of PARTICLE_VERBS) out = out.replace(pattern, word);
  return out;
}

/** Verbs whose request carries a message: what follows "that" or "saying" is its text. */
const SAYING = set(
  "tell let say announce notify ping message text email post send remind nudge reply respond " +
    "write comment note jot warn inform alert update dm",
);

/**
 * A request without the words that are arguments, not what it wants done: quoted text, the
 * name after "called", "named" or "titled" (up to a preposition), and the message of a request
 * to tell someone something ("tell the team **that the deploy is done**").
 *
 * @example
 * ```ts
 * import { withoutArguments } from "./search_actions.ts";
 * const text = withoutArguments("tell #eng that the build is green");
 * console.assert(text.trim() === "tell #eng");
 * ```
 */
export function withoutArguments(text: string): string {
  let out = text.replace(/"[^"]*"|\u201c[^\u201d]*\u201d/g, " ")
    .replace(
      /\b(?:called|named|titled|entitled)\s+(?:(?!(?:in|on|to|for|from|with|at|into|under)\b)\S+\s*)+/gi,
      " ",
    );
  const words = out.toLowerCase().split(/[^\p{L}\p{N}#@']+/u).filter((w) => w !== "");
  let i = 0;
  while (i < words.length - 1 && LEAD.has(words[i])) i++;
  if (SAYING.has(words[i])) out = out.replace(/\s(?:that|saying)\s[\s\S]*$|:[\s\S]*$/i, " ");
  return out;
}
