/**
 * Values in a request: ids, numbers, addresses, paths, times. A model copies them into its
 * query ("refund ch_3Ab", "PR #412", "pods in namespace prod-eu-2", "mail jane@example.com"),
 * and split into words they are noise (`cus_NffrFeUfNV2Hib` would be `cus`, `nffr`, `fe`, `uf`,
 * `nv`, `2`, `hib`) that may even match something. So they are taken out of the text, and what
 * their form says stays as weak evidence: a Stripe-style `cus_` prefix names a customer, `#412`
 * an issue or pull request number, `PROJ-12` an issue key, an address an email, `9am` a time.
 * The forms are those common APIs give their ids, written from their documentation.
 *
 * @module
 */

/** What a value says: the words for the kind of thing it names, and whether it is an id. */
export interface ValueEvidence {
  /** Alternatives for what it names (`customer`; `issue` or `pull request`), maybe none. */
  kinds: readonly string[];
  /** An identifier of one thing (a tool that gets one by id or number fits it). */
  id: boolean;
}

/** A request with its values taken out, and what each said. */
export interface ReadValues {
  /** The text with each value replaced by a space. */
  text: string;
  evidence: ValueEvidence[];
}

/** Prefixes of ids as payment APIs write them (`cus_…`, `pi_…`): the object each names. */
const ID_PREFIXES: Readonly<Record<string, readonly string[]>> = {
  acct: ["account"],
  ba: ["bank account"],
  card: ["card"],
  ch: ["charge", "payment"],
  cn: ["credit note"],
  cs: ["checkout session"],
  cus: ["customer"],
  dp: ["dispute"],
  du: ["dispute"],
  evt: ["event"],
  ii: ["invoice item"],
  il: ["invoice line"],
  in: ["invoice"],
  pi: ["payment intent", "payment"],
  plink: ["payment link"],
  pm: ["payment method"],
  po: ["payout"],
  price: ["price"],
  prod: ["product"],
  promo: ["promotion code"],
  py: ["payment"],
  re: ["refund"],
  seti: ["setup intent"],
  si: ["subscription item"],
  sub: ["subscription"],
  tok: ["token"],
  tr: ["transfer"],
  txn: ["transaction", "balance"],
};

/** Two-letter prefixes of telephony SIDs (`SM…` a message, `CA…` a call). */
const SID_PREFIXES: Readonly<Record<string, readonly string[]>> = {
  AC: ["account"],
  CA: ["call"],
  MM: ["message"],
  PN: ["phone number"],
  RE: ["recording"],
  SM: ["message"],
  TR: ["transcription"],
  VA: ["verification"],
};

/** Cloud resource ids (`i-0abc…`, `sg-…`). */
const CLOUD_PREFIXES: Readonly<Record<string, readonly string[]>> = {
  ami: ["image"],
  i: ["instance"],
  sg: ["security group"],
  snap: ["snapshot"],
  subnet: ["subnet"],
  vol: ["volume"],
  vpc: ["vpc"],
};

/** Values found anywhere in the text (they may hold spaces), before it is cut into tokens. */
const SPANNING: readonly [RegExp, ValueEvidence][] = [
  [/\bhttps?:\/\/\S+/gi, { kinds: ["link", "url"], id: false }],
  [/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu, { kinds: ["email"], id: false }],
  // "opened by octocat", "sent by the bank": who made it, a filter most listings take.
  [
    /\b(?:opened|created|written|authored|filed|raised|reported|submitted|started|made|posted|sent)\s+by\b/gi,
    {
      kinds: ["author", "creator", "sender", "owner"],
      id: false,
    },
  ],
  // +1 415 555 0100, +14155550100, (415) 555-0100, 415-555-0100.
  [
    /(?<![\p{L}\p{N}])(?:\+\d[\d ().-]{7,}\d|\(\d{3}\) ?\d{3}-\d{4}|\d{3}-\d{3}-\d{4})(?![\p{L}\p{N}])/gu,
    {
      kinds: ["phone", "number"],
      id: false,
    },
  ],
];

/** Names of deployment environments: which one is an argument, not what the request wants. */
const ENVIRONMENTS: ReadonlySet<string> = new Set([
  "prod",
  "production",
  "staging",
  "preprod",
  "uat",
  "qa",
]);

/** `1:1`, `1-on-1`: a meeting of two. */
const ONE_ON_ONE = /^1(?::|-on-|on)1s?$/i;
const VERSION = /^v?\d{1,3}(?:\.\d{1,4}){1,3}$/;
const TIME = /^\d{1,2}(?::\d{2})?(?:am|pm)$|^\d{1,2}:\d{2}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$|^\d{1,2}\/\d{1,2}\/\d{2,4}$/;
/** `PROJ-412`: a tracker's issue key. */
const ISSUE_KEY = /^(?!(?:UTF|ISO|SHA|AES|RSA|RFC|GPT|HTTP|TLS|SSL|IPV)-)[A-Z][A-Z0-9]{1,9}-\d+$/;
/** `cus_NffrFeUfNV2Hib`, `ch_3Ab`: a short prefix, then a random part with a digit or 10+ letters. */
const PREFIXED_ID = /^([a-z]{1,6})_([A-Za-z0-9]*\d[A-Za-z0-9]*|[A-Za-z0-9]{10,})$/;
const CLOUD_ID = /^([a-z]{1,6})-(?=[0-9a-f]*\d)[0-9a-f]{6,}$/;
const SID = /^([A-Z]{2})(?=[0-9a-f]*\d)[0-9a-f]{4,}$/;
/** A commit SHA: 7 to 40 hex digits with a digit and a letter. */
const SHA = /^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}$/;
const FILE_NAME =
  /^[\p{L}\p{N}_-]+\.(?:pdf|docx?|xlsx?|pptx?|csv|tsv|txt|md|json|ya?ml|toml|xml|html?|png|jpe?g|gif|svg|zip|tar|gz|log|sql|py|ts|js|go|rs|java|sh)$/iu;
/** `/home/me/x`, `~/x`, `./x`, `src/app/`: a path of two parts or more. */
const PATH = /^(?:~|\.{1,2})?\/\S*$|^[\w.-]+\/[\w.-]+\/\S*$/;

/** Whether a token mixes letters and digits the way generated ids and hashes do. */
function looksGenerated(token: string): boolean {
  for (const part of token.split(/[-_.:]/)) {
    if (part.length < 3 || !/\d/.test(part) || !/\p{L}/u.test(part)) continue;
    // Words with a number: `oauth2`, `base64`, `sha256`, `k8s`, `i18n` (short), `v2`.
    if (/^\p{L}+\d{1,3}$/u.test(part)) continue;
    // A number with a unit or a plural: `500s`, `24h`, `2fa`, `5xx`.
    if (/^\d+\p{L}{1,3}$/u.test(part)) continue;
    if (part.length <= 4 && /^\p{L}\d+\p{L}$/u.test(part)) continue;
    return true;
  }
  return false;
}

/** What one whitespace-separated token is, if it is a value. */
function tokenEvidence(token: string): ValueEvidence | undefined {
  if (ENVIRONMENTS.has(token.toLowerCase())) return { kinds: ["env"], id: false };
  if (/^#\d+$/.test(token)) return { kinds: ["issue", "pull request", "number"], id: true };
  if (ISSUE_KEY.test(token)) return { kinds: ["issue"], id: true };
  const prefixed = PREFIXED_ID.exec(token);
  if (prefixed) return { kinds: ID_PREFIXES[prefixed[1]] ?? [], id: true };
  const cloud = CLOUD_ID.exec(token);
  if (cloud) return { kinds: CLOUD_PREFIXES[cloud[1]] ?? [], id: true };
  const sid = SID.exec(token);
  if (sid) return { kinds: SID_PREFIXES[sid[1]] ?? [], id: true };
  if (ONE_ON_ONE.test(token)) return { kinds: ["meeting", "event"], id: false };
  if (VERSION.test(token)) return { kinds: ["version", "release"], id: false };
  if (TIME.test(token)) return { kinds: ["time", "schedule"], id: false };
  if (DATE.test(token)) return { kinds: ["date"], id: false };
  if (/^\d+(?:\.\d+)?%$/.test(token)) return { kinds: ["percent"], id: false };
  if (/^[$€£¥]\d/u.test(token)) return { kinds: ["amount"], id: false };
  if (/^@[\p{L}\p{N}._-]+$/u.test(token)) return { kinds: ["user"], id: false };
  if (FILE_NAME.test(token)) return { kinds: ["file"], id: false };
  if (PATH.test(token)) return { kinds: ["file", "directory", "path"], id: false };
  if (SHA.test(token)) return { kinds: ["commit"], id: true };
  // Long numbers (ids, timestamps); short ones are counts ("last 5 commits", "port 80").
  if (/^\d[\d.,]*$/.test(token) && token.replace(/\D/g, "").length >= 4) {
    return { kinds: [], id: true };
  }
  if (looksGenerated(token)) return { kinds: [], id: true };
  return undefined;
}

/** Punctuation around a token that is not part of it. */
const EDGES = /^[("'`[{<]+|[)"'`\]}>,;!?]+$|[.:]$/g;

/**
 * Takes the values out of a request.
 *
 * @example
 * ```ts
 * import { readValues } from "./search_values.ts";
 * const { text, evidence } = readValues("refund ch_3Ab for jane@example.com");
 * console.assert(text.trim().split(/\s+/).join(" ") === "refund for");
 * console.assert(evidence.map((e) => e.kinds[0]).join() === "email,charge");
 * ```
 */
export function readValues(request: string): ReadValues {
  const evidence: ValueEvidence[] = [];
  let text = request;
  for (const [pattern, found] of SPANNING) {
    text = text.replace(pattern, () => {
      evidence.push(found);
      return " ";
    });
  }
  text = text.split(/(\s+)/).map((raw) => {
    const token = raw.replace(EDGES, "");
    if (token === "") return raw;
    const found = tokenEvidence(token);
    if (!found) return raw;
    evidence.push(found);
    return " ";
  }).join("");
  return { text, evidence };
}
