/**
 * A scripted, deterministic embedder for tests: each dimension is a concept, and a text's
 * vector counts the words that evoke it (by word start). Intent queries whose words no tool
 * uses ("scrap the get-together tomorrow") land near the tool that means the same ("Delete an event
 * from a calendar") because both evoke the same concepts. It counts its calls and texts, and
 * can be told to fail, hang or answer nonsense.
 */
import { z } from "zod";
import { type Connector, defineConnector, type EmbedFunction } from "../../../mod.ts";

/** Concept → word starts that evoke it. */
const CONCEPTS: Record<string, string[]> = {
  remove: ["delete", "cancel", "scrap", "remov", "drop", "call off", "strike"],
  calendar: ["calendar", "event", "meeting", "standup", "tomorrow", "schedul"],
  discount: ["coupon", "discount", "fifth", "percent", "knock"],
  money: ["invoice", "payment", "price", "refund", "charge", "card", "subscription"],
  ci: ["check", "build", "test", "green", "passing", "workflow", "commit"],
  air: ["air", "smog", "pollut", "ozone", "pm2", "breath"],
  weather: ["weather", "forecast", "rain", "city", "delhi", "sunny"],
  message: ["message", "post", "channel", "tell", "announce"],
  create: ["create", "make", "add", "new", "give", "open"],
  rerun: ["again", "rerun", "retry", "restart"],
};
const NAMES = Object.keys(CONCEPTS);

/** The vector of `text`: concept counts, plus a small constant so no vector is zero. */
export function conceptVector(text: string): number[] {
  const words = text.toLowerCase().split(/[^a-z0-9.%]+/).filter(Boolean);
  const joined = ` ${words.join(" ")} `;
  const out = NAMES.map((name) =>
    CONCEPTS[name].reduce(
      (n, start) =>
        n + (start.includes(" ")
          ? (joined.includes(` ${start} `) ? 1 : 0)
          : words.filter((w) => w.startsWith(start)).length),
      0,
    )
  );
  return [...out, 0.05];
}

/** How the scripted embedder behaves now. */
export type Mode = "ok" | "throw" | "hang" | "short";

/** A counting, switchable concept embedder. */
export interface ScriptedEmbedder {
  embed: EmbedFunction;
  /** Calls and texts so far; texts that are tools' or snippets' (they hold a newline or "("). */
  calls: number;
  texts: string[];
  mode: Mode;
  /** Texts embedded that were documents, not queries. */
  documentTexts(): string[];
}

/** A scripted embedder (`dimensions` is the concept count + 1). */
export function scriptedEmbedder(): ScriptedEmbedder {
  const state: ScriptedEmbedder = {
    calls: 0,
    texts: [],
    mode: "ok",
    documentTexts: () => state.texts.filter((t) => t.includes("(") && t.includes(":")),
    embed: Object.assign(
      (texts: string[], o?: { signal?: AbortSignal }) => {
        state.calls++;
        state.texts.push(...texts);
        if (state.mode === "throw") return Promise.reject(new Error("the GPU caught fire"));
        if (state.mode === "hang") {
          return new Promise<number[][]>((_, reject) =>
            o?.signal?.addEventListener("abort", () => reject(new Error("aborted")))
          );
        }
        if (state.mode === "short") return Promise.resolve(texts.slice(1).map(conceptVector));
        return Promise.resolve(texts.map(conceptVector));
      },
      { model: "concepts-v1", dimensions: NAMES.length + 1 },
    ),
  };
  return state;
}

/** Intent queries, each with the tool it means; none shares a word with any tool. */
export const INTENT_QUERIES: [string, string][] = [
  ["scrap the get-together tomorrow", "calendar.delete_event"],
  ["can I breathe easy in Delhi", "weather.air_quality"],
  ["restart the nightly", "ci.rerun_workflow"],
];

const noInput = z.object({});

function tool(description: string) {
  return { description, input: noInput, readOnly: true, execute: () => description };
}

/** A small catalogue with near-duplicates: calendars, billing, CI, weather, chat. */
export function testConnectors(
  deleteDescription = "Delete an event from a calendar by its id",
): Connector[] {
  return [
    defineConnector({
      name: "calendar",
      description: "The team's calendars",
      tools: {
        create_event: tool("Create an event on a calendar with a title, a start and an end"),
        delete_event: tool(deleteDescription),
        list_events: tool("List the events of a calendar between two dates"),
      },
    }),
    defineConnector({
      name: "billing",
      description: "Customers, subscriptions and invoices",
      tools: {
        cancel_subscription: tool("Cancel a customer's subscription at the end of the period"),
        create_coupon: tool("Create a coupon: a percentage discount on a customer's invoices"),
        refund_payment: tool("Refund a payment to the customer's card"),
      },
    }),
    defineConnector({
      name: "ci",
      description: "Continuous integration",
      tools: {
        get_check_runs: tool("Get the check runs (build and test results) of a commit"),
        rerun_workflow: tool("Run a workflow again"),
      },
    }),
    defineConnector({
      name: "weather",
      description: "Weather data",
      tools: {
        air_quality: tool("Air quality index (PM2.5, ozone) for a city"),
        forecast: tool("Weather forecast for a city for the next days"),
      },
    }),
    defineConnector({
      name: "chat",
      description: "Team chat",
      tools: { post_message: tool("Post a message to a channel") },
    }),
  ];
}

/** The number of tools in {@link testConnectors}. */
export const TEST_TOOL_COUNT = 11;
