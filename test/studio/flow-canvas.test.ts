// What the canvas and its chat read about a saved flow: has-changed, flow-config, chatflows-uploads,
// stats; chatType[] on chat messages and ?type= on assistants.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, sleep, uuid } from "../helpers";

const EMPTY = '{"nodes":[],"edges":[]}';

const createFlow = (body: Record<string, unknown> = {}) =>
  json("POST", "/chatflows", { body: { name: `canvas-${uuid()}`, flowData: EMPTY, ...body } });

async function addMessage(flowId: string, m: { role: string; chatType: string; sessionId: string | null; createdDate: string }) {
  const id = uuid();
  await env.DB.prepare(
    "INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, sessionId, createdDate) VALUES (?, ?, ?, 'x', ?, ?, ?, ?)",
  )
    .bind(id, m.role, flowId, m.chatType, m.sessionId ?? "chat", m.sessionId, m.createdDate)
    .run();
  return id;
}

const rate = (flowId: string, messageId: string, rating: string) =>
  env.DB.prepare(
    "INSERT INTO chat_message_feedback (id, chatflowid, chatId, messageId, rating, createdDate) VALUES (?, ?, 'chat', ?, ?, ?)",
  )
    .bind(uuid(), flowId, messageId, rating, new Date().toISOString())
    .run();

describe("has-changed", () => {
  it("compares the flow's updatedDate with the timestamp; an empty one is not a change; unknown is 404", async () => {
    const flow = await createFlow();
    expect(await json("GET", `/chatflows/has-changed/${flow.id}/${encodeURIComponent(flow.updatedDate)}`)).toEqual({ hasChanged: false });
    expect(await json("GET", `/chatflows/has-changed/${flow.id}/`)).toEqual({ hasChanged: false });
    expect(await json("GET", `/chatflows/has-changed/${flow.id}`)).toEqual({ hasChanged: false });
    await sleep();
    const updated = await json("PUT", `/chatflows/${flow.id}`, { body: { name: "renamed" } });
    expect(updated.updatedDate).not.toBe(flow.updatedDate);
    expect(await json("GET", `/chatflows/has-changed/${flow.id}/${encodeURIComponent(flow.updatedDate)}`)).toEqual({ hasChanged: true });
    expect(await json("GET", `/chatflows/has-changed/${flow.id}/${encodeURIComponent(updated.updatedDate)}`)).toEqual({
      hasChanged: false,
    });
    await expectError(await call("GET", `/chatflows/has-changed/${uuid()}/`), 404);
    await expectError(await call("GET", `/chatflows/has-changed/${flow.id}/`, { token: null }), 401);
  });
});

describe("flow-config and chatflows-uploads", () => {
  const flowData = JSON.stringify({
    nodes: [
      {
        id: "chatOpenAI_0",
        data: {
          id: "chatOpenAI_0",
          label: "ChatOpenAI",
          name: "chatOpenAI",
          category: "Chat Models",
          inputs: { allowImageUploads: true },
          inputParams: [
            { label: "Connect Credential", name: "credential", type: "credential", credentialNames: ["openAIApi"] },
            { label: "Temperature", name: "temperature", type: "number" },
            { label: "Reasoning Effort", name: "reasoningEffort", type: "options", options: [{ name: "low" }, { name: "high" }] },
          ],
        },
      },
      { id: "toolAgent_0", data: { id: "toolAgent_0", label: "Tool Agent", name: "toolAgent", category: "Agents", inputParams: [] } },
    ],
    edges: [],
  });

  it("lists the inputs a prediction may override, credential fields included, as Flowise does", async () => {
    const flow = await createFlow({ flowData });
    const config = await json<Record<string, unknown>[]>("GET", `/flow-config/${flow.id}`);
    expect(config).toContainEqual({
      node: "ChatOpenAI",
      nodeId: "chatOpenAI_0",
      label: "Temperature",
      name: "temperature",
      type: "number",
    });
    expect(config).toContainEqual({
      node: "ChatOpenAI",
      nodeId: "chatOpenAI_0",
      label: "Reasoning Effort",
      name: "reasoningEffort",
      type: "low, high",
    });
    expect(config).toContainEqual({
      node: "ChatOpenAI",
      nodeId: "chatOpenAI_0",
      label: "OpenAI Api Key",
      name: "openAIApiKey",
      type: "string",
    });
    await expectError(await call("GET", `/flow-config/${uuid()}`), 404);
  });

  it("POST /node-config lists one node's inputs from its canvas data, as flow-config does for the flow; needs a bearer", async () => {
    const model = JSON.parse(flowData).nodes[0].data;
    const config = await json<Record<string, unknown>[]>("POST", "/node-config", { body: model });
    const flow = await createFlow({ flowData });
    const ofFlow = await json<Record<string, unknown>[]>("GET", `/flow-config/${flow.id}`);
    expect(config).toEqual(ofFlow.filter((c) => c.nodeId === "chatOpenAI_0"));
    expect(config.map((c) => c.name)).toEqual(expect.arrayContaining(["temperature", "reasoningEffort", "openAIApiKey"]));
    expect(await json("POST", "/node-config", { body: { id: "x_0", label: "X" } })).toEqual([]); // no inputParams: nothing to override
    await expectError(await call("POST", "/node-config", { body: model, token: null }), 401);
    await expectError(await call("POST", "/node-config", { raw: "[1]", headers: { "content-type": "application/json" } }), 400);
  });

  it("says what the chat may upload, without a token", async () => {
    const withImages = await createFlow({ flowData });
    const uploads = await json("GET", `/chatflows-uploads/${withImages.id}`, { token: null });
    expect(uploads).toMatchObject({ isImageUploadAllowed: true, isRAGFileUploadAllowed: false, isSpeechToTextEnabled: false });
    expect(uploads.imgUploadSizeAndTypes[0].fileTypes).toContain("image/png");
    // Speech only where its provider can run (docs/speech.md): Workers AI is bound in the tests; a
    // provider needing a credential it does not name cannot (test/speech/ covers the rest).
    const unusable = await createFlow({ speechToText: JSON.stringify({ openAIWhisper: { status: true } }) });
    expect((await json("GET", `/chatflows-uploads/${unusable.id}`, { token: null })).isSpeechToTextEnabled).toBe(false);
    const plain = await createFlow({ speechToText: JSON.stringify({ cloudflareWorkersAI: { status: true } }) });
    expect(await json("GET", `/chatflows-uploads/${plain.id}`, { token: null })).toEqual({
      isSpeechToTextEnabled: true,
      isImageUploadAllowed: false,
      isRAGFileUploadAllowed: false,
      imgUploadSizeAndTypes: [],
      fileUploadSizeAndTypes: [],
    });
    await expectError(await call("GET", `/chatflows-uploads/${uuid()}`, { token: null }), 404);
  });
});

describe("stats and chat type filters", () => {
  it("counts messages, sessions and feedback in SQL, filtered by chatType[] and feedbackType", async () => {
    const flow = await createFlow();
    const t = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s)).toISOString();
    await addMessage(flow.id, { role: "userMessage", chatType: "EXTERNAL", sessionId: "s1", createdDate: t(1) });
    const a1 = await addMessage(flow.id, { role: "apiMessage", chatType: "EXTERNAL", sessionId: "s1", createdDate: t(2) });
    await addMessage(flow.id, { role: "userMessage", chatType: "INTERNAL", sessionId: "s2", createdDate: t(3) });
    const a2 = await addMessage(flow.id, { role: "apiMessage", chatType: "INTERNAL", sessionId: "s2", createdDate: t(4) });
    await addMessage(flow.id, { role: "userMessage", chatType: "INTERNAL", sessionId: "s3", createdDate: t(5) });
    await rate(flow.id, a1, "THUMBS_UP");
    await rate(flow.id, a2, "THUMBS_DOWN");

    expect(await json("GET", `/stats/${flow.id}`)).toEqual({ totalMessages: 5, totalSessions: 3, totalFeedback: 2, positiveFeedback: 1 });
    expect(await json("GET", `/stats/${flow.id}?chatType[]=INTERNAL`)).toEqual({
      totalMessages: 3,
      totalSessions: 2,
      totalFeedback: 1,
      positiveFeedback: 0,
    });
    expect(await json("GET", `/stats/${flow.id}?chatType=${encodeURIComponent('["EXTERNAL"]')}`)).toMatchObject({ totalMessages: 2 });
    expect(await json("GET", `/stats/${flow.id}?feedbackType[]=THUMBS_UP`)).toEqual({
      totalMessages: 2,
      totalSessions: 1,
      totalFeedback: 1,
      positiveFeedback: 1,
    });
    await expectError(await call("GET", `/stats/${flow.id}?chatType[]=NOPE`), 400);
    await expectError(await call("GET", `/stats/${uuid()}`), 404);

    const internal = await json<{ chatType: string }[]>("GET", `/chatmessage/${flow.id}?chatType[]=INTERNAL`);
    expect(internal.map((m) => m.chatType)).toEqual(["INTERNAL", "INTERNAL", "INTERNAL"]);
    const both = await json<unknown[]>("GET", `/chatmessage/${flow.id}?chatType[]=INTERNAL&chatType[]=EXTERNAL`);
    expect(both).toHaveLength(5);
    expect(await json<unknown[]>("GET", `/chatmessage/${flow.id}?chatType=EXTERNAL`)).toHaveLength(2);
  });

  it("filters assistants by ?type=", async () => {
    const custom = await json("POST", "/assistants", { body: { details: { name: "c" }, type: "CUSTOM" } });
    const openai = await json("POST", "/assistants", { body: { details: { name: "o" }, type: "OPENAI" } });
    const customs = await json<{ id: string; type: string }[]>("GET", "/assistants?type=CUSTOM");
    expect(customs.map((a) => a.id)).toContain(custom.id);
    expect(customs.map((a) => a.id)).not.toContain(openai.id);
    expect(customs.every((a) => a.type === "CUSTOM")).toBe(true);
    const paged = await json<{ data: { id: string }[]; total: number }>("GET", "/assistants?type=OPENAI&limit=100");
    expect(paged.data.map((a) => a.id)).toContain(openai.id);
    await expectError(await call("GET", "/assistants?type=NOPE"), 400);
  });
});
