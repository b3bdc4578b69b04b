// A sequential agent that requires approval before its tool calls (`interrupt`): the run pauses
// with Flowise's approval question and V1 action (JSON and stream), the execution is STOPPED, and
// `humanInput` resumes it exactly as for Agentflow V2 — proceed runs the tool, reject answers
// without it; the paused message stops offering its buttons. A Tool Node with approval too.
import { describe, expect, it } from "vitest";
import { pointAtStandin } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { eventsOf, executionsOf, messagesOf, openAICredential, readStream } from "../agentflow-api/flows";
import { marker, saveMultiagent, v1Edge as edge, v1Node as node, v1Ref as ref } from "./flows";

async function approvalFlow(kind: "agent" | "toolNode") {
  const credential = await openAICredential();
  const tool = await json("POST", "/tools", {
    body: {
      name: "book_room",
      description: "Books a room",
      schema: JSON.stringify([{ property: "room", type: "string", description: "room name", required: true }]),
      func: "return 'booked ' + $room;",
    },
  });
  const model = node("chatOpenAI_0", "chatOpenAI", "Chat Models", { modelName: "gpt-standin" });
  pointAtStandin(model as never, credential);
  const customTool = node("customTool_0", "customTool", "Tools", { selectedTool: tool.id });
  const start = node("seqStart_0", "seqStart", "Sequential Agents", { model: ref("chatOpenAI_0") });
  const end = node("seqEnd_0", "seqEnd", "Sequential Agents", {});
  const approval = { approvalPrompt: "Approve {tools}?", approveButtonText: "Go", rejectButtonText: "Stop", interrupt: true };
  if (kind === "agent") {
    const agent = node("seqAgent_0", "seqAgent", "Sequential Agents", {
      agentName: "Booker",
      systemMessagePrompt: "You book rooms.",
      tools: [ref("customTool_0")],
      sequentialNode: [ref("seqStart_0")],
      ...approval,
    });
    end.data.inputs = { sequentialNode: ref("seqAgent_0") };
    return saveMultiagent({
      nodes: [model, customTool, start, agent, end] as never,
      edges: [
        edge("chatOpenAI_0", "seqStart_0", "chatOpenAI", "model"),
        edge("customTool_0", "seqAgent_0", "customTool", "tools"),
        edge("seqStart_0", "seqAgent_0", "seqStart", "sequentialNode"),
        edge("seqAgent_0", "seqEnd_0", "seqAgent", "sequentialNode"),
      ],
    });
  }
  const llm = node("seqLLMNode_0", "seqLLMNode", "Sequential Agents", { llmNodeName: "Planner", sequentialNode: [ref("seqStart_0")] });
  const tools = node("seqToolNode_0", "seqToolNode", "Sequential Agents", {
    toolNodeName: "Booking",
    tools: [ref("customTool_0")],
    llmNode: ref("seqLLMNode_0"),
    ...approval,
  });
  end.data.inputs = { sequentialNode: ref("seqToolNode_0") };
  return saveMultiagent({
    nodes: [model, customTool, start, llm, tools, end] as never,
    edges: [
      edge("chatOpenAI_0", "seqStart_0", "chatOpenAI", "model"),
      edge("customTool_0", "seqToolNode_0", "customTool", "tools"),
      edge("seqStart_0", "seqLLMNode_0", "seqStart", "sequentialNode"),
      edge("seqLLMNode_0", "seqToolNode_0", "seqLLMNode", "llmNode"),
      edge("seqToolNode_0", "seqEnd_0", "seqToolNode", "sequentialNode"),
    ],
  });
}

const ask = () => `book it ${marker()} [call book_room {"room":"Blue"}]`;

describe("Agentflow V1 approval (interrupt) through humanInput", () => {
  it("an agent pauses before its tool call; proceed runs it and the agent answers; the execution goes STOPPED → FINISHED", async () => {
    const { id, warning } = await approvalFlow("agent");
    expect(warning).toBeUndefined();
    const paused = await json("POST", `/prediction/${id}`, { body: { question: ask() } });
    expect(paused.text).toBe(`echo: Approve [{"tool":"book_room","toolInput":{"room":"Blue"},"toolOutput":""}]?`);
    expect(paused.action).toMatchObject({
      mapping: { approve: "Go", reject: "Stop", toolCalls: [{ name: "book_room", args: { room: "Blue" } }] },
      elements: [
        { type: "approve-button", label: "Go" },
        { type: "reject-button", label: "Stop" },
      ],
    });
    expect(paused.agentReasoning.map((r: any) => r.agentName)).toEqual(["Booker"]);
    expect((await executionsOf(id)).map((e) => e.state)).toEqual(["STOPPED"]);
    expect((await messagesOf(id))[1].action).toEqual(paused.action);

    const done = await json("POST", `/prediction/${id}`, {
      body: { question: "Go", chatId: paused.chatId, humanInput: { type: "proceed" } },
    });
    expect(done.text).toBe("tools said: booked Blue");
    expect(done.executionId).toBe(paused.executionId);
    expect(done.usedTools).toEqual([{ tool: "book_room", toolInput: { room: "Blue" }, toolOutput: "booked Blue" }]);
    expect(done.agentReasoning.map((r: any) => [r.agentName, r.usedTools.length])).toEqual([["Booker", 1]]);
    expect((await executionsOf(id)).map((e) => e.state)).toEqual(["FINISHED"]);
    const messages = await messagesOf(id);
    expect(messages.map((x) => x.action ?? null)).toEqual([null, null, null, null]);

    // Nothing is left to resume.
    await expectError(
      await call("POST", `/prediction/${id}`, { body: { question: "Go", chatId: paused.chatId, humanInput: { type: "proceed" } } }),
      404,
    );
  });

  it("reject, as a Flowise V1 client sends it (the reject button's label and the action): the tool never runs and the agent answers without it", async () => {
    const { id } = await approvalFlow("agent");
    const paused = await json("POST", `/prediction/${id}`, { body: { question: ask() } });
    const done = await json("POST", `/prediction/${id}`, { body: { question: "Stop", chatId: paused.chatId, action: paused.action } });
    expect(done.executionId).toBe(paused.executionId);
    expect(done.text).toMatch(/^echo: book it/);
    expect(done.usedTools).toEqual([]);
    expect((await executionsOf(id)).map((e) => e.state)).toEqual(["FINISHED"]);
  });

  it("streams the pause (agentReasoning, the question as a token, the action) and the resume", async () => {
    const { id } = await approvalFlow("agent");
    const first = await readStream(await call("POST", `/prediction/${id}`, { body: { question: ask(), streaming: true } }));
    expect(eventsOf(first.frames)).toEqual(["start", "agentReasoning", "token", "action", "usedTools", "metadata", "end"]);
    const action = first.frames[3].data;
    expect(action.elements.map((e: any) => e.type)).toEqual(["approve-button", "reject-button"]);
    const metadata = first.frames[5].data;
    expect(metadata.action).toEqual(action);

    const second = await readStream(
      await call("POST", `/prediction/${id}`, {
        body: { question: "Go", chatId: metadata.chatId, humanInput: { type: "proceed" }, streaming: true },
      }),
    );
    expect(eventsOf(second.frames)).toEqual(["start", "agentReasoning", "token", "usedTools", "metadata", "end"]);
    expect(second.frames[2].data).toBe("tools said: booked Blue");
  });

  it("a Tool Node with approval: the LLM's tool call waits; proceed runs it, reject answers the call as rejected", async () => {
    const { id } = await approvalFlow("toolNode");
    const paused = await json("POST", `/prediction/${id}`, { body: { question: ask() } });
    expect(paused.agentReasoning.map((r: any) => r.agentName)).toEqual(["Planner", "Booking"]);
    expect(paused.action.mapping).toMatchObject({ approve: "Go", reject: "Stop" });
    const done = await json("POST", `/prediction/${id}`, { body: { chatId: paused.chatId, humanInput: { type: "proceed" } } });
    expect(done.text).toBe("booked Blue");
    expect(done.agentReasoning.map((r: any) => r.agentName)).toEqual(["Booking"]);

    const again = await json("POST", `/prediction/${id}`, { body: { question: ask(), chatId: `other-${marker()}` } });
    const rejected = await json("POST", `/prediction/${id}`, {
      body: { chatId: again.chatId, humanInput: { type: "reject", feedback: "not today" } },
    });
    expect(rejected.text).toBe("The user rejected this call to book_room. Feedback: not today");
    expect(rejected.usedTools).toEqual([]);
  });
});
