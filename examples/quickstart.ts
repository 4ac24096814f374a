// deno run -A examples/quickstart.ts
import { z } from "zod";
import { createRuntime, defineConnector } from "../mod.ts";

const math = defineConnector({
  name: "math",
  description: "Arithmetic",
  tools: {
    add: {
      description: "Add two numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.number(),
      execute: ({ a, b }) => a + b,
    },
  },
});

await using runtime = await createRuntime({ connectors: [math], db: ":memory:" });
const out = await runtime.execute({ code: "return await math.add({ a: 1, b: 2 })" });
console.log(JSON.stringify(out, null, 2));
