// The Flowise marketplace fixtures, loaded exactly as exported: only the chat model node's endpoint
// input points at the stand-in, and it names a credential. (tool-agent and
// conversational-retrieval-qa-chain need nodes from other issues: see graph.test.ts.)
import { describe, expect, it } from "vitest";
import advancedParser from "./fixtures/advanced-structured-output-parser.json";
import conversationChain from "./fixtures/conversation-chain.json";
import listParser from "./fixtures/list-output-parser.json";
import llmChain from "./fixtures/llm-chain.json";
import promptChaining from "./fixtures/prompt-chaining.json";
import { extractJson } from "../../src/engine/chatflow/nodes/output-parsers";
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
  storeTurns,
} from "./helpers";

const openAI = () => credential("openAIApi", { openAIApiKey: "sk-test-openai" });

describe("llm-chain.json (azureChatOpenAI + promptTemplate)", () => {
  it("applies the template with the question as {product} and calls Azure's deployment URL with api-key", async () => {
    const cred = await credential("azureOpenAIApi", {
      azureOpenAIApiKey: "azure-key",
      azureOpenAIApiInstanceName: "unused-when-basepath",
      azureOpenAIApiDeploymentName: "my-deployment",
      azureOpenAIApiVersion: "2024-06-01",
    });
    const flow = flowDataOf(llmChain as Fixture, (n) => pointAtStandin(n.get("azureChatOpenAI_0")!, cred));
    const m = marker();
    const result = await runFlow(flow, makeCtx(`socks ${m}`));
    const prompt = `What is a good name for a company that makes socks ${m}?`;
    expect(result).toMatchObject({ text: `echo: ${prompt}`, memoryType: null });
    const [req, ...more] = await requestsWith(m);
    expect(more).toHaveLength(0);
    expect(req.path).toBe("/v1/my-deployment/chat/completions?api-version=2024-06-01");
    expect(req.headers["api-key"]).toBe("azure-key");
    expect(req.body).toMatchObject({
      model: "gpt-35-turbo",
      temperature: 0.9,
      stream: false,
      messages: [{ role: "user", content: prompt }],
    });
  });

  it("streams when given a sink (chain without output parser)", async () => {
    const cred = await credential("azureOpenAIApi", { azureOpenAIApiKey: "k", azureOpenAIApiDeploymentName: "d" });
    const flow = flowDataOf(llmChain as Fixture, (n) => pointAtStandin(n.get("azureChatOpenAI_0")!, cred));
    expect(canStreamFlow(flow)).toBe(true);
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(flow, makeCtx(`hats ${m}`), rec.sink);
    expect(rec.tokens.length).toBeGreaterThan(3);
    expect(rec.text()).toBe(result.text);
    expect(result.text).toBe(`echo: What is a good name for a company that makes hats ${m}?`);
    expect((await requestsWith(m))[0].body.stream).toBe(true);
  });
});

describe("conversation-chain.json (chatOpenAI + bufferMemory)", () => {
  it("sends the system message and the question; memoryType is the memory node's label", async () => {
    const cred = await openAI();
    const flow = flowDataOf(conversationChain as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    const m = marker();
    const result = await runFlow(flow, makeCtx(`Hello ${m}`));
    expect(result).toEqual({ text: `echo: Hello ${m}`, memoryType: "Buffer Memory" });
    const [req] = await requestsWith(m);
    expect(req.headers.authorization).toBe("Bearer sk-test-openai");
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.body.model).toBe("gpt-3.5-turbo-16k");
    expect(req.body.messages[0]).toMatchObject({ role: "system" });
    expect(req.body.messages[0].content).toContain("friendly conversation between a human and an AI");
    expect(req.body.messages.slice(1)).toEqual([{ role: "user", content: `Hello ${m}` }]);
  });

  it("second turn: the stored exchange (and request history first) appear in the request", async () => {
    const cred = await openAI();
    const flow = flowDataOf(conversationChain as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    const m = marker();
    const ctx1 = makeCtx(`My name is Ada ${m}`);
    const first = await runFlow(flow, ctx1);
    await storeTurns(ctx1.chatflowid, ctx1.sessionId, [
      { role: "userMessage", content: ctx1.question },
      { role: "apiMessage", content: first.text },
    ]);
    const ctx2 = makeCtx(`What is my name? ${m}-2`, {
      chatflowid: ctx1.chatflowid,
      sessionId: ctx1.sessionId,
      history: [
        { role: "userMessage", content: "from the request history" },
        { role: "apiMessage", content: "noted" },
      ],
    });
    await runFlow(flow, ctx2);
    const [req] = await requestsWith(`${m}-2`);
    expect(req.body.messages.slice(1)).toEqual([
      { role: "user", content: "from the request history" },
      { role: "assistant", content: "noted" },
      { role: "user", content: `My name is Ada ${m}` },
      { role: "assistant", content: `echo: My name is Ada ${m}` },
      { role: "user", content: `What is my name? ${m}-2` },
    ]);
  });

  it("another session does not see that memory", async () => {
    const cred = await openAI();
    const flow = flowDataOf(conversationChain as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    const m = marker();
    const chatflowid = crypto.randomUUID();
    await storeTurns(chatflowid, "session-a", [
      { role: "userMessage", content: "secret of a" },
      { role: "apiMessage", content: "ok" },
    ]);
    await runFlow(flow, makeCtx(`hi ${m}`, { chatflowid, sessionId: "session-b" }));
    const [req] = await requestsWith(m);
    expect(JSON.stringify(req.body.messages)).not.toContain("secret of a");
  });
});

describe("prompt-chaining.json (two llmChains, the first one's prediction feeds the second prompt)", () => {
  it("makes two calls: the second prompt holds the first answer", async () => {
    const cred = await openAI();
    const flow = flowDataOf(promptChaining as Fixture, (n) => {
      pointAtStandin(n.get("chatOpenAI_0")!, cred);
      pointAtStandin(n.get("chatOpenAI_1")!, cred);
    });
    const m = marker();
    const result = await runFlow(flow, makeCtx(`Plan a trip ${m}`));
    const reqs = await requestsWith(m);
    expect(reqs).toHaveLength(2);
    const first = reqs[0].body.messages[0].content;
    expect(first).toBe(
      `You are an AI who performs one task based on the following objective: Plan a trip ${m}.\nRespond with how you would complete this task:`,
    );
    const second = reqs[1].body.messages[0].content;
    expect(second).toContain(`with the following objective: Plan a trip ${m}.`);
    expect(second).toContain(`The last completed task has the result: echo: ${first}.`);
    expect(result.text).toBe(`echo: ${second}`);
  });
});

describe("list-output-parser.json (csvOutputParser)", () => {
  it("adds the format instructions, answers the list as json (an array) and cannot stream", async () => {
    const cred = await openAI();
    const flow = flowDataOf(listParser as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    expect(canStreamFlow(flow)).toBe(false);
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(flow, makeCtx(`top 3 letters [csv] ${m}`), rec.sink);
    expect(result.json).toEqual(["a", "b", "c"]);
    expect(result.text).toBe('```json\n[\n  "a",\n  "b",\n  "c"\n]\n```');
    expect(rec.tokens).toHaveLength(0); // not streamable: the caller sends the text
    const [req] = await requestsWith(m);
    expect(req.body.messages[0].content).toBe(
      `Answer user's question as best you can: top 3 letters [csv] ${m}\nYour response should be a list of comma separated values, eg: \`foo, bar, baz\``,
    );
  });
});

describe("advanced-structured-output-parser.json (chatPromptTemplate + zod schema)", () => {
  it("puts the JSON schema in the system message and answers validated json", async () => {
    const cred = await openAI();
    const flow = flowDataOf(advancedParser as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    expect(canStreamFlow(flow)).toBe(false);
    const m = marker();
    const result = await runFlow(flow, makeCtx(`Top 2 movies [json] ${m}`));
    expect(result.json).toEqual([
      { title: "Echo Park", yearOfRelease: 2014, genres: ["Drama"], shortDescription: "A story of echoes." },
      { title: "Stand In", yearOfRelease: 1937, genres: ["Comedy", "Romance"], shortDescription: "A classic." },
    ]);
    expect(result.text.startsWith("```json\n[")).toBe(true);
    const [req] = await requestsWith(m);
    expect(req.body.messages).toHaveLength(2);
    const [system, human] = req.body.messages;
    expect(system.role).toBe("system");
    expect(system.content).toContain("This AI is designed to only output information in JSON format");
    expect(system.content).toContain('"yearOfRelease":{"type":"integer"');
    expect(system.content).toContain('"enum":["Action","Comedy"');
    expect(system.content).toContain('"maxItems":2');
    expect(human).toEqual({ role: "user", content: `Top 2 movies [json] ${m}` });
  });

  it("a model that answers exactly what the format instructions (LangChain's) ask for is parsed: a top-level array", async () => {
    const cred = await openAI();
    const flow = flowDataOf(advancedParser as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    const m = marker();
    const result = await runFlow(flow, makeCtx(`Top movies [schema] ${m}`));
    const text = "text with a line\nbreak";
    expect(result.json).toEqual([{ title: text, yearOfRelease: 1999, genres: ["Action"], shortDescription: text }]);
    const [req, ...more] = await requestsWith(m);
    expect(more).toHaveLength(0); // no correction call was needed
    const system = req.body.messages[0].content;
    expect(system).toContain('You must format your output as a JSON value that adheres to a given "JSON Schema" instance.');
    expect(system).toContain(
      'Here is the JSON Schema instance your output must adhere to. Include the enclosing markdown codeblock:\n```json\n{"type":"array","items":{"type":"object"',
    );
  });

  it("reads the JSON models write: fenced or not, prose around it, line breaks inside strings, trailing commas", () => {
    const value = [{ a: "x\ny", b: [1, 2] }];
    const cases = [
      '[{"a":"x\\ny","b":[1,2]}]',
      'Here are [2] items:\n```json\n[{"a":"x\\ny","b":[1,2]}]\n```\nEnjoy [really].',
      '```\n[{"a":"x\\ny","b":[1,2],}]\n```',
      '```json[{"a":"x\\ny","b":[1,2]}]```',
      '```JSON\r\n[{"a":"x\ny","b":[1,2]}]\r\n```',
      'Sure! [{"a":"x\ny","b":[1,2]}]',
    ];
    for (const c of cases) expect(extractJson(c)).toEqual(value);
    expect(() => extractJson("no JSON [here")).toThrow("the answer is not valid JSON");
  });

  it("autofix: an answer that is not JSON gets one correction call", async () => {
    const cred = await openAI();
    const flow = flowDataOf(advancedParser as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    const m = marker();
    const result = await runFlow(flow, makeCtx(`movies [badjson] ${m}`));
    expect(Array.isArray(result.json)).toBe(true);
    // The correction request quotes the bad completion, not the question: match on the completion.
    const fixes = await requestsWith("Sorry, no JSON today");
    expect(fixes.length).toBeGreaterThanOrEqual(1);
    expect(fixes.at(-1)!.body.messages[0].content).toContain("does not satisfy the instructions");
  });

  it("without autofix, an answer that does not fit is a 502 naming the parser", async () => {
    const cred = await openAI();
    const flow = flowDataOf(advancedParser as Fixture, (n) => {
      pointAtStandin(n.get("chatOpenAI_0")!, cred);
      n.get("advancedStructuredOutputParser_0")!.data.inputs!.autofixParser = false;
    });
    await expect(runFlow(flow, makeCtx(`movies ${marker()}`))).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining("Advanced Structured Output Parser"),
    });
  });
});
