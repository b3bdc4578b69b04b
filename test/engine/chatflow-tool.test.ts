// ChatflowTool, agentAsTool and jsonPathExtractor in a Tool Agent chatflow. The flow tools call
// another flow of this deployment through the run door (as Agentflow's Execute Flow): the callee
// runs with the caller's chatId, stores its exchange under its own flow, and its answer is the
// tool's result the agent's model reads. A flow calling itself is a 400; a cycle is refused when
// the callee builds its tool, which the caller's model reads as the tool's error.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { afEdge, afNode, directReply, messagesOf, modelConfig, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { callOf, toolAgentFlow } from "./agents-flows";
import llmChain from "./fixtures/llm-chain.json";
import { type Fixture, flowDataOf, marker, pointAtStandin, requestsWith } from "./helpers";

const save = async (name: string, flowData: string): Promise<string> => (await json("POST", "/chatflows", { body: { name, flowData } })).id;

/** A Tool Agent chatflow (the stand-in as its model, no memory) with one tool node. */
const agentWith = (credential: string, tool: { id: string; name: string; inputs: Record<string, unknown> }) =>
  toolAgentFlow({ credential, calculator: false, memory: false, nodes: [tool] });

const chatflowToolNode = (selectedChatflow: string, inputs: Record<string, unknown> = {}) => ({
  id: "ChatflowTool_0",
  name: "ChatflowTool",
  inputs: { selectedChatflow, name: "ask_names", description: "Finds a company name for a product", ...inputs },
});

async function llmChainFlow(credential: string): Promise<string> {
  const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
    for (const n of nodes.values()) if (n.data.category === "Chat Models") pointAtStandin(n, credential);
  });
  return save("namer", flowData);
}

describe("ChatflowTool", () => {
  it("the agent's tool call runs the chosen chatflow; its answer is the tool result, its messages are its own", async () => {
    const cred = await openAICredential();
    const callee = await llmChainFlow(cred);
    const caller = await save("agent", agentWith(cred, chatflowToolNode(callee)));
    const m = marker();
    const answer = await json("POST", `/prediction/${caller}`, {
      body: { question: `name one ${callOf("ask_names", { input: `socks ${m}` })}`, chatId: `chat-${m}` },
    });
    const calleeAnswer = `echo: What is a good name for a company that makes socks ${m}?`;
    expect(answer.text).toBe(`tools said: ${calleeAnswer}`);
    expect(answer.usedTools).toEqual([{ tool: "ask_names", toolInput: { input: `socks ${m}` }, toolOutput: calleeAnswer }]);

    // The callee's model got the chain's prompt; the agent's model got the callee's answer as the tool message.
    const asked = await requestsWith(m);
    expect(asked.some((r) => r.body.messages.at(-1)?.content === `What is a good name for a company that makes socks ${m}?`)).toBe(true);
    const last = asked.at(-1)!.body.messages.at(-1) as { role: string; content: string };
    expect(last).toMatchObject({ role: "tool", content: calleeAnswer });

    // Stored under each flow, the callee's with the caller's chatId.
    expect((await messagesOf(callee)).map((x) => [x.role, x.content, x.chatId])).toEqual([
      ["userMessage", `socks ${m}`, `chat-${m}`],
      ["apiMessage", calleeAnswer, `chat-${m}`],
    ]);
    expect((await messagesOf(caller)).map((x) => x.content)).toEqual([expect.stringContaining("name one"), answer.text]);
  });

  it("useQuestionFromChat sends the chat's question instead of the model's input; startNewSession a new chatId", async () => {
    const cred = await openAICredential();
    const callee = await llmChainFlow(cred);
    const caller = await save("agent", agentWith(cred, chatflowToolNode(callee, { useQuestionFromChat: true, startNewSession: true })));
    const m = marker();
    const question = `boots ${m} ${callOf("ask_names", { input: "ignored" })}`;
    const answer = await json("POST", `/prediction/${caller}`, { body: { question, chatId: `chat-${m}` } });
    expect(answer.text).toBe(`tools said: echo: What is a good name for a company that makes ${question}?`);
    const [stored] = await messagesOf(callee);
    expect(stored.content).toBe(question);
    expect(stored.chatId).not.toBe(`chat-${m}`);
  });

  it("a chatflow calling itself is a 400; a cycle (A → B → A) is refused and A's model reads why", async () => {
    const cred = await openAICredential();
    const self = await save("self", agentWith(cred, chatflowToolNode(crypto.randomUUID())));
    await json("PUT", `/chatflows/${self}`, { body: { flowData: agentWith(cred, chatflowToolNode(self)) } });
    const err = await expectError(await call("POST", `/prediction/${self}`, { body: { question: "loop" } }), 400);
    expect(err.message).toContain("Cannot call the same chatflow");

    const b = await save("b", agentWith(cred, chatflowToolNode(crypto.randomUUID())));
    const a = await save("a", agentWith(cred, chatflowToolNode(b, { name: "ask_b" })));
    await json("PUT", `/chatflows/${b}`, { body: { flowData: agentWith(cred, chatflowToolNode(a, { name: "ask_a" })) } });
    const answer = await json("POST", `/prediction/${a}`, { body: { question: `go ${callOf("ask_b", { input: "hi" })}` } });
    expect(answer.text).toMatch(/^tools said: Error: .*would make a cycle \(.*\)/);
    expect(answer.text).toContain(`${a} → ${b} → ${a}`);
    expect(await messagesOf(b)).toEqual([]);
  });
});

describe("ChatflowTool in an agentflow's Agent node", () => {
  it("the Agent calls the chatflow through the same door; its answer is the tool's result", async () => {
    const cred = await openAICredential();
    const callee = await llmChainFlow(cred);
    const agent = afNode("agentAgentflow_0", "Agent 0", {
      agentModel: "chatOpenAI",
      agentModelConfig: modelConfig(cred, { streaming: false }),
      agentMessages: [],
      agentTools: [
        {
          agentSelectedTool: "ChatflowTool",
          agentSelectedToolConfig: { selectedChatflow: callee, name: "ask_names", description: "Finds a company name" },
        },
      ],
    });
    const { id } = await saveAgentflowOf([start(), agent], [afEdge("startAgentflow_0", "agentAgentflow_0")]);
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: callOf("ask_names", { input: `kites ${m}` }) } });
    expect(answer.text).toContain(`tools said: echo: What is a good name for a company that makes kites ${m}?`);
    expect((await messagesOf(callee)).map((x) => x.content)).toEqual([
      `kites ${m}`,
      `echo: What is a good name for a company that makes kites ${m}?`,
    ]);
  });
});

describe("the flow pickers (POST /node-load-method)", () => {
  it("Chatflow Tool lists every flow with its kind; Agent as Tool lists the agentflows", async () => {
    const chatflow = await save(`picker ${marker()}`, '{"nodes":[],"edges":[]}');
    const { id: agentflow } = await saveAgentflowOf([start()], []);
    const load = (node: string, loadMethod: string) => json<any[]>("POST", `/node-load-method/${node}`, { body: { loadMethod } });
    const flows = await load("ChatflowTool", "listChatflows");
    expect(flows.find((f) => f.name === chatflow)).toMatchObject({ description: "Chatflow" });
    expect(flows.find((f) => f.name === agentflow)).toMatchObject({ description: "AgentflowV2" });
    const agents = (await load("agentAsTool", "listAgentflows")).map((f) => f.name);
    expect(agents).toContain(agentflow);
    expect(agents).not.toContain(chatflow);
  });
});

describe("agentAsTool", () => {
  it("runs the chosen agentflow as a tool: its answer is the tool's result", async () => {
    const cred = await openAICredential();
    const { id: agentflow } = await saveAgentflowOf(
      [start(), directReply("directReplyAgentflow_0", "child heard: {{ question }}")],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    const tool = {
      id: "agentAsTool_0",
      name: "agentAsTool",
      inputs: { selectedAgentflow: agentflow, name: "ask_agent", description: "Asks the helper agent" },
    };
    const caller = await save("agent", agentWith(cred, tool));
    const answer = await json("POST", `/prediction/${caller}`, { body: { question: callOf("ask_agent", { input: "ping" }) } });
    expect(answer.text).toBe("tools said: child heard: ping");
    expect((await messagesOf(agentflow)).map((x) => x.content)).toEqual(["ping", "child heard: ping"]);
  });
});

describe("jsonPathExtractor", () => {
  it("answers the value at its path; a path that finds nothing is an error the model reads (or null)", async () => {
    const cred = await openAICredential();
    const tool = (inputs: Record<string, unknown>) => ({ id: "jsonPathExtractor_0", name: "jsonPathExtractor", inputs });
    const found = await save("json", agentWith(cred, tool({ path: "[0][1]" })));
    const ask = (args: Record<string, unknown>) => callOf("json_path_extractor", args);
    const hit = await json("POST", `/prediction/${found}`, { body: { question: ask({ json: '[["a","Ada"]]' }) } });
    expect(hit.text).toBe("tools said: Ada");
    const miss = await json("POST", `/prediction/${found}`, { body: { question: ask({ json: "[]" }) } });
    expect(miss.text).toBe('tools said: Error: Path "[0][1]" not found in JSON. Received: []');

    const lenient = await save("json null", agentWith(cred, tool({ path: "user.name", returnNullOnError: true })));
    const none = await json("POST", `/prediction/${lenient}`, { body: { question: ask({ json: "not json" }) } });
    expect(none.text).toBe("tools said: null");
  });
});
