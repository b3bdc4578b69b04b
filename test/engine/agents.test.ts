import { describe, expect, it } from "vitest";
import { iterationLimitMessage } from "../../src/engine/chatflow/nodes/agents";
import { registry } from "../../src/engine/chatflow/registry";
import type { FlowNode, StreamSink, UsedTool } from "../../src/engine";
import { RunAborted } from "../../src/lib/run-control";
import { createTool } from "../../src/services/tools";
import { callOf, customToolNode, toolAgentFlow } from "./agents-flows";
import { canStreamFlow, credential, db, makeCtx, marker, requestsWith, runFlow, runtimeWith, storeTurns } from "./helpers";

const openAI = () => credential("openAIApi", { openAIApiKey: "sk-agent-test" });

/** A sink that records tokens and every usedTools list it was sent. */
function sink() {
  const tokens: string[] = [];
  const usedTools: UsedTool[][] = [];
  const s: StreamSink = {
    token: (t) => tokens.push(t),
    event: (name, data) => void (name === "usedTools" && usedTools.push(structuredClone(data as UsedTool[]))),
  };
  return { sink: s, tokens, usedTools, text: () => tokens.join("") };
}

const tool = (name: string, func: string, schema?: unknown[], description = `the ${name} tool`) =>
  createTool({ db: db() }, { name, description, func, schema: schema ? JSON.stringify(schema) : undefined });

const cityTool = () =>
  tool("lookup_city", "return `${$city} has ${$vars.population ?? 'many'} people`", [
    { property: "city", type: "string", description: "a city", required: true },
  ]);

type Wire = {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};
const wire = (req: { body: unknown }) => (req.body as { messages: Wire[] }).messages;
const offered = (req: { body: unknown }) =>
  ((req.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);

describe("tool-agent.json (serpAPI removed): calculator through the model's tool calling", () => {
  it("calls the calculator, feeds its result back, answers; usedTools and memoryType", async () => {
    const flow = toolAgentFlow({ credential: await openAI() });
    const m = marker();
    const result = await runFlow(flow, makeCtx(`What is 6 times 7? ${callOf("calculator", { input: "6*7" })} ${m}`));
    expect(result).toEqual({
      text: "tools said: 42",
      usedTools: [{ tool: "calculator", toolInput: { input: "6*7" }, toolOutput: "42" }],
      memoryType: "Buffer Memory",
    });
    const [first, second, ...more] = await requestsWith(m);
    expect(more).toHaveLength(0);
    expect(offered(first)).toEqual(["calculator"]);
    expect(first.body.stream).toBe(false);
    expect(wire(first)[0]).toEqual({ role: "system", content: "You are a helpful AI assistant." });
    expect(wire(second).slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_0", type: "function", function: { name: "calculator", arguments: '{"input":"6*7"}' } }],
      },
      { role: "tool", content: "42", tool_call_id: "call_0" },
    ]);
  });

  it("streams: the final answer's tokens only, usedTools as each tool completes", async () => {
    const flow = toolAgentFlow({ credential: await openAI() });
    expect(canStreamFlow(flow)).toBe(true);
    expect(canStreamFlow(toolAgentFlow({ model: { streaming: false } }))).toBe(false);
    const s = sink();
    const m = marker();
    const result = await runFlow(
      flow,
      makeCtx(`${callOf("calculator", { input: "2^10" })} ${callOf("calculator", { input: "3!" })} ${m}`),
      s.sink,
    );
    expect(result.text).toBe("tools said: 1024 | 6");
    expect(s.text()).toBe(result.text);
    expect(s.tokens.length).toBeGreaterThan(2);
    expect(s.usedTools).toEqual([
      [{ tool: "calculator", toolInput: { input: "2^10" }, toolOutput: "1024" }],
      [
        { tool: "calculator", toolInput: { input: "2^10" }, toolOutput: "1024" },
        { tool: "calculator", toolInput: { input: "3!" }, toolOutput: "6" },
      ],
    ]);
    const reqs = await requestsWith(m);
    expect(reqs).toHaveLength(3);
    expect(reqs.every((r) => r.body.stream === true)).toBe(true);
  });
});

describe("custom tools in the agent", () => {
  it("a stored tool with arguments, next to the calculator; several calls in one turn ([parallel])", async () => {
    const city = await cityTool();
    const flow = toolAgentFlow({ credential: await openAI(), nodes: [customToolNode("customTool_0", city.id)] });
    const m = marker();
    const ctx = makeCtx(`[parallel] ${callOf("lookup_city", { city: "Lyon" })} ${callOf("calculator", { input: "1+1" })} ${m}`, {
      vars: { population: "500k" },
    });
    const result = await runFlow(flow, ctx);
    expect(result.text).toBe("tools said: Lyon has 500k people | 2");
    expect(result.usedTools).toEqual([
      { tool: "lookup_city", toolInput: { city: "Lyon" }, toolOutput: "Lyon has 500k people" },
      { tool: "calculator", toolInput: { input: "1+1" }, toolOutput: "2" },
    ]);
    const reqs = await requestsWith(m);
    expect(reqs).toHaveLength(2); // both calls in one turn
    expect(offered(reqs[0]).sort()).toEqual(["calculator", "lookup_city"]);
    const lookup = (reqs[0].body as unknown as { tools: Array<{ function: { name: string; parameters: unknown } }> }).tools.find(
      (t) => t.function.name === "lookup_city",
    )!;
    expect(lookup.function.parameters).toMatchObject({
      properties: { city: { type: "string", description: "a city" } },
      required: ["city"],
    });
  });

  it("a tool that throws, loops forever, or fetches 127.0.0.1: the model gets the error, the run goes on", async () => {
    const thrower = await tool("thrower", `throw new Error("the weather service is down")`);
    const looper = await tool("looper", `while (true) {}`);
    const fetcher = await tool("fetcher", `const r = await fetch("http://127.0.0.1:8787/api/v1/chatflows"); return r.text();`);
    const flow = toolAgentFlow({
      credential: await openAI(),
      nodes: [
        customToolNode("customTool_0", thrower.id),
        customToolNode("customTool_1", looper.id),
        customToolNode("customTool_2", fetcher.id),
      ],
    });
    const ctx = makeCtx(`${callOf("thrower", {})} ${callOf("looper", {})} ${callOf("fetcher", {})} ${marker()}`, {
      runtime: runtimeWith({ TOOL_TIMEOUT_MS: "300" }),
    });
    const result = await runFlow(flow, ctx);
    const outputs = result.usedTools!.map((u) => u.toolOutput);
    expect(outputs).toEqual([
      "Error: the weather service is down",
      expect.stringMatching(/^Error: The function (ran|computed for) longer than its time limit of 300 ms .*stopped$/),
      "Error: TypeError: Outbound request refused: 127.0.0.1 is a loopback address (127.0.0.0/8) (OUTBOUND_ALLOW can list hosts that may be reached)",
    ]);
    expect(result.text).toBe(`tools said: ${outputs.join(" | ")}`);
    // the isolate is still healthy
    const again = await runFlow(
      toolAgentFlow({ credential: await openAI() }),
      makeCtx(`${callOf("calculator", { input: "2*21" })} ${marker()}`),
    );
    expect(again.text).toBe("tools said: 42");
  });

  it("returnDirect: the tool's output is the answer, no further model turn", async () => {
    const direct = await tool("direct_answer", `return "straight from the tool: " + $q`, [
      { property: "q", type: "string", required: true },
    ]);
    const flow = toolAgentFlow({ credential: await openAI(), nodes: [customToolNode("customTool_0", direct.id, { returnDirect: true })] });
    const m = marker();
    const s = sink();
    const result = await runFlow(flow, makeCtx(`${callOf("direct_answer", { q: "hi" })} ${m}`), s.sink);
    expect(result.text).toBe("straight from the tool: hi");
    expect(s.text()).toBe(result.text);
    expect(await requestsWith(m)).toHaveLength(1);
  });

  it("an unknown tool name and arguments that do not fit the schema are errors the model reads", async () => {
    const flow = toolAgentFlow({ credential: await openAI() });
    const result = await runFlow(flow, makeCtx(`${callOf("nosuch", {})} ${callOf("calculator", { expr: "1" })} ${marker()}`));
    expect(result.usedTools![0]).toEqual({
      tool: "nosuch",
      toolInput: {},
      toolOutput: 'Error: there is no tool named "nosuch". The tools are: calculator.',
    });
    expect(result.usedTools![1].toolOutput).toMatch(/^Error: Received tool input did not match expected schema/);
  });

  it("a very long tool output is cut for the model (and for the stored message)", async () => {
    const big = await tool("big", `return "x".repeat(60000)`);
    const result = await runFlow(
      toolAgentFlow({ credential: await openAI(), nodes: [customToolNode("customTool_0", big.id)] }),
      makeCtx(`${callOf("big", {})} ${marker()}`),
    );
    expect(result.usedTools![0].toolOutput).toBe(`${"x".repeat(50000)}… [10000 more characters cut]`);
  });

  it("streamed arguments that are not JSON: the model is told so", async () => {
    const s = sink();
    const result = await runFlow(
      toolAgentFlow({ credential: await openAI() }),
      makeCtx(`[call calculator {"input":}] ${marker()}`),
      s.sink,
    );
    expect(result.usedTools).toEqual([
      { tool: "calculator", toolInput: {}, toolOutput: 'Error: the arguments for calculator are not valid JSON: {"input":}' },
    ]);
    expect(s.text()).toBe(result.text);
  });

  it("text the model writes alongside tool calls is part of the answer, streamed or not", async () => {
    const flow = toolAgentFlow({ credential: await openAI() });
    const q = `[chatty] ${callOf("calculator", { input: "7*6" })}`;
    const plain = await runFlow(flow, makeCtx(`${q} ${marker()}`));
    expect(plain.text).toBe("Calling calculator.\n\ntools said: 42");
    const s = sink();
    const streamed = await runFlow(flow, makeCtx(`${q} ${marker()}`), s.sink);
    expect(streamed.text).toBe(plain.text);
    expect(s.text()).toBe(plain.text);
  });

  it("the run's abort stops a tool that is still running", async () => {
    const slow = await tool("slow", `await new Promise((r) => setTimeout(r, 3000)); return "late"`);
    const flow = toolAgentFlow({ credential: await openAI(), nodes: [customToolNode("customTool_0", slow.id)] });
    const controller = new AbortController();
    const ctx = makeCtx(`${callOf("slow", {})} ${marker()}`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const t0 = Date.now();
    await expect(runFlow(flow, ctx)).rejects.toBeInstanceOf(RunAborted);
    expect(Date.now() - t0).toBeLessThan(2500);
  });
});

describe("maxIterations", () => {
  it("a model that always asks for a tool stops after maxIterations rounds with a clear answer", async () => {
    const flow = toolAgentFlow({ credential: await openAI(), agent: { maxIterations: 3 } });
    const m = marker();
    const s = sink();
    const result = await runFlow(flow, makeCtx(`[tool] ${m}`), s.sink);
    expect(result.text).toBe(iterationLimitMessage(3));
    expect(result.text).toBe("Agent stopped: it used tools 3 times (its maxIterations) without reaching a final answer.");
    expect(s.text()).toBe(result.text);
    expect(result.usedTools).toHaveLength(3);
    expect(result.usedTools!.every((u) => u.tool === "calculator" && u.toolOutput === "4")).toBe(true);
    expect(await requestsWith(m)).toHaveLength(4);
  });

  it("defaults to 10 when the fixture leaves it empty", async () => {
    const m = marker();
    const result = await runFlow(toolAgentFlow({ credential: await openAI() }), makeCtx(`[tool] ${m}`));
    expect(result.usedTools).toHaveLength(10);
    expect(result.text).toBe(iterationLimitMessage(10));
  });
});

describe("memory, system message, other agent nodes", () => {
  it("the buffer memory's turns come between the system message and the question", async () => {
    const flow = toolAgentFlow({ credential: await openAI(), agent: { systemMessage: "Be brief." } });
    const chatflowid = crypto.randomUUID();
    await storeTurns(chatflowid, "s-mem", [
      { role: "userMessage", content: "I live in Oslo" },
      { role: "apiMessage", content: "Noted" },
    ]);
    const m = marker();
    await runFlow(flow, makeCtx(`where do I live? ${m}`, { chatflowid, sessionId: "s-mem" }));
    const [req] = await requestsWith(m);
    expect(wire(req)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "I live in Oslo" },
      { role: "assistant", content: "Noted" },
      { role: "user", content: `where do I live? ${m}` },
    ]);
  });

  it("conversationalAgent and openAIFunctionAgent run the same loop; the conversational one has its own default system message", async () => {
    const cred = await openAI();
    for (const agentName of ["conversationalAgent", "openAIFunctionAgent"]) {
      const m = marker();
      const result = await runFlow(
        toolAgentFlow({ credential: cred, agentName, agent: { systemMessage: "" } }),
        makeCtx(`${callOf("calculator", { input: "9-2" })} ${m}`),
      );
      expect(result.text).toBe("tools said: 7");
      const [req] = await requestsWith(m);
      const system = wire(req)[0].content;
      if (agentName === "conversationalAgent") expect(system).toContain("holds a natural conversation");
      else expect(system).toBe("You are a helpful AI assistant.");
    }
  });

  it("a chatPromptTemplate replaces the system message; input moderation refuses before any model call", async () => {
    const cred = await openAI();
    const prompt = {
      id: "chatPromptTemplate_9",
      name: "chatPromptTemplate",
      category: "Prompts",
      inputs: { systemMessagePrompt: "You are Zed, terse.", humanMessagePrompt: "Q: {input}" },
    };
    const m = marker();
    await runFlow(
      toolAgentFlow({ credential: cred, nodes: [prompt], agent: { chatPromptTemplate: "{{chatPromptTemplate_9.data.instance}}" } }),
      makeCtx(`hello ${m}`),
    );
    const [req] = await requestsWith(m);
    expect(wire(req)).toEqual([
      { role: "system", content: "You are Zed, terse." },
      { role: "user", content: `Q: hello ${m}` },
    ]);

    const moderation = {
      id: "inputModerationSimple_9",
      name: "inputModerationSimple",
      category: "Moderation",
      inputs: { denyList: "forbidden", moderationErrorMessage: "Not here." },
    };
    const flow = toolAgentFlow({
      credential: cred,
      nodes: [moderation],
      agent: { inputModeration: ["{{inputModerationSimple_9.data.instance}}"] },
    });
    const m2 = marker();
    const s = sink();
    const refused = await runFlow(flow, makeCtx(`something forbidden ${m2}`), s.sink);
    expect(refused.text).toBe("Not here.");
    expect(s.text()).toBe("Not here.");
    expect(await requestsWith(m2)).toHaveLength(0);
  });

  it("chainTool: an llmChain answers the tool's input", async () => {
    const cred = await openAI();
    const flow = toolAgentFlow({
      credential: cred,
      nodes: [
        {
          id: "chatOpenAI_9",
          name: "chatOpenAI",
          category: "Chat Models",
          inputs: { modelName: "gpt-4o-mini", basepath: "", streaming: true },
        },
        {
          id: "promptTemplate_9",
          name: "promptTemplate",
          category: "Prompts",
          inputs: { template: "Tell me about {topic}", promptValues: "" },
        },
        {
          id: "llmChain_9",
          name: "llmChain",
          category: "Chains",
          inputs: { model: "{{chatOpenAI_9.data.instance}}", prompt: "{{promptTemplate_9.data.instance}}" },
        },
        {
          id: "chainTool_9",
          name: "chainTool",
          inputs: { name: "ask chain", description: "Knows about topics", returnDirect: false, baseChain: "{{llmChain_9.data.instance}}" },
        },
      ],
    });
    const patched = JSON.parse(flow) as { nodes: FlowNode[] };
    const inner = patched.nodes.find((n) => n.id === "chatOpenAI_9")!;
    const outer = patched.nodes.find((n) => n.id === "chatOpenAI_0")!;
    inner.data.inputs!.basepath = outer.data.inputs!.basepath;
    inner.data.credential = cred;
    const m = marker();
    const result = await runFlow(JSON.stringify(patched), makeCtx(`${callOf("ask_chain", { input: "dogs" })} ${m}`));
    expect(result.usedTools).toEqual([{ tool: "ask_chain", toolInput: { input: "dogs" }, toolOutput: "echo: Tell me about dogs" }]);
    expect(result.text).toBe("tools said: echo: Tell me about dogs");
  });

  it("400 for a model that cannot call tools, and for two tools with one name", async () => {
    const def = registry.get("toolAgent")!;
    const node: FlowNode = {
      id: "toolAgent_0",
      data: { id: "toolAgent_0", name: "toolAgent", label: "Tool Agent", category: "Agents", inputs: {} },
    };
    const calculator = await registry.get("calculator")!.build({ node, inputs: {}, ctx: makeCtx("q") });
    const noTools = { invoke: async () => ({}), stream: async () => ({}), _llmType: () => "workers-ai" };
    await expect(def.build({ node, inputs: { model: noTools, tools: [calculator] }, ctx: makeCtx("q") })).rejects.toMatchObject({
      status: 400,
      message: "Tool Agent: its chat model (workers-ai) cannot call tools; use a model with tool calling (an OpenAI-compatible endpoint)",
    });
    const flow = toolAgentFlow({ credential: await openAI(), nodes: [{ id: "calculator_9", name: "calculator" }] });
    await expect(runFlow(flow, makeCtx("q"))).rejects.toMatchObject({
      status: 400,
      message: "Tool Agent: two of its tools are named calculator; tool names must differ",
    });
  });
});
