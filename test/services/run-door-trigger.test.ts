// A new trigger is one adapter file over the run door (src/services/runs): fake-trigger.ts runs a
// chatflow and an agentflow exactly as POST /prediction would — same model call, same stored
// messages and execution rows — with its own chatType and its own answer shape. And the trigger
// table's rules: caller checks for a trigger that asks for them, a triggered flow refused elsewhere, the
// `resume` trigger continuing the execution it names.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { CallerRefused, runFlow } from "../../src/services/runs";
import { ADMIN_KEY, json } from "../helpers";
import {
  afEdge,
  approvalFlow,
  llm,
  messagesOf,
  openAICredential as agentflowCredential,
  saveAgentflowOf,
  start,
} from "../agentflow-api/flows";
import { db, runtimeWith } from "../engine/helpers";
import { openAICredential, saveChain, standinRequests } from "../security/helpers";
import { QUEUE_TRIGGER, runQueueJob } from "./fake-trigger";

const ports = () => ({ db: db(), env: env as unknown as Env, runtime: runtimeWith() });
const marker = () => `job ${crypto.randomUUID().slice(0, 8)}`;

describe("a trigger defined in one adapter file", () => {
  it("runs a chatflow: the model is called with the job's text, both messages stored with the trigger's chatType", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
    const text = marker();
    const done = await runQueueJob(ports(), { flowId: id, text, conversation: "conv-1" });
    expect(done).toEqual({ reply: `echo: ${text}`, conversation: "conv-1", executionId: undefined });
    expect(await standinRequests(text)).toHaveLength(1);
    const messages = await messagesOf(id);
    expect(messages.map((m) => [m.role, m.content, m.chatType, m.chatId, m.sessionId])).toEqual([
      ["userMessage", text, "INTERNAL", "conv-1", "conv-1"],
      ["apiMessage", `echo: ${text}`, "INTERNAL", "conv-1", "conv-1"],
    ]);
  });

  it("runs an agentflow: an execution row FINISHED, its two messages INTERNAL and tied to it", async () => {
    const credential = await agentflowCredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", credential)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const text = marker();
    const done = await runQueueJob(ports(), { flowId: id, text });
    expect(done.reply).toBe(`echo: ${text}`);
    expect(done.executionId).toEqual(expect.any(String));

    const execution = await json("GET", `/executions/${done.executionId}`);
    expect(execution).toMatchObject({ agentflowId: id, sessionId: done.conversation, state: "FINISHED" });
    expect(JSON.parse(execution.executionData).map((e: any) => [e.nodeId, e.status])).toEqual([
      ["startAgentflow_0", "FINISHED"],
      ["llmAgentflow_0", "FINISHED"],
    ]);
    const messages = await messagesOf(id);
    expect(messages.map((m) => [m.role, m.content, m.chatType, m.executionId])).toEqual([
      ["userMessage", text, "INTERNAL", done.executionId],
      ["apiMessage", `echo: ${text}`, "INTERNAL", done.executionId],
    ]);
  });

  it("delivers the door's event stream its own way: the tokens as the model sent them, the same stored answer", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
    const text = marker();
    const done = await runQueueJob(ports(), { flowId: id, text, stream: true });
    expect(done.tokens!.length).toBeGreaterThan(1);
    expect(done.reply).toBe(`echo: ${text}`);
    const messages = await messagesOf(id);
    expect(messages.map((m) => [m.role, m.content, m.chatType, m.chatId])).toEqual([
      ["userMessage", text, "INTERNAL", done.conversation],
      ["apiMessage", `echo: ${text}`, "INTERNAL", done.conversation],
    ]);
  });

  it("a trigger whose rule checks the caller: a private flow refuses a caller without a bearer (401) and stores nothing", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
    const checked = { ...QUEUE_TRIGGER, id: "queue-job-checked", access: "caller" as const };
    const text = marker();
    const refused = runQueueJob(ports(), { flowId: id, text }, checked, { clientIp: "203.0.113.9" });
    await expect(refused).rejects.toBeInstanceOf(CallerRefused);
    await expect(refused).rejects.toMatchObject({
      status: 401,
      message: "Unauthorized: this chatflow is not public; a bearer token is required",
    });
    expect(await standinRequests(text)).toHaveLength(0);
    expect(await messagesOf(id)).toEqual([]);

    const done = await runQueueJob(ports(), { flowId: id, text }, checked, {
      clientIp: "203.0.113.9",
      authorization: `Bearer ${ADMIN_KEY}`,
    });
    expect(done.reply).toBe(`echo: ${text}`);
  });

  it("an unknown flow is a 404 before the model is called", async () => {
    await expect(runQueueJob(ports(), { flowId: crypto.randomUUID(), text: marker() })).rejects.toMatchObject({ status: 404 });
  });
});

describe("the trigger table", () => {
  const deps = () => ({ ...ports(), waitUntil: () => undefined });

  it("a flow whose Start node is a webhook or a schedule runs only through that trigger (400 elsewhere); nothing runs", async () => {
    const cred = await agentflowCredential();
    const text = marker();
    const hooked = await saveAgentflowOf(
      [start({ startInputType: "webhookTrigger" }), llm("llmAgentflow_0", cred)],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
    await expect(
      runFlow(deps(), { trigger: "execute-flow", flowId: hooked.id, input: { question: text }, delivery: "json" }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining(`/api/v1/webhook/${hooked.id}`) });
    const scheduled = await saveAgentflowOf(
      [
        start({ startInputType: "scheduleInput", scheduleCronExpression: "0 0 * * *", scheduleDefaultInput: "x" }),
        llm("llmAgentflow_0", cred),
      ],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
    await expect(
      runFlow(deps(), { trigger: "mcp", flowId: scheduled.id, input: { question: text }, delivery: "json" }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("Scheduled Trigger") });
    await expect(
      runFlow(deps(), { trigger: "webhook", flowId: scheduled.id, input: { question: text }, delivery: "json" }),
    ).rejects.toMatchObject({ status: 400 });
    expect(await standinRequests(text)).toHaveLength(0);
    await json("DELETE", `/chatflows/${scheduled.id}`);
  });

  it("a trigger refuses a delivery it does not offer, and humanInput where it takes none (400)", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
    const text = marker();
    await expect(
      runFlow(deps(), { trigger: "execute-flow", flowId: id, input: { question: text }, delivery: "sse" }),
    ).rejects.toMatchObject({ status: 400, message: "The execute-flow trigger does not deliver sse answers" });
    await expect(
      runFlow(deps(), {
        trigger: "execute-flow",
        flowId: id,
        input: { question: text, humanInput: { type: "proceed" } },
        delivery: "json",
      }),
    ).rejects.toMatchObject({ status: 400, message: "humanInput cannot be sent through the execute-flow trigger" });
    expect(await standinRequests(text)).toHaveLength(0);
  });

  it("resume continues the execution humanInput.executionId names (and needs one, on an agentflow)", async () => {
    const flow = approvalFlow("Send it?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const caller = { clientIp: "203.0.113.9", authorization: `Bearer ${ADMIN_KEY}` };
    const paused = await json("POST", `/prediction/${id}`, { body: { question: "draft", chatId: "resume-chat" } });
    expect(paused.action).toBeTruthy();

    await expect(
      runFlow(deps(), {
        trigger: "resume",
        flowId: id,
        input: { humanInput: { type: "proceed" }, chatId: "resume-chat" },
        caller,
        delivery: "json",
      }),
    ).rejects.toMatchObject({ status: 400, message: "A resume names the paused execution: humanInput.executionId" });
    const chatflow = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
    await expect(
      runFlow(deps(), {
        trigger: "resume",
        flowId: chatflow,
        input: { humanInput: { type: "proceed", executionId: paused.executionId } },
        caller,
        delivery: "json",
      }),
    ).rejects.toMatchObject({ status: 400, message: `Flow ${chatflow} is not an agentflow: it has no paused execution to resume` });

    const delivered = await runFlow(deps(), {
      trigger: "resume",
      flowId: id,
      input: { question: "Proceed", humanInput: { type: "proceed", executionId: paused.executionId } },
      caller,
      delivery: "json",
    });
    expect(delivered).toMatchObject({ kind: "json", body: { text: "approved", executionId: paused.executionId, chatId: "resume-chat" } });
    expect((await json("GET", `/executions/${paused.executionId}`)).state).toBe("FINISHED");
    expect((await messagesOf(id)).map((m) => [m.role, m.content, m.chatType])).toEqual([
      ["userMessage", "draft", "EXTERNAL"],
      ["apiMessage", paused.text, "EXTERNAL"],
      ["userMessage", "Proceed", "EXTERNAL"],
      ["apiMessage", "approved", "EXTERNAL"],
    ]);
  });
});
