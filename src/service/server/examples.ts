/**
 * The example connector `deno task serve` offers when no config file is found: harmless tools
 * kept in memory, one of each kind, so a new user sees a run pause for a person, get approved
 * and finish in the first minute. It is built with `defineConnector`, as a user's own would be.
 *
 * @module
 */
import { z } from "zod";
import { defineConnector } from "../../connectors/define.ts";
import type { Connector } from "../../connectors/types.ts";

/** The example connector's name: the global a script calls it by. */
export const EXAMPLE_CONNECTOR = "demo";

/** Versions the example starts with, per namespace. */
const STARTING_VERSIONS: Record<string, string> = { api: "1.4.0", web: "2.1.3" };

/** Most services the example keeps per namespace: it is a toy, not a store. */
const MAX_SERVICES = 100;

const serviceName = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, "a lowercase service name");

/**
 * The example connector: `demo.services({})` reads, `demo.deploy({ service, version })` needs a
 * person's approval and changes only this process's memory, and `demo.ask({ question })` waits
 * for the caller to supply the answer. Each namespace sees its own services.
 */
export function exampleConnector(): Connector {
  const byNamespace = new Map<string, Map<string, string>>();
  const servicesOf = (namespace: string) => {
    let services = byNamespace.get(namespace);
    if (!services) {
      services = new Map(Object.entries(STARTING_VERSIONS));
      byNamespace.set(namespace, services);
    }
    return services;
  };
  const list = (namespace: string) =>
    [...servicesOf(namespace)].map(([service, version]) => ({ service, version }));
  return defineConnector({
    name: EXAMPLE_CONNECTOR,
    description:
      "An example with pretend services in memory: read them, deploy (needs approval), " +
      "ask the caller a question. Nothing outside the server changes.",
    tags: ["example"],
    tools: {
      services: {
        description: "List the pretend services and the version each one runs",
        input: z.object({}),
        output: z.array(z.object({ service: z.string(), version: z.string() })),
        readOnly: true,
        execute: (_input, { namespace }) => list(namespace),
      },
      deploy: {
        description: "Deploy a version of a pretend service; a person approves each call first",
        input: z.object({ service: serviceName, version: z.string().min(1).max(40) }),
        output: z.object({ service: z.string(), version: z.string(), previous: z.string() }),
        requiresApproval: true,
        execute: ({ service, version }, { namespace }) => {
          const services = servicesOf(namespace);
          if (!services.has(service) && services.size >= MAX_SERVICES) {
            throw new Error(`The example keeps at most ${MAX_SERVICES} services`);
          }
          const previous = services.get(service) ?? "none";
          services.set(service, version);
          return { service, version, previous };
        },
      },
      ask: {
        description:
          "Ask the caller a question; the run waits until the caller resolves the call " +
          "with the answer (POST /v1/executions/:id/resolve)",
        input: z.object({ question: z.string().min(1).max(500) }),
        output: z.string().max(2_000),
        resolution: "client",
      },
    },
  });
}
