// deno test --allow-all examples/weather_connector_test.ts
//
// How a connector author tests a connector with Cordon's test kit. Copy it, swap in your
// connector, keep the tests that fit: each one runs real model-like code in the real sandbox.
import assert from "node:assert/strict";
import { z } from "zod";
import { defineConnector } from "@cordon/runtime";
import {
  assertCalls,
  callsTo,
  createTestKit,
  expectCompleted,
  expectError,
  expectPaused,
} from "@cordon/runtime/testing";

/** A stand-in for the weather service's API: in your tests, a fake of your backend. */
const FORECASTS: Record<string, { highC: number; lowC: number; summary: string }[]> = {
  oslo: [
    { highC: 7, lowC: 1, summary: "Rain" },
    { highC: 9, lowC: 3, summary: "Cloudy" },
    { highC: 11, lowC: 4, summary: "Sun" },
  ],
  bergen: [
    { highC: 6, lowC: 2, summary: "Rain" },
    { highC: 6, lowC: 3, summary: "Rain" },
    { highC: 8, lowC: 4, summary: "Showers" },
  ],
};

/** Alerts the connector has sent, so a test can check what reached subscribers. */
const sent: { region: string; message: string }[] = [];

const weather = defineConnector({
  name: "weather",
  description: "Weather forecasts and alerts for Norwegian cities",
  tools: {
    forecast: {
      description: "Daily forecast for a city, today first",
      input: z.object({
        city: z.string().describe("City name, e.g. Oslo"),
        days: z.number().int().min(1).max(3).default(1).describe("Days to forecast (1-3)"),
      }),
      output: z.object({
        city: z.string(),
        days: z.array(z.object({ highC: z.number(), lowC: z.number(), summary: z.string() })),
      }),
      readOnly: true,
      execute: ({ city, days }) => {
        const found = FORECASTS[city.toLowerCase()];
        if (!found) throw new Error(`Unknown city "${city}"; try Oslo or Bergen`);
        return { city, days: found.slice(0, days) };
      },
    },
    alert: {
      description: "Send a weather alert to everyone subscribed to a region",
      input: z.object({ region: z.string(), message: z.string().max(280) }),
      output: z.object({ id: z.string(), recipients: z.number().int() }),
      requiresApproval: true,
      execute: ({ region, message }) => {
        sent.push({ region, message });
        return { id: `alert-${sent.length}`, recipients: 1200 };
      },
    },
    chooseCity: {
      description: "Ask the user which of several cities they mean",
      input: z.object({ options: z.array(z.string()).min(2) }),
      output: z.object({ city: z.string() }),
      resolution: "client",
    },
  },
});

Deno.test("weather: every tool is described and the declarations type-check", async () => {
  await using kit = await createTestKit({ connectors: [weather] });
  kit.assertConnectorsValid();
});

Deno.test("weather: the types a model sees accept good calls and catch bad ones", async () => {
  await using kit = await createTestKit({ connectors: [weather] });
  assert.deepEqual(
    kit.typecheck('const f = await weather.forecast({ city: "Oslo" }); return f.days[0].highC'),
    [],
  );
  const [problem] = kit.typecheck('return await weather.forecast({ town: "Oslo" })');
  assert.match(problem.message, /town/);
});

Deno.test("weather.forecast: recorded samples match the output schema", async () => {
  await using kit = await createTestKit({ connectors: [weather] });
  kit.assertOutputMatches("weather.forecast", {
    city: "Oslo",
    days: [{ highC: 7, lowC: 1, summary: "Rain" }],
  });
  assert.equal(
    kit.checkOutput("weather.forecast", { city: "Oslo", days: [{ highC: "7" }] }).ok,
    false,
  );
});

Deno.test("weather.forecast: a model's script compares two cities", async () => {
  await using kit = await createTestKit({ connectors: [weather] });
  const result = await kit.run(
    `
    const [oslo, bergen] = await Promise.all(
      input.cities.map((city) => weather.forecast({ city, days: 3 })),
    );
    const wettest = (f) => f.days.filter((d) => d.summary === "Rain").length;
    return wettest(oslo) > wettest(bergen) ? oslo.city : bergen.city;
  `,
    { cities: ["Oslo", "Bergen"] },
  );
  assert.equal(expectCompleted(result), "Bergen");
  // Promise.all sends both calls at once, so their order in the log is not fixed:
  // pick them out with callsTo() instead of asserting the sequence.
  const calls = callsTo(result, "weather.forecast");
  assert.deepEqual(calls.map((c) => (c.args as { city: string }).city).sort(), ["Bergen", "Oslo"]);
  assert.ok(calls.every((c) => c.state === "applied" && (c.args as { days: number }).days === 3));
});

Deno.test("weather.forecast: an unknown city fails the call with a message the model can use", async () => {
  await using kit = await createTestKit({ connectors: [weather] });
  const result = await kit.run('return await weather.forecast({ city: "Atlantis" })');
  const error = expectError(result, "tool_error");
  assert.match(error.message, /try Oslo or Bergen/);
  assertCalls(result, [{ tool: "weather.forecast", args: { city: "Atlantis" }, state: "error" }]);
});

Deno.test("weather.alert: waits for approval, then sends once", async () => {
  sent.length = 0;
  await using kit = await createTestKit({ connectors: [weather] });
  const code = `
    const { days } = await weather.forecast({ city: "Bergen" });
    if (days[0].summary !== "Rain") return "no alert";
    return await weather.alert({ region: "Bergen", message: "Rain today" });
  `;
  const paused = expectPaused(await kit.run(code));
  assert.deepEqual(paused.pending.map((p) => [p.tool, p.needs]), [["alert", "approval"]]);
  assert.deepEqual(sent, []);

  const done = await kit.approve(paused);
  assert.deepEqual(expectCompleted(done), { id: "alert-1", recipients: 1200 });
  assert.deepEqual(sent, [{ region: "Bergen", message: "Rain today" }]);
  assertCalls(done, [
    { tool: "weather.forecast", args: { city: "Bergen" }, state: "applied" },
    { tool: "weather.alert", args: { region: "Bergen" }, state: "applied" },
  ]);
});

Deno.test("weather.alert: a rejection reaches the script, which can fall back", async () => {
  sent.length = 0;
  await using kit = await createTestKit({ connectors: [weather] });
  const paused = expectPaused(
    await kit.run(`
      try {
        return await weather.alert({ region: "Oslo", message: "Storm" });
      } catch (e) {
        return { skipped: e.code, why: e.message };
      }
    `),
  );
  const done = await kit.reject(paused, "not severe enough");
  assert.deepEqual(expectCompleted(done), {
    skipped: "rejected",
    why: "weather.alert: Rejected: not severe enough",
  });
  assert.deepEqual(sent, []);
  assertCalls(done, [{ tool: "weather.alert", state: "rejected" }]);
});

Deno.test("weather.chooseCity: the client's answer continues the run", async () => {
  await using kit = await createTestKit({ connectors: [weather] });
  const paused = expectPaused(
    await kit.run(`
      const { city } = await weather.chooseCity({ options: ["Oslo", "Bergen"] });
      return (await weather.forecast({ city })).days[0].summary;
    `),
  );
  assert.equal(paused.pending[0].needs, "value");
  const done = await kit.resolve(paused, paused.pending[0].seq, { city: "Oslo" });
  assert.equal(expectCompleted(done), "Rain");
  assertCalls(done, [
    { tool: "weather.chooseCity", args: { options: ["Oslo", "Bergen"] } },
    { tool: "weather.forecast", args: { city: "Oslo" } },
  ]);
});
