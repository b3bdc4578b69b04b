// Execute Flow through the run door: the callee (a chatflow or an agentflow of this
// deployment) runs in-process with the caller's chatId and stores its own exchange; a cycle is a
// 400 naming it, with both executions ERROR and no messages anywhere.
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { afEdge, afNode, directReply, executionsOf, messagesOf, openAICredential, saveAgentflowOf, start } from "./flows";

const executeFlow = (target: string, input = "{{ question }}") =>
  afNode("executeFlowAgentflow_0", "Execute Flow 0", { executeFlowSelectedFlow: target, executeFlowInput: input });

async function callerOf(target: string, input?: string) {
  return (await saveAgentflowOf([start(), executeFlow(target, input)], [afEdge("startAgentflow_0", "executeFlowAgentflow_0")])).id;
}

describe("Execute Flow", () => {
  it("runs another agentflow with the same chatId; each flow keeps its own execution and messages", async () => {
    const { id: callee } = await saveAgentflowOf(
      [start(), directReply("directReplyAgentflow_0", "child heard: {{ question }}")],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    const caller = await callerOf(callee, "relay {{ question }}");
    const answer = await json("POST", `/prediction/${caller}`, { body: { question: "ping", chatId: "c-exec" } });
    expect(answer.text).toBe("child heard: relay ping");
    const [calleeExecution] = await executionsOf(callee);
    expect(calleeExecution).toMatchObject({ state: "FINISHED", sessionId: "c-exec" });
    expect((await messagesOf(callee)).map((m) => [m.content, m.chatId])).toEqual([
      ["relay ping", "c-exec"],
      ["child heard: relay ping", "c-exec"],
    ]);
    expect((await messagesOf(caller)).map((m) => m.content)).toEqual(["ping", "child heard: relay ping"]);
  });

  it("runs a chatflow (the llm-chain template) as the callee", async () => {
    const cred = await openAICredential();
    const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
      for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
    });
    const chatflow = (await json("POST", "/chatflows", { body: { name: "chain", flowData } })).id;
    const caller = await callerOf(chatflow);
    const answer = await json("POST", `/prediction/${caller}`, { body: { question: "socks" } });
    expect(answer.text).toContain("What is a good name for a company that makes socks?");
    expect((await messagesOf(chatflow)).map((m) => m.content)).toEqual(["socks", answer.text]);
  });

  it("a cycle (A → B → A) is a 400 naming it; both executions ERROR, no messages", async () => {
    const { id: b } = await saveAgentflowOf([start()], []);
    const a = await callerOf(b);
    // B now calls A.
    await json("PUT", `/chatflows/${b}`, {
      body: {
        flowData: JSON.stringify({ nodes: [start(), executeFlow(a)], edges: [afEdge("startAgentflow_0", "executeFlowAgentflow_0")] }),
      },
    });
    const err = await expectError(await call("POST", `/prediction/${a}`, { body: { question: "loop" } }), 400);
    expect(err.message).toContain("cycle");
    for (const flow of [a, b]) {
      expect((await executionsOf(flow)).map((e) => e.state)).toEqual(["ERROR"]);
      expect(await messagesOf(flow)).toEqual([]);
    }
  });

  it("an unknown callee is a 404-named failure, not a 500", async () => {
    const caller = await callerOf(crypto.randomUUID());
    const res = await call("POST", `/prediction/${caller}`, { body: { question: "x" } });
    const err = await expectError(res, 404);
    expect(err.message).toMatch(/not found/);
  });
});
