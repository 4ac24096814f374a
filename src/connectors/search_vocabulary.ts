/**
 * The words requests use for what APIs call something else: `cancel` a meeting is
 * `delete_event`, a `discount` is a `coupon`, a `PR` is a pull request, `CI` is a status check.
 * Written from how common APIs (code hosting, chat, mail, calendars, trackers, payments, CRM,
 * storage, databases, clusters, monitoring, on-call, telephony, weather, maps) name things,
 * not from any query set; a query word also searches for its entries with less weight
 * ({@link import("./search_corpus.ts").RankingWeights}).
 *
 * Two kinds of entry: groups of words APIs use interchangeably (each stands for the others),
 * and one-way entries from an everyday word to the API words it means. An entry may be a
 * phrase (`pull request`): it matches when all its words do.
 *
 * @module
 */
import { normalizeTerm, splitWords } from "./search_terms.ts";

/** Words APIs use for the same thing; each searches for the others. */
const SAME: readonly (readonly string[])[] = [
  // Verbs of every API.
  ["delete", "remove", "destroy", "erase"],
  ["create", "add", "new", "insert"],
  ["update", "edit", "modify", "change", "patch"],
  ["get", "fetch", "retrieve", "read", "view"],
  ["list", "enumerate", "browse"],
  ["search", "find", "lookup", "query"],
  ["send", "post", "deliver"],
  ["run", "execute", "trigger", "invoke", "dispatch"],
  ["copy", "duplicate", "clone"],
  ["move", "transfer", "relocate"],
  ["merge", "combine", "consolidate"],
  ["approve", "accept"],
  ["reject", "decline", "deny"],
  ["reply", "respond", "answer"],
  ["revert", "rollback", "undo"],
  ["mute", "silence", "snooze"],
  ["label", "tag"],
  ["verify", "verification", "validate"],
  // Things.
  ["issue", "ticket"],
  ["repository", "repo"],
  ["directory", "folder", "dir"],
  ["document", "doc"],
  ["message", "msg"],
  ["email", "mail"],
  ["event", "meeting", "appointment"],
  ["customer", "client"],
  ["user", "member", "people", "person"],
  ["company", "organization", "org"],
  ["deal", "opportunity"],
  ["lead", "prospect"],
  ["coupon", "discount", "promotion", "promo"],
  ["invoice", "bill"],
  ["payment", "charge", "transaction"],
  ["dispute", "chargeback"],
  ["subscription", "plan"],
  ["permission", "access", "role", "rights"],
  ["link", "url"],
  ["column", "field", "attribute"],
  ["row", "record", "entry"],
  ["database", "db"],
  ["kubernetes", "k8s"],
  ["pod", "container"],
  ["replica", "instance"],
  ["error", "exception", "failure", "crash"],
  ["alert", "alarm", "warning"],
  ["incident", "outage"],
  ["metric", "timeseries"],
  ["dashboard", "graph", "chart"],
  ["secret", "credential", "token", "key"],
  ["vulnerability", "vulnerable", "cve"],
  ["sms", "text message"],
  ["phone", "mobile", "cell"],
  ["transcript", "transcription"],
  ["recording", "record"],
  ["air quality", "aqi", "pollution", "smog"],
  ["directions", "route", "navigate"],
  ["schedule", "rotation", "shift"],
  ["maintenance", "downtime"],
  ["wiki", "knowledge base", "documentation"],
  ["note", "memo"],
  ["version", "revision"],
  ["history", "changelog", "audit"],
  ["regex", "regexp", "regular expression"],
];

/** Everyday words and abbreviations, one way, to the API words they mean. */
const MEANS: Readonly<Record<string, readonly string[]>> = {
  // Verbs.
  cancel: ["delete", "stop", "abort"],
  stop: ["cancel", "abort", "terminate", "disable"],
  kill: ["cancel", "terminate", "stop"],
  terminate: ["stop", "cancel", "delete"],
  abort: ["cancel", "stop"],
  drop: ["delete", "remove"],
  trash: ["delete"],
  make: ["create"],
  open: ["create", "get"],
  start: ["create", "run", "begin"],
  launch: ["run", "start", "create"],
  show: ["get", "list", "view"],
  display: ["get", "show"],
  see: ["get", "view", "list"],
  check: ["status", "verify", "get"],
  tell: ["send", "post", "notify"],
  notify: ["send", "alert", "notification"],
  ping: ["send", "message", "notify"],
  let: ["send"],
  share: ["permission", "access", "invite", "link"],
  give: ["create", "add", "grant"],
  grant: ["permission", "access", "share"],
  set: ["update"],
  rename: ["update", "move", "name"],
  reschedule: ["update", "move", "time"],
  postpone: ["update", "snooze"],
  book: ["create", "schedule", "event"],
  restart: ["rollout", "reboot", "redeploy"],
  resolve: ["close", "fix", "update"],
  fix: ["resolve", "close"],
  close: ["resolve", "archive", "update"],
  archive: ["close", "hide"],
  ack: ["acknowledge"],
  acknowledge: ["ack"],
  escalate: ["escalation", "urgency"],
  upload: ["put", "add"],
  download: ["get", "export", "save"],
  save: ["write", "download", "create"],
  export: ["download", "convert"],
  convert: ["export"],
  write: ["create", "update"],
  record: ["log", "create"],
  log: ["record", "add"],
  assign: ["assignee", "owner"],
  invite: ["add", "share"],
  count: ["aggregate", "total"],
  watch: ["monitor", "status"],
  mark: ["set", "label", "update", "flag"],
  star: ["label", "flag", "pin"],
  pin: ["star", "bookmark"],
  upgrade: ["update", "change"],
  downgrade: ["update", "change"],
  // Code hosting and CI.
  pr: ["pull request"],
  mr: ["merge request", "pull request"],
  ci: ["check", "status", "workflow", "build"],
  build: ["workflow", "job", "run", "ci"],
  pipeline: ["workflow", "ci", "build"],
  test: ["check", "ci"],
  pass: ["status", "check", "success"],
  green: ["status", "check", "success"],
  fail: ["failure", "error", "status"],
  broke: ["error", "failure", "fail"],
  broken: ["error", "failure", "fail"],
  deploy: ["deployment", "release", "rollout"],
  release: ["version", "tag", "deploy"],
  diff: ["change", "patch", "compare"],
  // Chat and mail.
  chat: ["message", "channel", "conversation"],
  dm: ["direct message", "conversation"],
  room: ["channel", "conversation", "space"],
  channel: ["conversation", "room"],
  inbox: ["email", "mail", "label"],
  attachment: ["file", "download"],
  // Calendar.
  standup: ["meeting", "event"],
  sync: ["meeting", "event"],
  agenda: ["event", "schedule", "calendar"],
  availability: ["free", "busy", "freebusy"],
  available: ["free", "busy", "freebusy"],
  free: ["available", "busy"],
  busy: ["free", "available"],
  invitation: ["event", "invite", "attendee"],
  rsvp: ["respond", "accept", "decline"],
  // Payments and CRM.
  off: ["discount", "coupon"],
  refund: ["money back", "reimburse"],
  money: ["balance", "payment", "fund", "payout", "amount"],
  funds: ["balance", "payout"],
  pay: ["payment", "checkout", "invoice"],
  bank: ["payout"],
  price: ["cost", "amount", "pricing"],
  cost: ["price", "amount"],
  crm: ["contact", "deal", "lead", "company"],
  contact: ["person", "lead", "customer"],
  // Storage and files.
  bucket: ["storage", "container"],
  object: ["file", "blob"],
  blob: ["object", "file"],
  file: ["document", "object"],
  temporary: ["presigned", "expire"],
  expire: ["lifecycle", "retention", "ttl", "delete"],
  retention: ["lifecycle", "expire"],
  ttl: ["expire", "lifecycle"],
  size: ["disk", "storage", "space"],
  big: ["size", "large"],
  // Databases.
  table: ["relation", "schema"],
  sql: ["query"],
  slow: ["performance", "latency", "duration", "top"],
  performance: ["slow", "latency"],
  lock: ["block", "wait"],
  block: ["lock", "link", "depend"],
  // Clusters and monitoring.
  cluster: ["kubernetes", "node"],
  scale: ["replica", "resize"],
  shell: ["exec", "command"],
  command: ["exec", "run"],
  cpu: ["metric", "usage", "top"],
  memory: ["metric", "usage", "top", "ram"],
  usage: ["consumption", "metric", "top"],
  consumption: ["usage"],
  trace: ["span", "tracing"],
  dependency: ["upstream", "downstream"],
  down: ["outage", "incident"],
  security: ["vulnerability", "secret", "scanning"],
  // On-call.
  oncall: ["on call", "schedule"],
  wake: ["incident", "page", "alert"],
  responder: ["on call", "escalation"],
  // Telephony.
  call: ["phone", "voice", "dial"],
  dial: ["call", "phone"],
  text: ["sms", "message"],
  otp: ["verification", "code"],
  // Weather and maps.
  rain: ["precipitation", "forecast"],
  snow: ["precipitation", "forecast"],
  temperature: ["weather", "current"],
  hot: ["temperature", "weather"],
  cold: ["temperature", "weather"],
  storm: ["alert", "warning"],
  hurricane: ["alert", "warning"],
  flood: ["alert", "warning"],
  allergy: ["pollen"],
  sunset: ["sunrise"],
  sunrise: ["sunset"],
  far: ["distance"],
  distance: ["far", "travel"],
  near: ["nearby", "place"],
  nearby: ["place"],
  restaurant: ["place"],
  shop: ["place"],
  store: ["place"],
  address: ["location", "geocode"],
  coordinates: ["latitude", "longitude", "geocode"],
  // Time.
  now: ["current"],
  current: ["now", "latest"],
  latest: ["recent", "newest", "last"],
  recent: ["latest", "last"],
  previous: ["last", "prior"],
};

/**
 * Nouns that are verbs when they open a request ("schedule a meeting", "page the DBA", "text
 * Ana"): a request starts with what it wants done. Elsewhere they keep their noun sense ("my
 * schedule", "a wiki page").
 */
const OPENING_VERBS: Readonly<Record<string, readonly string[]>> = {
  schedule: ["create", "book"],
  page: ["incident", "alert", "notify"],
  text: ["send"],
  message: ["send"],
  email: ["send"],
  book: ["create"],
};

/** A term's alternatives: each a list of terms that must all match. */
export type Expansion = readonly (readonly string[])[];

function phraseTerms(phrase: string): string[] {
  return splitWords(phrase).map(normalizeTerm).filter((t): t is string => t !== null);
}

function buildVocabulary(
  same: readonly (readonly string[])[],
  means: Readonly<Record<string, readonly string[]>>,
): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  const add = (word: string, meanings: readonly string[]) => {
    const key = phraseTerms(word);
    // Phrases are looked up by their words joined with a space.
    const k = key.join(" ");
    if (k === "") return;
    const list = out.get(k) ?? [];
    for (const m of meanings) {
      const terms = phraseTerms(m);
      if (terms.length === 0 || terms.join(" ") === k) continue;
      if (!list.some((l) => l.join(" ") === terms.join(" "))) list.push(terms);
    }
    out.set(k, list);
  };
  for (const group of same) for (const w of group) add(w, group.filter((o) => o !== w));
  for (const [w, meanings] of Object.entries(means)) add(w, meanings);
  return out;
}

const VOCABULARY = buildVocabulary(SAME, MEANS);
const OPENING = buildVocabulary([], OPENING_VERBS);

/**
 * What a query term (or two adjacent terms joined by a space: `on call`, `pull request`)
 * also searches for: alternatives of one or more terms each. Empty for most terms.
 *
 * @example
 * ```ts
 * import { expansionsOf } from "./search_vocabulary.ts";
 * console.assert(expansionsOf("pr").some((alt) => alt.join(" ") === "pull request"));
 * ```
 */
export function expansionsOf(key: string): Expansion {
  return VOCABULARY.get(key) ?? [];
}

/** The verb sense of a noun that opens a request (`page` → incident, alert, notify), if any. */
export function openingSenseOf(term: string): Expansion | undefined {
  return OPENING.get(term);
}

/**
 * Verbs every API has many tools for. A query's verb says less about which tool it wants than
 * its nouns do (`cancel` a meeting is not `cancel_subscription`), so verbs weigh less.
 */
const GENERIC_VERBS_TEXT =
  "list get create update delete remove add search find show set send post read write fetch " +
  "run make cancel move archive open close edit change start stop view see check mark tell " +
  "give take put keep need want use help look bring turn go come";

/** {@link GENERIC_VERBS_TEXT} as normalized terms. */
export const GENERIC_VERBS: ReadonlySet<string> = new Set(
  GENERIC_VERBS_TEXT.split(" ").map(normalizeTerm).filter((t): t is string => t !== null),
);
