// The LlamaIndex family: chat engines, query engines, response synthesizers and the query engine
// tool, run against the OpenAI stand-in over the local vector store; what the model received is
// LlamaIndex's prompts (as Flowise sends them), the answers Flowise's ({text, sourceDocuments}).
import { describe, expect, it } from "vitest";
import { registry } from "../../src/engine/chatflow/registry";
import { flowDataWarning } from "../../src/services/chatflows";
import simpleChatEngine from "./fixtures/simple-chat-engine.json";
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
import { defaultLlmRuntime, engineFlow, upsertTown } from "./llamaindex-flows";
import { BAKERY, LIBRARY, ref } from "./retrieval-flows";

const chatRequestsWith = async (m: string) => (await requestsWith(m)).filter((r) => r.path.includes("/chat/completions"));
const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
const contextOf = (...passages: string[]) =>
  `Context information is below.\n---------------------\n${passages.join("\n\n")}\n---------------------`;
const textQA = (context: string, query: string) =>
  `Context information is below.\n---------------------\n${context}\n---------------------\nGiven the context information and not prior knowledge, answer the query.\nQuery: ${query}\nAnswer:`;

describe("the registry", () => {
  it("builds every LlamaIndex node under Flowise's name and category", () => {
    const expected: Record<string, string> = {
      contextChatEngine: "Engine",
      simpleChatEngine: "Engine",
      queryEngine: "Engine",
      subQuestionQueryEngine: "Engine",
      compactrefineLlamaIndex: "Response Synthesizer",
      refineLlamaIndex: "Response Synthesizer",
      treeSummarizeLlamaIndex: "Response Synthesizer",
      simpleResponseBuilderLlamaIndex: "Response Synthesizer",
      queryEngineToolLlamaIndex: "Tools",
      chatOpenAI_LlamaIndex: "Chat Models",
      azureChatOpenAI_LlamaIndex: "Chat Models",
      chatAnthropic_LlamaIndex: "Chat Models",
      openAIEmbedding_LlamaIndex: "Embeddings",
    };
    for (const [name, category] of Object.entries(expected)) expect(registry.get(name)?.category, name).toBe(category);
  });
});

describe("simple-chat-engine.json (azureChatOpenAI_LlamaIndex + bufferMemory)", () => {
  const template = async () => {
    const cred = await credential("azureOpenAIApi", {
      azureOpenAIApiKey: "azure-key",
      azureOpenAIApiDeploymentName: "chat-dep",
      azureOpenAIApiVersion: "2024-06-01",
    });
    return flowDataOf(simpleChatEngine as unknown as Fixture, (n) => pointAtStandin(n.get("azureChatOpenAI_LlamaIndex_0")!, cred));
  };

  it("saves without a warning and streams", async () => {
    expect(flowDataWarning(flowDataOf(simpleChatEngine as unknown as Fixture))).toBeUndefined();
    expect(canStreamFlow(await template())).toBe(true);
  });

  it("sends the system message as LlamaIndex's first (user) turn, then the question; memoryType is the memory's label", async () => {
    const m = marker();
    const result = await runFlow(await template(), makeCtx(`Hello ${m}`));
    expect(result).toEqual({ text: `echo: Hello ${m}`, memoryType: "Buffer Memory" });
    const [req, ...more] = await chatRequestsWith(m);
    expect(more).toHaveLength(0);
    expect(req.path).toBe("/v1/chat-dep/chat/completions?api-version=2024-06-01");
    expect(req.headers["api-key"]).toBe("azure-key");
    expect(req.body).toMatchObject({ temperature: 0.9, stream: false });
    expect(req.body.messages).toEqual([
      { role: "user", content: "You are a helpful assistant." },
      { role: "user", content: `Hello ${m}` },
    ]);
  });

  it("second turn: the session's stored exchange comes between; streamed tokens make the answer", async () => {
    const flowData = await template();
    const m = marker();
    const ctx1 = makeCtx(`My name is Ada ${m}`);
    await storeTurns(ctx1.chatflowid, ctx1.sessionId, [
      { role: "userMessage", content: ctx1.question },
      { role: "apiMessage", content: "Nice to meet you, Ada." },
    ]);
    const rec = recordingSink();
    const result = await runFlow(
      flowData,
      makeCtx(`What is my name? ${m}-2`, { chatflowid: ctx1.chatflowid, sessionId: ctx1.sessionId }),
      rec.sink,
    );
    expect(rec.tokens.length).toBeGreaterThan(2);
    expect(rec.text()).toBe(result.text);
    const [req] = await chatRequestsWith(`${m}-2`);
    expect(req.body.stream).toBe(true);
    expect(req.body.messages).toEqual([
      { role: "user", content: "You are a helpful assistant." },
      { role: "user", content: `My name is Ada ${m}` },
      { role: "assistant", content: "Nice to meet you, Ada." },
      { role: "user", content: `What is my name? ${m}-2` },
    ]);
  });

  it("a model that is down: 502; one that does not answer within its timeout input: 504, in time", async () => {
    const e = await err(runFlow(await template(), makeCtx(`[fail] ${marker()}`)));
    expect(e.status).toBe(502);
    const slow = flowDataOf(JSON.parse(await template()), (n) =>
      Object.assign(n.get("azureChatOpenAI_LlamaIndex_0")!.data.inputs!, { timeout: 300 }),
    );
    const started = Date.now();
    expect((await err(runFlow(slow, makeCtx(`[hang] ${marker()}`)))).status).toBe(504);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("contextChatEngine", () => {
  const contextFlow = (inputs: Record<string, unknown> = {}) =>
    engineFlow(
      "contextChatEngine",
      {
        model: ref("model_0"),
        vectorStoreRetriever: ref("vs_0"),
        memory: ref("mem_0"),
        systemMessagePrompt: "You answer about the town.",
        returnSourceDocuments: true,
        ...inputs,
      },
      [["mem_0", "bufferMemory", "Memory", { memoryKey: "chat_history" }]],
    );

  it("puts the retrieved passage in LlamaIndex's context system message; sources as Flowise returns them", async () => {
    const flowData = contextFlow();
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const sessionId = crypto.randomUUID();
    await storeTurns(chatflowid, sessionId, [
      { role: "userMessage", content: "Hi" },
      { role: "apiMessage", content: "Hello!" },
    ]);
    const m = marker();
    const result = await runFlow(flowData, makeCtx(`When does the bakery open in the morning? ${m}`, { chatflowid, sessionId }));
    expect(result.text).toBe(`echo: When does the bakery open in the morning? ${m}`);
    expect(result.sourceDocuments).toEqual([{ pageContent: BAKERY, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(result.memoryType).toBe("mem_0");
    const [req] = await chatRequestsWith(m);
    expect(req.body.messages).toEqual([
      { role: "system", content: contextOf(BAKERY) },
      { role: "user", content: "You answer about the town." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: `When does the bakery open in the morning? ${m}` },
    ]);
  });

  it("streams the answer; no sources unless returnSourceDocuments; nothing stored → no context message", async () => {
    const flowData = contextFlow({ returnSourceDocuments: false });
    expect(canStreamFlow(flowData)).toBe(true);
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(flowData, makeCtx(`Library cards? ${m}`, { chatflowid }), rec.sink);
    expect(result.sourceDocuments).toBeUndefined();
    expect(rec.text()).toBe(result.text);
    const [req] = await chatRequestsWith(m);
    expect(req.body.stream).toBe(true);
    expect(req.body.messages[0]).toEqual({ role: "system", content: contextOf(LIBRARY) });

    // Another chatflow: its store namespace is empty.
    const m2 = marker();
    await runFlow(flowData, makeCtx(`Library cards? ${m2}`));
    expect((await chatRequestsWith(m2))[0].body.messages[0]).toEqual({ role: "user", content: "You answer about the town." });
  });

  it("without a retriever: 400 naming the node and input", async () => {
    const e = await err(runFlow(contextFlow({ vectorStoreRetriever: "" }), makeCtx("q")));
    expect(e.status).toBe(400);
    expect(e.message).toContain("engine_0 (engine_0) needs a retriever");
    expect(e.message).toContain("vectorStoreRetriever");
  });
});

describe("queryEngine", () => {
  it("no synthesizer: CompactAndRefine with LlamaIndex's text QA prompt, one call, through LlamaIndex's default LLM (OPENAI_*)", async () => {
    const flowData = engineFlow("queryEngine", { vectorStoreRetriever: ref("vs_0"), returnSourceDocuments: true }, [], "2");
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const m = marker();
    const question = `When does the bakery open? ${m}`;
    const result = await runFlow(flowData, makeCtx(question, { chatflowid, runtime: defaultLlmRuntime() }));
    const [req, ...more] = await chatRequestsWith(m);
    expect(more).toHaveLength(0);
    expect(req.headers.authorization).toBe("Bearer sk-default-llm");
    const passages = result.sourceDocuments!.map((d) => d.pageContent);
    expect(passages).toHaveLength(2);
    expect(passages[0]).toBe(BAKERY);
    expect(req.body.messages).toEqual([{ role: "user", content: textQA(passages.join("\n\n"), question) }]);
    expect(result.text).toBe(`echo: ${textQA(passages.join("\n\n"), question)}`);
  });

  it("compactrefineLlamaIndex's own prompts; refineLlamaIndex: one call per passage, the answer refined, only the last call streams", async () => {
    const prompts = { textQAPrompt: "QA <{context}> for {query}", refinePrompt: "REFINE <{existingAnswer}> with <{context}> for {query}" };
    const compact = engineFlow(
      "queryEngine",
      { vectorStoreRetriever: ref("vs_0"), responseSynthesizer: ref("syn_0") },
      [["syn_0", "compactrefineLlamaIndex", "Response Synthesizer", prompts]],
      "2",
    );
    const chatflowid = crypto.randomUUID();
    await upsertTown(compact, chatflowid);
    const m = marker();
    const r1 = await runFlow(
      compact,
      makeCtx(`When does the bakery open in the morning? ${m}`, { chatflowid, runtime: defaultLlmRuntime() }),
    );
    const [one, ...none] = await chatRequestsWith(m);
    expect(none).toHaveLength(0);
    expect(one.body.messages[0].content).toMatch(
      new RegExp(`^QA <${BAKERY.slice(0, 40)}[\\s\\S]*> for When does the bakery open in the morning\\? ${m}$`),
    );
    expect(r1.sourceDocuments).toBeUndefined();

    const refine = engineFlow(
      "queryEngine",
      { vectorStoreRetriever: ref("vs_0"), responseSynthesizer: ref("syn_0") },
      [["syn_0", "refineLlamaIndex", "Response Synthesizer", prompts]],
      "2",
    );
    const m2 = marker();
    const rec = recordingSink();
    // Same node ids and chatflow: the same store namespace.
    const r2 = await runFlow(
      refine,
      makeCtx(`When does the bakery open in the morning? ${m2}`, { chatflowid, runtime: defaultLlmRuntime() }),
      rec.sink,
    );
    const [first, second, ...rest] = await chatRequestsWith(m2);
    expect(rest).toHaveLength(0);
    expect(first.body.stream).toBe(false);
    expect(first.body.messages[0].content).toBe(`QA <${BAKERY}> for When does the bakery open in the morning? ${m2}`);
    expect(second.body.stream).toBe(true);
    expect(second.body.messages[0].content).toMatch(new RegExp(`^REFINE <echo: QA <${BAKERY.slice(0, 40)}`));
    expect(rec.text()).toBe(r2.text);
    expect(r2.text.startsWith("echo: REFINE <echo: QA <")).toBe(true);
  });

  it("treeSummarizeLlamaIndex (its prompt) and simpleResponseBuilderLlamaIndex (LlamaIndex's text QA) answer in one call here", async () => {
    for (const [name, inputs, expected] of [
      ["treeSummarizeLlamaIndex", { prompt: "TREE {context} / {query}" }, (ctx: string, q: string) => `TREE ${ctx} / ${q}`],
      ["simpleResponseBuilderLlamaIndex", {}, textQA],
    ] as const) {
      const flowData = engineFlow("queryEngine", { vectorStoreRetriever: ref("vs_0"), responseSynthesizer: ref("syn_0") }, [
        ["syn_0", name, "Response Synthesizer", inputs],
      ]);
      const chatflowid = crypto.randomUUID();
      await upsertTown(flowData, chatflowid);
      const m = marker();
      const question = `When does the bakery open in the morning? ${m}`;
      const result = await runFlow(flowData, makeCtx(question, { chatflowid, runtime: defaultLlmRuntime() }));
      const [req, ...more] = await chatRequestsWith(m);
      expect(more, name).toHaveLength(0);
      expect(req.body.messages, name).toEqual([{ role: "user", content: expected(BAKERY, question) }]);
      expect(result.text, name).toBe(`echo: ${expected(BAKERY, question)}`);
    }
  });

  it("nothing retrieved: LlamaIndex's 'Empty Response', no model call", async () => {
    const flowData = engineFlow("queryEngine", { vectorStoreRetriever: ref("vs_0") });
    const rec = recordingSink();
    const result = await runFlow(flowData, makeCtx(`bakery ${marker()}`, { runtime: defaultLlmRuntime() }), rec.sink);
    expect(result.text).toBe("Empty Response");
    expect(rec.text()).toBe("Empty Response");
  });

  it("a model that is down: 502; a synthesizer input that is not one: 400", async () => {
    const flowData = engineFlow("queryEngine", { vectorStoreRetriever: ref("vs_0") });
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    expect((await err(runFlow(flowData, makeCtx(`bakery [fail] ${marker()}`, { chatflowid, runtime: defaultLlmRuntime() })))).status).toBe(
      502,
    );
    const wrong = engineFlow("queryEngine", { vectorStoreRetriever: ref("vs_0"), responseSynthesizer: ref("model_0") });
    const e = await err(runFlow(wrong, makeCtx("q", { runtime: defaultLlmRuntime() })));
    expect(e.status).toBe(400);
    expect(e.message).toContain("responseSynthesizer input is not a response synthesizer");
  });
});

describe("subQuestionQueryEngine + queryEngineToolLlamaIndex", () => {
  const subFlow = (inputs: Record<string, unknown> = {}) =>
    engineFlow(
      "subQuestionQueryEngine",
      {
        queryEngineTools: [ref("tool_0"), ref("tool_1")],
        model: ref("model_0"),
        embeddings: ref("emb_0"),
        returnSourceDocuments: true,
        ...inputs,
      },
      [
        ["qe_0", "queryEngine", "Engine", { vectorStoreRetriever: ref("vs_0") }],
        ["qe_1", "queryEngine", "Engine", { vectorStoreRetriever: ref("vs_0"), responseSynthesizer: ref("syn_0") }],
        ["syn_0", "simpleResponseBuilderLlamaIndex", "Response Synthesizer", {}],
        [
          "tool_0",
          "queryEngineToolLlamaIndex",
          "Tools",
          { baseQueryEngine: ref("qe_0"), toolName: "bakery_tool", toolDesc: "Opening hours of the bakery" },
        ],
        [
          "tool_1",
          "queryEngineToolLlamaIndex",
          "Tools",
          { baseQueryEngine: ref("qe_1"), toolName: "library_tool", toolDesc: "Rules of the library" },
        ],
      ],
    );

  it("asks the model for sub-questions (LlamaIndex's prompt), lets each tool's engine answer one, then synthesizes from them", async () => {
    const flowData = subFlow();
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const m = marker();
    const question = `[subquestions] When do the bakery and the library open? ${m}`;
    const plain = `When do the bakery and the library open? ${m}`;
    const rec = recordingSink();
    expect(canStreamFlow(flowData)).toBe(true);
    const result = await runFlow(flowData, makeCtx(question, { chatflowid, runtime: defaultLlmRuntime() }), rec.sink);
    const reqs = await chatRequestsWith(m);
    expect(reqs).toHaveLength(4);
    const [gen, ...others] = reqs;
    const final = others.at(-1)!;
    // 1. the sub-question prompt lists the tools by name and description
    expect(gen.body.stream).toBe(false);
    const genPrompt = gen.body.messages[0].content;
    expect(genPrompt.startsWith("Given a user question, and a list of tools, output a list of relevant sub-questions")).toBe(true);
    expect(genPrompt).toContain(
      `# Example 2\n<Tools>\n\`\`\`json\n${JSON.stringify({ bakery_tool: "Opening hours of the bakery", library_tool: "Rules of the library" }, null, 4)}\n\`\`\`\n\n<User Question>\n${question}\n\n<Output>\n`,
    );
    // 2. each tool's query engine got its own sub-question (default LLM, not streamed)
    const subQs = [`${plain} (bakery_tool)`, `${plain} (library_tool)`];
    const engineCalls = others.slice(0, 2).map((r) => r.body.messages[0].content);
    for (const q of subQs)
      expect(
        engineCalls.some((c) => c.includes(`Query: ${q}\nAnswer:`)),
        q,
      ).toBe(true);
    expect(others.slice(0, 2).every((r) => r.body.stream === false && r.headers.authorization === "Bearer sk-default-llm")).toBe(true);
    // 3. the final answer: the sub-question passages through CompactAndRefine, streamed, by the engine's model
    expect(final.body.stream).toBe(true);
    expect(final.body.model).toBe("m"); // model_0's, where the tools' engines used the default LLM's
    expect(others.slice(0, 2).every((r) => r.body.model !== "m")).toBe(true);
    expect(result.sourceDocuments).toHaveLength(2);
    for (const [i, doc] of result.sourceDocuments!.entries()) {
      expect(doc.metadata).toEqual({});
      expect(doc.pageContent.startsWith(`Sub question: ${subQs[i]}\nResponse: echo: `)).toBe(true);
    }
    expect(final.body.messages[0].content).toBe(textQA(result.sourceDocuments!.map((d) => d.pageContent).join("\n\n"), question));
    expect(rec.text()).toBe(result.text);
  });

  it("an answer that is not the sub-question JSON: 502 naming the node", async () => {
    const flowData = subFlow();
    const e = await err(runFlow(flowData, makeCtx(`no sub-questions here ${marker()}`, { runtime: defaultLlmRuntime() })));
    expect(e.status).toBe(502);
    expect(e.message).toContain("engine_0 (engine_0): the model's sub-questions are not a JSON list of {subQuestion, toolName}");
  });

  it("a tool whose engine's model is down fails the run with its 502", async () => {
    const flowData = subFlow();
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const e = await err(
      runFlow(flowData, makeCtx(`[subquestions] bakery [fail] ${marker()}`, { chatflowid, runtime: defaultLlmRuntime() })),
    );
    expect(e.status).toBe(502);
  });

  it("a query engine tool without an engine, name or description: 400", async () => {
    for (const [inputs, says] of [
      [{ baseQueryEngine: "", toolName: "t", toolDesc: "d" }, "needs a query engine connected to its baseQueryEngine input"],
      [{ baseQueryEngine: ref("qe_0"), toolName: "", toolDesc: "d" }, "needs a toolName"],
      [{ baseQueryEngine: ref("qe_0"), toolName: "t", toolDesc: "" }, "needs a toolDesc"],
    ] as const) {
      const flowData = engineFlow("subQuestionQueryEngine", { queryEngineTools: [ref("tool_0")], model: ref("model_0") }, [
        ["qe_0", "queryEngine", "Engine", { vectorStoreRetriever: ref("vs_0") }],
        ["tool_0", "queryEngineToolLlamaIndex", "Tools", inputs],
      ]);
      const e = await err(runFlow(flowData, makeCtx("q")));
      expect(e.status).toBe(400);
      expect(e.message).toContain(says);
    }
  });
});

describe("subQuestionQueryEngine's sub-questions (a scripted model and tools)", () => {
  it("at most MAX_SUB_QUESTIONS are answered; a tool the model made up and an empty answer are left out", async () => {
    const { FakeListChatModel } = await import("@langchain/core/utils/testing");
    const { DynamicStructuredTool } = await import("@langchain/core/tools");
    const { z } = await import("zod");
    const { MAX_SUB_QUESTIONS } = await import("../../src/engine/chatflow/nodes/llamaindex/query-engines");
    const asked: string[] = [];
    const tool = (name: string, answer: (q: string) => string) =>
      new DynamicStructuredTool({
        name,
        description: name,
        schema: z.object({ query: z.string() }),
        func: async ({ query }) => (asked.push(query), answer(query)),
      });
    const many = Array.from({ length: MAX_SUB_QUESTIONS + 5 }, (_, i) => ({
      subQuestion: `q${i}`,
      toolName: i === 0 ? "made_up" : i === 1 ? "silent" : "docs",
    }));
    const model = new FakeListChatModel({ responses: [JSON.stringify(many), "final"] });
    const def = registry.get("subQuestionQueryEngine")!;
    const node = { id: "sq_0", data: { id: "sq_0", name: "subQuestionQueryEngine", label: "Sub", category: "Engine" } };
    const ctx = makeCtx("the question");
    const instance = await def.build({
      node,
      ctx,
      inputs: { model, queryEngineTools: [[tool("docs", (q) => `about ${q}`), tool("silent", () => "")]], returnSourceDocuments: true },
    });
    const result = await def.run!(instance, { ctx });
    expect(result.text).toBe("final");
    expect([...asked].sort()).toEqual(
      many
        .slice(1, MAX_SUB_QUESTIONS)
        .map((q) => q.subQuestion)
        .sort(),
    ); // run at once: in any order
    expect(result.sourceDocuments!.map((d) => d.pageContent)).toEqual(
      many.slice(2, MAX_SUB_QUESTIONS).map((q) => `Sub question: ${q.subQuestion}\nResponse: about ${q.subQuestion}`),
    );
  });
});
