// More of Flowise's chain-side nodes, each run as a chatflow against the stand-in: the Few Shot
// Prompt Template (prefix, examples, suffix), the Conversation Summary Buffer Memory (LangChain's
// progressive-summary prompt once the history passes its token limit), the VectorDB QA Chain
// (retrieval QA over a vector store), and the router chains (Multi Prompt / Multi Retrieval QA:
// LangChain's router prompt picks the destination, which answers).
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";
import { makeCtx, marker, requestsWith, runFlow, storeTurns } from "./helpers";
import { BAKERY, LIBRARY, STATION, flow, ref, standinModel } from "./retrieval-flows";

/** A chatflow saved, then each of its vector stores upserted (POST /vector/upsert with stopNodeId). */
async function savedAndUpserted(flowData: string, stores: string[]): Promise<string> {
  const { id } = await json("POST", "/chatflows", { body: { name: "qa", flowData } });
  for (const stopNodeId of stores) {
    const res = await call("POST", `/vector/upsert/${id}`, { body: { stopNodeId } });
    expect(res.status).toBe(200);
  }
  return id;
}

const chatRequestsWith = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));

/** plainText → memoryVectorStore (localHashEmbeddings) with the given output, ids suffixed. */
const store = (suffix: string, text: string, output: "vectorStore" | "retriever" = "vectorStore") =>
  [
    [`emb${suffix}`, "localHashEmbeddings", "Embeddings", {}],
    [`loader${suffix}`, "plainText", "Document Loaders", { text, textSplitter: ref("splitter_0") }, { output: "document" }],
    [
      `vs${suffix}`,
      "memoryVectorStore",
      "Vector Stores",
      { document: [ref(`loader${suffix}`)], embeddings: ref(`emb${suffix}`), topK: "1" },
      { output },
    ],
  ] as const;

describe("fewShotPromptTemplate", () => {
  it("sends the prefix, each example through the Example Prompt, then the suffix with the question", async () => {
    const flowData = flow([
      ["example_0", "promptTemplate", "Prompts", { template: "Word: {word}\nAntonym: {antonym}" }],
      [
        "fewshot_0",
        "fewShotPromptTemplate",
        "Prompts",
        {
          examples: '[{"word": "happy", "antonym": "sad"}, {"word": "tall", "antonym": "short"}]',
          examplePrompt: ref("example_0"),
          prefix: "Give the antonym of every input",
          suffix: "Word: {input}\nAntonym:",
          exampleSeparator: "",
          templateFormat: "f-string",
        },
      ],
      standinModel(),
      ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("fewshot_0") }],
    ] as never);
    const m = marker();
    const result = await runFlow(flowData, makeCtx(`big ${m}`));
    const prompt = `Give the antonym of every input\n\nWord: happy\nAntonym: sad\n\nWord: tall\nAntonym: short\n\nWord: big ${m}\nAntonym:`;
    expect(result.text).toBe(`echo: ${prompt}`);
    const [req] = await chatRequestsWith(m);
    expect(req.body.messages).toEqual([{ role: "user", content: prompt }]);
  });

  it("jinja-2 and examples that are not a JSON list are 400s naming the node", async () => {
    const withInputs = (inputs: Record<string, unknown>) =>
      flow([
        ["example_0", "promptTemplate", "Prompts", { template: "Q: {q}" }],
        ["fewshot_0", "fewShotPromptTemplate", "Prompts", { examplePrompt: ref("example_0"), suffix: "{input}", ...inputs }],
        standinModel(),
        ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("fewshot_0") }],
      ] as never);
    const failure = (flowData: string) =>
      runFlow(flowData, makeCtx("x")).then(
        () => undefined,
        (e: { status: number; message: string }) => e,
      );
    expect(await failure(withInputs({ templateFormat: "jinja-2" }))).toMatchObject({
      status: 400,
      message: expect.stringContaining("jinja-2"),
    });
    expect(await failure(withInputs({ examples: "[oops" }))).toMatchObject({
      status: 400,
      message: expect.stringContaining("Invalid JSON in the FewShotPromptTemplate's examples"),
    });
  });
});

describe("conversationSummaryBufferMemory", () => {
  const memoryFlow = (maxTokenLimit: string) =>
    flow([
      standinModel(),
      ["mem_0", "conversationSummaryBufferMemory", "Memory", { model: ref("model_0"), maxTokenLimit }],
      ["chain_0", "conversationChain", "Chains", { model: ref("model_0"), memory: ref("mem_0") }],
    ] as never);

  it("keeps the newest messages within maxTokenLimit and summarises the older ones with LangChain's prompt", async () => {
    const m = marker();
    const ctx = makeCtx(`and now? ${m}`);
    await storeTurns(ctx.chatflowid, ctx.sessionId, [
      { role: "userMessage", content: `I am Ada and I write programs for the analytical engine ${m}` },
      { role: "apiMessage", content: "Hello Ada, that engine sounds remarkable" },
      { role: "userMessage", content: "short q" },
      { role: "apiMessage", content: "short a" },
    ]);
    const result = await runFlow(memoryFlow("10"), ctx);
    expect(result.memoryType).toBe("mem_0");
    const [summary, chat] = await chatRequestsWith(m);
    const asked = summary.body.messages[0].content;
    expect(asked).toMatch(/^Progressively summarize the lines of conversation provided, adding onto the previous summary/);
    expect(asked).toContain(
      `Current summary:\n\n\nNew lines of conversation:\nHuman: I am Ada and I write programs for the analytical engine ${m}\n` +
        "AI: Hello Ada, that engine sounds remarkable\n\nNew summary:",
    );
    // The summary first (a system message), then what fits, then the question.
    const rest = chat.body.messages.slice(1);
    expect(rest[0]).toEqual({ role: "system", content: `echo: ${asked}` });
    expect(rest.slice(1)).toEqual([
      { role: "user", content: "short q" },
      { role: "assistant", content: "short a" },
      { role: "user", content: `and now? ${m}` },
    ]);
  });

  it("a history within the limit goes as it is, with no summary call", async () => {
    const m = marker();
    const ctx = makeCtx(`next ${m}`);
    await storeTurns(ctx.chatflowid, ctx.sessionId, [
      { role: "userMessage", content: "hi" },
      { role: "apiMessage", content: "hello" },
    ]);
    await runFlow(memoryFlow("2000"), ctx);
    const requests = await chatRequestsWith(m);
    expect(requests).toHaveLength(1);
    expect(requests[0].body.messages.slice(1)).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: `next ${m}` },
    ]);
  });
});

describe("vectorDBQAChain", () => {
  it("answers from the vector store's chunks as the QA context, over POST /prediction", async () => {
    const flowData = flow([
      ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
      ...store("_0", [BAKERY, LIBRARY, STATION].join("\n\n")),
      standinModel(),
      ["chain_0", "vectorDBQAChain", "Chains", { model: ref("model_0"), vectorStore: ref("vs_0") }],
    ] as never);
    const id = await savedAndUpserted(flowData, ["vs_0"]);
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `Which platform do night trains leave from? ${m}` } });
    expect(answer.text).toBe(`echo: Which platform do night trains leave from? ${m}`);
    const [req] = await chatRequestsWith(m);
    expect(req.body.messages[0].role).toBe("system");
    expect(req.body.messages[0].content).toContain("Night trains depart from platform nine");
  });
});

describe("router chains", () => {
  it("multiPromptChain: the router prompt lists the prompts; the chosen one's template answers, DEFAULT converses", async () => {
    const flowData = flow([
      standinModel(),
      [
        "physics",
        "promptRetriever",
        "Retrievers",
        { name: "physics", description: "Good for physics", systemMessage: "You are a physicist. {input}" },
      ],
      [
        "history",
        "promptRetriever",
        "Retrievers",
        { name: "history", description: "Good for history", systemMessage: "You are a historian. {input}" },
      ],
      ["chain_0", "multiPromptChain", "Chains", { model: ref("model_0"), promptRetriever: [ref("physics"), ref("history")] }],
    ] as never);
    const m = marker();
    const result = await runFlow(flowData, makeCtx(`Who built Rome? [dest history] ${m}`));
    expect(result.text).toBe(`echo: You are a historian. Who built Rome? [dest history] ${m}`);
    const [router, destination] = await chatRequestsWith(m);
    const routerPrompt = router.body.messages[0].content;
    expect(routerPrompt).toMatch(/^Given a raw text input to a language model, select the model prompt best suited for the input\./);
    expect(routerPrompt).toContain("<< CANDIDATE PROMPTS >>\nphysics: Good for physics\nhistory: Good for history\n\n<< INPUT >>\n");
    expect(routerPrompt).toContain('"next_inputs.input" can just be the original input');
    expect(destination.body.messages).toEqual([{ role: "user", content: `You are a historian. Who built Rome? [dest history] ${m}` }]);

    const d = marker();
    const fallback = await runFlow(flowData, makeCtx(`Tell me a joke [dest DEFAULT] ${d}`));
    expect(fallback.text).toMatch(/^echo: The following is a friendly conversation between a human and an AI\./);
    expect(fallback.text).toContain(`Current conversation:\n\nHuman: Tell me a joke [dest DEFAULT] ${d}\nAI:`);

    const u = marker();
    const unknown = await runFlow(flowData, makeCtx(`x [dest chemistry] ${u}`)).then(
      () => undefined,
      (e: { status: number; message: string }) => e,
    );
    expect(unknown).toMatchObject({ status: 502, message: expect.stringContaining("Destination chemistry not found") });
  });

  it("multiRetrievalQAChain: the chosen store answers the query, with its source documents when asked", async () => {
    const flowData = flow([
      ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
      ...store("_a", BAKERY),
      ...store("_b", STATION),
      ["bakery", "vectorStoreRetriever", "Retrievers", { name: "bakery", description: "The bakery", vectorStore: ref("vs_a") }],
      ["station", "vectorStoreRetriever", "Retrievers", { name: "station", description: "The station", vectorStore: ref("vs_b") }],
      standinModel(),
      [
        "chain_0",
        "multiRetrievalQAChain",
        "Chains",
        { model: ref("model_0"), vectorStoreRetriever: [ref("bakery"), ref("station")], returnSourceDocuments: true },
      ],
    ] as never);
    const m = marker();
    const id = await savedAndUpserted(flowData, ["vs_a", "vs_b"]);
    const result = await json("POST", `/prediction/${id}`, { body: { question: `Where do night trains leave? [dest station] ${m}` } });
    expect(result.text).toBe(`echo: Where do night trains leave? [dest station] ${m}`);
    expect(result.sourceDocuments.map((d: { pageContent: string }) => d.pageContent)).toEqual([STATION]);
    const [router, qa] = await chatRequestsWith(m);
    expect(router.body.messages[0].content).toMatch(/^Given a query to a question answering system, select the system best suited/);
    expect(router.body.messages[0].content).toContain("bakery: The bakery\nstation: The station");
    expect(router.body.messages[0].content).toContain('"next_inputs.query" can just be the original input');
    expect(qa.body.messages[0].content).toContain("Night trains depart from platform nine");
  });
});

describe("xmlAgent", () => {
  const xmlFlow = () =>
    flow([
      standinModel(),
      ["calc_0", "calculator", "Tools", {}],
      ["mem_0", "bufferMemory", "Memory", {}],
      ["agent_0", "xmlAgent", "Agents", { model: ref("model_0"), tools: [ref("calc_0")], memory: ref("mem_0") }],
    ] as never);

  it("runs the tool the model names in XML, hands back its output, and answers with the model's next reply", async () => {
    const m = marker();
    const ctx = makeCtx(`What is six times seven? [xml calculator: 6*7] ${m}`);
    await storeTurns(ctx.chatflowid, ctx.sessionId, [
      { role: "userMessage", content: "hi" },
      { role: "apiMessage", content: "hello" },
    ]);
    const result = await runFlow(xmlFlow(), ctx);
    expect(result.text).toBe("echo: 42");
    expect(result.usedTools).toEqual([{ tool: "calculator", toolInput: { input: "6*7" }, toolOutput: "42" }]);

    const [first, second] = await chatRequestsWith(m);
    const prompt = first.body.messages[0].content;
    expect(first.body.messages).toHaveLength(1);
    expect(prompt).toMatch(
      /^You are a helpful assistant\. Help the user answer any questions\.\n\nYou have access to the following tools:\n\n\["calculator: /,
    );
    expect(prompt).toContain(
      `Previous Conversation:\n\nHuman:hi\nAI:hello\n\nQuestion: What is six times seven? [xml calculator: 6*7] ${m}\n`,
    );
    expect((first.body as { stop?: string[] }).stop).toEqual(["</tool_input>", "</final_answer>"]);
    expect(second.body.messages.slice(1)).toEqual([
      { role: "assistant", content: "<tool>calculator</tool><tool_input>6*7</tool_input>" },
      { role: "user", content: "42" },
    ]);
  });

  it("a <final_answer> ends the run at once; a prompt without {tools} is a 400", async () => {
    const m = marker();
    expect((await runFlow(xmlFlow(), makeCtx(`Capital of France? [xml final: Paris] ${m}`))).text).toBe("Paris");
    expect(await chatRequestsWith(m)).toHaveLength(1);
    const broken = flow([
      standinModel(),
      ["agent_0", "xmlAgent", "Agents", { model: ref("model_0"), tools: [], systemMessage: "Question: {input}" }],
    ] as never);
    const err = await runFlow(broken, makeCtx("x")).then(
      () => undefined,
      (e: { status: number; message: string }) => e,
    );
    expect(err).toMatchObject({
      status: 400,
      message: expect.stringContaining('missing required input variables: ["tools","agent_scratchpad"]'),
    });
  });
});
