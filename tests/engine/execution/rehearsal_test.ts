/**
 * A child spawned for a run that waits for it says `ready` without rehearsing a run first (the
 * run would pay for it); a child that waits in the pool rehearses while it waits.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector } from "../../../mod.ts";
import { ARG_NO_REHEARSAL } from "../../../src/sandbox/protocol.ts";
import { childProcesses } from "../../_helpers/processes.ts";

/** A tool that reports the command lines of the host's sandbox children while it runs. */
function commandLines(seen: string[][]) {
  return defineConnector({
    name: "probe",
    description: "Looks at the host's children",
    tools: {
      children: {
        description: "The sandbox children's command lines",
        input: z.object({}),
        execute: async () => {
          const kids = (await childProcesses()).filter((k) => k.cmd.includes("--deny-read"));
          seen.push(kids.map((k) => k.cmd));
          return kids.length;
        },
      },
    },
  });
}

Deno.test("a child spawned for a waiting run skips the rehearsal; a pooled one rehearses", async () => {
  const seen: string[][] = [];
  const code = "return await probe.children({})";
  {
    await using rt = await createRuntime({
      connectors: [commandLines(seen)],
      db: ":memory:",
      pool: { size: 0 },
      typecheck: "off",
    });
    const out = await rt.execute({ code });
    assert.equal(out.status, "completed", Deno.inspect(out).slice(0, 400));
    assert.equal(out.meta.pooled, false);
  }
  {
    await using rt = await createRuntime({
      connectors: [commandLines(seen)],
      db: ":memory:",
      pool: { size: 1 },
      typecheck: "off",
    });
    await rt.warm();
    const out = await rt.execute({ code });
    assert.equal(out.status, "completed", Deno.inspect(out).slice(0, 400));
    assert.equal(out.meta.pooled, true);
  }
  const [cold, pooled] = seen;
  assert.equal(cold.length, 1, cold.join("\n"));
  assert.ok(cold[0].includes(ARG_NO_REHEARSAL), cold[0]);
  assert.ok(pooled.length >= 1);
  assert.ok(pooled.every((cmd) => !cmd.includes(ARG_NO_REHEARSAL)), pooled.join("\n"));
});
