/**
 * Connectors whose side effects land in a file, so a test can count them
 * across processes (a host that was killed, the one that took over).
 *
 * @module
 */
import { appendFileSync, readFileSync } from "node:fs";
import { z } from "zod";
import { type Connector, defineConnector } from "../../mod.ts";

/** Every side effect recorded in `effectsPath`, one line each. */
export function readEffects(effectsPath: string): string[] {
  try {
    return readFileSync(effectsPath, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/** A `shop` connector: `charge` and `send` (gated) write effects; `hang` blocks until aborted. */
export function durableWorld(effectsPath: string, onHang?: () => void): Connector[] {
  const record = (line: string) => appendFileSync(effectsPath, `${line}\n`);
  const shop = defineConnector({
    name: "shop",
    description: "A shop whose effects are written to a file",
    tools: {
      charge: {
        description: "Charge a card",
        input: z.object({ cents: z.number().int() }),
        execute: ({ cents }) => {
          record(`charge:${cents}`);
          return { charged: cents };
        },
      },
      send: {
        description: "Send a receipt (needs approval)",
        input: z.object({ to: z.string() }),
        requiresApproval: true,
        execute: ({ to }) => {
          record(`send:${to}`);
          return `sent:${to}`;
        },
      },
      hang: {
        description: "Never answers",
        input: z.object({}),
        timeoutMs: 600_000,
        execute: (_args, ctx) => {
          onHang?.();
          return new Promise((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => reject(new Error("aborted")));
          });
        },
      },
    },
  });
  return [shop];
}

/** The script the crash tests run: charge, then a gated send. */
export const CHARGE_THEN_SEND = `
  const c = await shop.charge({ cents: 250 });
  const s = await shop.send({ to: "ada" });
  return { c, s };
`;

/** A script that charges and then hangs in a tool call. */
export const CHARGE_THEN_HANG = `
  await shop.charge({ cents: 100 });
  await shop.hang({});
  return "unreachable";
`;
