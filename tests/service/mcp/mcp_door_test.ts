/**
 * The MCP front door never strands an agent: against the real service with keys, the MCP SDK's
 * own client (with and without elicitation) meets a run that waits for approval or for a value.
 * Asked in the client, it approves, rejects or supplies the value and the run ends in the same
 * call; declined, the run stays paused and `wait` follows it to its end once a person approves
 * over HTTP. Progress notifications arrive; another namespace's run is not found.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { repliesAwaited } from "../../../src/service/mcp/replies.ts";
import { openService, type TestService } from "../_service.ts";

type Answer = (
  req: ElicitRequest["params"],
  signal: AbortSignal,
  requestId: string | number,
) => Promise<ElicitResult>;

interface Door {
  client: Client;
  /** The questions the client was asked, in order. */
  asked: ElicitRequest["params"][];
  /** What the client answers next (a test sets it). */
  answer: Answer;
}

/** A client of `/mcp` with `token`; with `answer`, it declares elicitation and answers so. */
async function connect(t: TestService, token: string, elicits: boolean): Promise<Door> {
  const client = new Client(
    { name: "cordon-door-test", version: "1.0.0" },
    elicits ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  const door: Door = {
    client,
    asked: [],
    answer: () => Promise.resolve({ action: "decline" }),
  };
  if (elicits) {
    client.setRequestHandler(
      ElicitRequestSchema,
      (req: ElicitRequest, extra: { signal: AbortSignal; requestId: string | number }) => {
        door.asked.push(req.params);
        return door.answer(req.params, extra.signal, extra.requestId);
      },
    );
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.service.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  await client.listTools(); // the SDK then checks structuredContent against each outputSchema
  return door;
}

interface Answered {
  isError: boolean;
  text: string;
  // deno-lint-ignore no-explicit-any -- structured content is checked field by field
  data: any;
}

async function call(
  door: Door,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (p: { progress: number; message?: string }) => void,
): Promise<Answered> {
  const out = await door.client.callTool({ name, arguments: args }, undefined, {
    ...(onprogress ? { onprogress } : {}),
    timeout: 60_000,
  });
  const content = out.content as { type: string; text?: string }[];
  return {
    isError: out.isError === true,
    text: content.map((c) => c.text ?? "").join("\n"),
    data: out.structuredContent,
  };
}

const accept = (content: Record<string, string>): Answer => () =>
  Promise.resolve({ action: "accept", content });

Deno.test("/mcp front door: elicitation, wait and result, progress, namespaces", async (t) => {
  await using svc = await openService();
  const keys = svc.service.keys;
  const agent = (await keys.create({ name: "agent", scopes: ["execute", "approve"] })).token;
  const runner = (await keys.create({ name: "runner", scopes: ["execute"] })).token;
  const other = (await keys.create({ name: "other", scopes: ["execute"], namespace: "b" })).token;
  const ops = (await keys.create({ name: "ops", scopes: ["admin"] })).token;
  const asking = await connect(svc, agent, true);
  const plain = await connect(svc, agent, false);
  const limited = await connect(svc, runner, true);
  const elsewhere = await connect(svc, other, false);
  const approveOverHttp = (id: string) =>
    svc.call("POST", `/v1/executions/${id}/approve`, {}, { authorization: `Bearer ${ops}` });
  try {
    await t.step(
      "an approval asked in the client and approved completes in the same call",
      async () => {
        asking.answer = accept({ decision: "approve" });
        const out = await call(asking, "execute", {
          code: 'return await mail.send({ to: "ann" })',
        });
        assert.equal(out.data.status, "completed", out.text);
        assert.equal(out.data.result, "sent to ann");
        const [q] = asking.asked.splice(0);
        assert.match(q.message, /mail\.send \(call #1\)/);
        assert.match(q.message, /"to":"ann"/);
        assert.match(q.message, /approves/);
        const schema = q.requestedSchema as { properties: Record<string, { enum?: string[] }> };
        assert.deepEqual(schema.properties.decision.enum, ["approve", "reject"]);
      },
    );

    await t.step(
      "each pause is asked in turn: two gated calls, two questions, one call",
      async () => {
        asking.answer = accept({ decision: "approve" });
        const out = await call(asking, "execute", {
          code: 'const a = await mail.send({ to: "a" }); const b = await mail.send({ to: "b" });' +
            " return [a, b]",
        });
        assert.deepEqual(out.data.result, ["sent to a", "sent to b"], out.text);
        assert.deepEqual(asking.asked.splice(0).map((q) => /"to":"(\w)"/.exec(q.message)?.[1]), [
          "a",
          "b",
        ]);
      },
    );

    await t.step(
      "rejected in the client, the call fails in the script with the reason",
      async () => {
        asking.answer = accept({ decision: "reject", reason: "not on a Sunday" });
        const out = await call(asking, "execute", { code: 'return await mail.send({ to: "bo" })' });
        assert.equal(out.data.status, "rejected", out.text);
        assert.equal(out.isError, true);
        assert.match(out.data.error.message, /not on a Sunday/);
        assert.equal(asking.asked.splice(0).length, 1);
      },
    );

    await t.step(
      "declined: paused, then approved over HTTP, and wait returns completed",
      async () => {
        asking.answer = () => Promise.resolve({ action: "decline" });
        const paused = await call(asking, "execute", {
          code: 'return await mail.send({ to: "cy" })',
        });
        assert.equal(paused.data.status, "paused", paused.text);
        assert.match(paused.data.note, /declined/);
        assert.match(paused.text, /declined in the client\. The run stays paused/);
        const id = paused.data.executionId as string;
        assert.match(paused.text, new RegExp(`\`wait\` tool with \\{"executionId":"${id}"\\}`));
        assert.equal(paused.data.pending[0].tool, "send");
        const waiting = call(plain, "wait", { executionId: id, timeoutMs: 20_000 });
        await new Promise((r) => setTimeout(r, 300));
        const approved = await approveOverHttp(id);
        assert.equal(approved.json.result, "sent to cy");
        const done = await waiting;
        assert.equal(done.data.status, "completed", done.text);
        assert.equal(done.data.result, "sent to cy");
        assert.deepEqual(done.data.calls.map((c: { state: string }) => c.state), ["applied"]);
        const now = await call(plain, "result", { executionId: id });
        assert.equal(now.data.status, "completed");
        assert.match(now.text, /sent to cy/);
      },
    );

    await t.step(
      "without elicitation: paused at once, and wait gives up after its timeout",
      async () => {
        const paused = await call(plain, "execute", {
          code: 'return await mail.send({ to: "di" })',
        });
        assert.equal(paused.data.status, "paused");
        assert.equal(paused.data.note, undefined);
        const started = Date.now();
        const still = await call(plain, "wait", {
          executionId: paused.data.executionId,
          timeoutMs: 400,
        });
        assert.ok(Date.now() - started >= 400);
        assert.equal(still.data.status, "paused");
        assert.equal(still.data.pending[0].seq, 1);
        const tooLong = await plain.client.callTool({
          name: "wait",
          arguments: { executionId: paused.data.executionId, timeoutMs: 10 * 60_000 },
        });
        assert.equal(tooLong.isError, true, "over the 120 s bound");
      },
    );

    await t.step("a key without the approve scope is not asked to approve", async () => {
      limited.answer = accept({ decision: "approve" });
      const out = await call(limited, "execute", { code: 'return await mail.send({ to: "ed" })' });
      assert.equal(out.data.status, "paused", out.text);
      assert.equal(limited.asked.length, 0);
    });

    await t.step(
      "a value asked in the client: bad JSON and a wrong type are asked again",
      async () => {
        const answers = ["yes", "42", '"yes"'];
        limited.answer = () =>
          Promise.resolve({ action: "accept", content: { value: answers.shift()! } });
        const out = await call(limited, "execute", {
          code: 'return await client.ask({ question: "ship it?" })',
        });
        assert.equal(out.data.status, "completed", out.text);
        assert.equal(out.data.result, "yes");
        const asked = limited.asked.splice(0).map((q) => q.message);
        assert.equal(asked.length, 3);
        assert.match(asked[0], /client\.ask \(call #1\)[\s\S]*"question":"ship it\?"[\s\S]*string/);
        assert.match(asked[1], /^That answer was not used: it is not JSON/);
        assert.match(asked[2], /^That answer was not used: invalid_output/);
      },
    );

    await t.step(
      "approved over HTTP while the client is asked: withdrawn, decided once",
      async () => {
        const withdrawn = Promise.withResolvers<string>();
        asking.answer = async (q, signal) => {
          const id = /execution (exec_\w+)/.exec(q.message)![1];
          assert.equal((await approveOverHttp(id)).json.result, "sent to fy");
          if (!signal.aborted) await new Promise((r) => signal.addEventListener("abort", r));
          withdrawn.resolve("withdrawn");
          return { action: "accept", content: { decision: "reject" } };
        };
        const out = await call(asking, "execute", { code: 'return await mail.send({ to: "fy" })' });
        assert.equal(out.data.status, "completed", out.text);
        assert.equal(out.data.result, "sent to fy");
        assert.match(out.data.note, /decided elsewhere/);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise((r) => timer = setTimeout(() => r("still asked"), 5_000));
        assert.equal(await Promise.race([withdrawn.promise, late]), "withdrawn");
        clearTimeout(timer);
        const stored = await svc.service.runtime.execution(out.data.executionId);
        assert.deepEqual(stored?.calls.map((c) => c.state), ["applied"]);
        asking.asked.splice(0);
      },
    );

    await t.step("a reply from another namespace's key does not answer a question", async () => {
      let forged = 0;
      asking.answer = async (_q, _signal, requestId) => {
        const res = await fetch(`${svc.service.url}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${other}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: requestId,
            result: { action: "accept", content: { decision: "approve" } },
          }),
        });
        forged = res.status;
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 200));
        return { action: "decline" };
      };
      const out = await call(asking, "execute", { code: 'return await mail.send({ to: "zed" })' });
      assert.equal(forged, 202, "accepted and dropped, as a late reply is");
      assert.equal(out.data.status, "paused", out.text);
      assert.match(out.data.note, /declined/);
      asking.asked.splice(0);
    });

    await t.step("progress notifications: calls, a pause and a resume", async () => {
      asking.answer = async () => {
        await new Promise((r) => setTimeout(r, 300));
        return { action: "accept", content: { decision: "approve" } };
      };
      const said: { progress: number; message?: string }[] = [];
      const out = await call(asking, "execute", {
        code: "for (let i = 0; i < 3; i++) {" +
          " await math.add({ a: i, b: 1 }); await new Promise((r) => setTimeout(r, 300)); }" +
          ' return await mail.send({ to: "gus" })',
      }, (p) => said.push(p));
      assert.equal(out.data.result, "sent to gus", out.text);
      const messages = said.map((p) => p.message ?? "");
      assert.ok(messages.some((m) => /3 calls, last: math\.add/.test(m)), messages.join(" | "));
      assert.ok(messages.some((m) => /^paused: waiting for a decision on mail\.send/.test(m)));
      assert.ok(messages.some((m) => /^resumed/.test(m)), messages.join(" | "));
      const progress = said.map((p) => p.progress);
      assert.deepEqual(progress, [...progress].sort((a, b) => a - b), "progress only grows");
      asking.asked.splice(0);
    });

    await t.step(
      "execute_code: a block's pause is asked too; dismissed, it says how to go on",
      async () => {
        asking.answer = accept({ decision: "approve" });
        const text =
          '```ts\nconst sent = await mail.send({ to: "ivy" });\n```\n```ts\nreturn sent\n```';
        const ran = await call(asking, "execute_code", { text });
        assert.equal(ran.data.exitCode, 0, ran.text);
        assert.match(ran.data.output, /sent to ivy/);
        asking.answer = () => Promise.resolve({ action: "cancel" });
        const held = await call(asking, "execute_code", { text });
        assert.equal(held.data.exitCode, 1);
        assert.match(
          held.data.output,
          /paused: execution exec_\w+ waits for a decision on mail\.send/,
        );
        assert.match(held.data.next, /call the `wait` tool with \{"executionId":"exec_\w+"\}/);
        assert.equal(asking.asked.splice(0).length, 2);
      },
    );

    await t.step(
      "result and wait for another namespace's id answer as for an unknown id",
      async () => {
        const mine = await call(plain, "execute", { code: "return 1" });
        const foreign = await call(elsewhere, "result", { executionId: mine.data.executionId });
        const unknown = await call(elsewhere, "result", { executionId: "exec_nope" });
        assert.equal(foreign.isError, true);
        assert.match(foreign.text, /^execution_not_found: There is no execution exec_/);
        assert.equal(
          foreign.text.replace(mine.data.executionId, "X"),
          unknown.text.replace("exec_nope", "X"),
        );
        const waited = await call(elsewhere, "wait", { executionId: mine.data.executionId });
        assert.match(waited.text, /^execution_not_found/);
      },
    );

    await t.step(
      "a client that accepts only JSON gets JSON, and paused runs are not asked",
      async () => {
        const res = await fetch(`${svc.service.url}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${agent}`,
            "content-type": "application/json",
            accept: "application/json",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: {
              name: "execute",
              arguments: { code: 'return await mail.send({ to: "hal" })' },
            },
          }),
        });
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
        const body = await res.json();
        assert.equal(body.id, 7);
        assert.equal(body.result.structuredContent.status, "paused");
      },
    );
    assert.equal(repliesAwaited(), 0, "no question is left waiting");
  } finally {
    for (const d of [asking, plain, limited, elsewhere]) await d.client.close();
  }
});
