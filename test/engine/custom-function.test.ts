// The chatflow customFunction node (Flowise's Custom JS Function): as the ending node it answers
// (JSON and one streamed token); as `output` its value feeds other nodes (an llmChain's prompt,
// another function's input variables); the sandbox sees $input, $<variable>, $vars and $flow; a throw
// and a runaway loop are 400s naming the node. Also over POST /prediction.
import { describe, expect, it } from "vitest";
import type { FlowNode } from "../../src/engine";
import { call, expectError, json } from "../helpers";
import { readStream } from "../agentflow-api/flows";
import llmChain from "./fixtures/llm-chain.json";
import {
  type Fixture,
  canStreamFlow,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  recordingSink,
  requestsWith,
  runFlow,
  runtimeWith,
} from "./helpers";

/** A customFunction node as Flowise's editor saves it (functionInputVariables is a json param that accepts variables). */
function fnNode(id: string, javascriptFunction: string, output: "output" | "EndingNode", functionInputVariables = ""): FlowNode {
  return {
    id,
    position: { x: 0, y: 0 },
    type: "customNode",
    data: {
      id,
      label: "Custom JS Function",
      name: "customFunction",
      category: "Utilities",
      version: 1,
      inputParams: [
        { label: "Input Variables", name: "functionInputVariables", type: "json", optional: true, acceptVariable: true, list: true },
        { label: "Function Name", name: "functionName", type: "string", optional: true },
        { label: "Javascript Function", name: "javascriptFunction", type: "code" },
      ],
      inputs: { functionInputVariables, functionName: "", javascriptFunction },
      outputs: { output },
    },
  } as unknown as FlowNode;
}

const edge = (source: string, target: string, input: string) => ({
  id: `${source}-${target}`,
  source,
  target,
  sourceHandle: `${source}-output-output-string|number|boolean|json|array`,
  targetHandle: `${target}-input-${input}-json`,
});
const flowOf = (nodes: FlowNode[], edges: unknown[] = []) => JSON.stringify({ nodes, edges });
const ending = (code: string, vars = "") => flowOf([fnNode("customFunction_0", code, "EndingNode", vars)]);

async function failure(flow: string, question: string, runtime = runtimeWith()) {
  const err = (await runFlow(flow, makeCtx(question, { runtime })).catch((e: unknown) => e)) as { status?: number; message?: string };
  expect(err).toBeInstanceOf(Error);
  return { status: err.status, message: err.message };
}

describe("customFunction as the ending node", () => {
  it("answers the question with the function's string; streams it as one token", async () => {
    const flow = ending("return `Hello, ${$input.toUpperCase()}!`;");
    expect(await runFlow(flow, makeCtx("ada"))).toEqual({ text: "Hello, ADA!", memoryType: null });
    expect(canStreamFlow(flow)).toBe(true);
    const rec = recordingSink();
    const streamed = await runFlow(flow, makeCtx("grace"), rec.sink);
    expect(rec.tokens.map((t) => t.text)).toEqual(["Hello, GRACE!"]);
    expect(streamed.text).toBe("Hello, GRACE!");
  });

  it("an object or array answer: pretty JSON as text, the value as json; a number as its text", async () => {
    const obj = await runFlow(ending("return { q: $input, n: [1, 2] };"), makeCtx("x"));
    expect(obj).toEqual({ text: JSON.stringify({ q: "x", n: [1, 2] }, null, 2), json: { q: "x", n: [1, 2] }, memoryType: null });
    expect((await runFlow(ending("return 6 * 7;"), makeCtx("x"))).text).toBe("42");
    // a string that looks like JSON stays a string
    expect(await runFlow(ending(`return '{"a":1}';`), makeCtx("x"))).toEqual({ text: '{"a":1}', memoryType: null });
  });

  it("sees input variables as $name, $vars and $flow {chatflowId, sessionId, chatId, input}", async () => {
    const code = "return { city: $city, count: $count, nested: $nested.deep, greeting: $vars.greeting, flow: $flow, input: $input };";
    const flow = ending(code, JSON.stringify({ city: "Paris", count: 3, nested: '{"deep":"parsed"}' }));
    const ctx = makeCtx("what now", { vars: { greeting: "bonjour" }, chatId: "chat-1", sessionId: "session-1", chatflowid: "flow-1" });
    const { json: value } = await runFlow(flow, ctx);
    expect(value).toEqual({
      city: "Paris",
      count: 3,
      nested: "parsed",
      greeting: "bonjour",
      input: "what now",
      flow: { chatflowId: "flow-1", sessionId: "session-1", chatId: "chat-1", input: "what now" },
    });
  });

  it("input variables may hold another node's output (a value of another customFunction)", async () => {
    const first = fnNode("customFunction_0", "return { rows: [$input, 'b'] };", "output");
    const second = fnNode(
      "customFunction_1",
      "return $prev.rows.join('+') + ' / ' + $label;",
      "EndingNode",
      JSON.stringify({ prev: "{{customFunction_0.data.instance}}", label: "{{question}}!" }),
    );
    const result = await runFlow(
      flowOf([first, second], [edge("customFunction_0", "customFunction_1", "functionInputVariables")]),
      makeCtx("a"),
    );
    expect(result.text).toBe("a+b / a!");
  });

  it("a function that throws, does not parse, or has no code: a 400 naming the node", async () => {
    expect(await failure(ending('throw new Error("the CRM is down");'), "x")).toEqual({
      status: 400,
      message: "Custom JS Function (customFunction_0): the CRM is down",
    });
    expect(await failure(ending("return ((;"), "x")).toEqual({
      status: 400,
      message:
        "Custom JS Function (customFunction_0): The function does not parse: SyntaxError: unexpected token in expression: ';' (line 1)",
    });
    expect(await failure(ending("  "), "x")).toEqual({
      status: 400,
      message: "Custom JS Function (customFunction_0) has no JavaScript function (javascriptFunction)",
    });
    // fetch goes through the outbound policy, as in custom tools: a loopback address is refused.
    expect(await failure(ending('const r = await fetch("http://127.0.0.1:8787/api/v1/chatflows"); return r.text();'), "x")).toEqual({
      status: 400,
      message:
        "Custom JS Function (customFunction_0): TypeError: Outbound request refused: 127.0.0.1 is a loopback address (127.0.0.0/8) (OUTBOUND_ALLOW can list hosts that may be reached)",
    });
    // Without inputParams (an API-made flow) the variables arrive as text: parsed by the node.
    const bare = fnNode("customFunction_0", "return 1;", "EndingNode", "{not json");
    bare.data.inputParams = undefined;
    expect(await failure(flowOf([bare]), "x")).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Custom JS Function \(customFunction_0\): Invalid JSON in the Custom Function Input Variables/),
    });
  });

  it("a runaway loop is stopped at the custom tools' time limit, with their message", async () => {
    const started = Date.now();
    const err = await failure(ending("while (true) {}"), "x", runtimeWith({ TOOL_TIMEOUT_MS: "300" }));
    expect(err).toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^Custom JS Function \(customFunction_0\): The function (ran|computed for) longer than its time limit of 300 ms.*stopped$/,
      ),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    // the isolate is still healthy
    expect((await runFlow(ending("return 'ok';"), makeCtx("x"))).text).toBe("ok");
  });

  it("with output `output` and nothing after it, it cannot end the flow", async () => {
    expect(await failure(flowOf([fnNode("customFunction_0", "return 1;", "output")]), "x")).toEqual({
      status: 400,
      message: "Ending node must be either a Chain or Agent or Engine",
    });
  });
});

describe("customFunction's value feeding an llmChain prompt", () => {
  it("the prompt the model receives holds the function's value", async () => {
    const cred = await credential("azureOpenAIApi", { azureOpenAIApiKey: "k", azureOpenAIApiDeploymentName: "d" });
    const flow = flowDataOf(llmChain as Fixture, (n) => {
      pointAtStandin(n.get("azureChatOpenAI_0")!, cred);
      n.get("promptTemplate_0")!.data.inputs!.promptValues = JSON.stringify({ product: "{{customFunction_0.data.instance}}" });
    });
    const parsed = JSON.parse(flow);
    parsed.nodes.push(fnNode("customFunction_0", "return 'woollen ' + $input;", "output"));
    parsed.edges.push(edge("customFunction_0", "promptTemplate_0", "promptValues"));
    const m = marker();
    const result = await runFlow(JSON.stringify(parsed), makeCtx(`socks ${m}`));
    const prompt = `What is a good name for a company that makes woollen socks ${m}?`;
    expect(result.text).toBe(`echo: ${prompt}`);
    const [req, ...more] = await requestsWith(m);
    expect(more).toHaveLength(0);
    expect(req.body.messages).toEqual([{ role: "user", content: prompt }]);
  });
});

describe("POST /prediction with a Custom JS Function ending node", () => {
  it("answers as JSON and as a stream (the answer as one token), stores the exchange; a throw is a 400", async () => {
    const flowData = ending("return 'fn says ' + $input;");
    const { id } = await json("POST", "/chatflows", { body: { name: "custom function", flowData } });
    expect(await json("GET", `/chatflows-streaming/${id}`, { token: null })).toEqual({ isStreaming: true });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `hi ${m}` } });
    expect(answer).toMatchObject({ text: `fn says hi ${m}`, question: `hi ${m}` });
    const res = await call("POST", `/prediction/${id}`, { body: { question: "again", streaming: true } });
    const { frames } = await readStream(res);
    expect(frames.filter((f) => f.event === "token").map((f) => f.data)).toEqual(["fn says again"]);
    const messages = await json<any[]>("GET", `/chatmessage/${id}`);
    expect(messages.map((x) => x.content)).toEqual([`hi ${m}`, `fn says hi ${m}`, "again", "fn says again"]);

    const structured = await json("POST", "/chatflows", {
      body: { name: "object answer", flowData: ending("return { rows: [$input] };") },
    });
    expect(await json("POST", `/prediction/${structured.id}`, { body: { question: "q1" } })).toMatchObject({
      text: '{\n  "rows": [\n    "q1"\n  ]\n}',
      json: { rows: ["q1"] },
    });

    const broken = await json("POST", "/chatflows", { body: { name: "broken", flowData: ending("throw new Error('nope')") } });
    const err = await expectError(await call("POST", `/prediction/${broken.id}`, { body: { question: "x" } }), 400);
    expect(err.message).toBe("Custom JS Function (customFunction_0): nope");
  });
});
