/**
 * What the kit's tests share: a connector with every kind of tool, and a
 * check that a helper failed the way a test author would see it.
 *
 * @module
 */
import assert, { AssertionError } from "node:assert/strict";
import { z } from "zod";
import { defineConnector } from "../../mod.ts";

/** A small connector with a gated tool, a client-resolved tool and a tool that fails. */
export function shop() {
  const shipped: string[] = [];
  const connector = defineConnector({
    name: "shop",
    description: "A shop's orders",
    tools: {
      find: {
        description: "Find an order by id",
        input: z.object({ id: z.string(), full: z.boolean().default(false) }),
        output: z.object({ id: z.string(), items: z.array(z.string()), total: z.number() }),
        execute: ({ id }) => {
          if (id === "missing") throw new Error(`No order "${id}"`);
          return { id, items: ["tea"], total: 4 };
        },
      },
      ship: {
        description: "Ship an order",
        input: z.object({ id: z.string() }),
        output: z.string(),
        requiresApproval: true,
        execute: ({ id }) => (shipped.push(id), `shipped ${id}`),
      },
      ask: {
        description: "Ask the customer a question",
        input: z.object({ question: z.string() }),
        output: z.object({ answer: z.string() }),
        resolution: "client",
      },
    },
  });
  return { connector, shipped };
}

/** Asserts `fn` throws an AssertionError whose message matches every pattern. */
export function assertFails(fn: () => unknown, ...patterns: RegExp[]) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AssertionError, `not an AssertionError: ${err}`);
    for (const p of patterns) assert.match(err.message, p);
    return true;
  });
}
