/**
 * A new process's first burst: a runtime with the shipped defaults (in memory), ten trivial
 * runs, then 50 runs at once sleeping 200 ms in a host tool. Prints `{ wallMs, stallMs }`.
 * `bench/concurrent.ts` runs it as `freshProcess`.
 *
 * @module
 */
import { createRuntime } from "../mod.ts";
import { clock, sleepingBurst } from "./concurrent.ts";

await using rt = await createRuntime({ connectors: [clock], db: ":memory:" });
for (let i = 0; i < 10; i++) await rt.execute({ code: "return 1" });
await rt.warm();
console.log(JSON.stringify(await sleepingBurst(rt)));
