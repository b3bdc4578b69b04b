// conversationalRetrievalToolAgent: the tool agent whose system message's {context} holds what its
// vector store retriever finds for the standalone question (Flowise's rephrasePrompt, by the
// rephrase model or the agent's), then calls its tools as toolAgent does; against the stand-in.
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRIEVAL_AGENT_SYSTEM } from "../../src/engine/chatflow/nodes/retrieval-tool-agent";
import { callOf } from "./agents-flows";
import { credential, makeCtx, marker, requestsWith, runFlow, standinUrl, storeTurns } from "./helpers";
import { townStore, upsertTown } from "./llamaindex-flows";
import { BAKERY, flow, ref } from "./retrieval-flows";

const REPHRASE =
  "Given the following conversation and a follow up question, rephrase the follow up question to be a standalone question.\n\n" +
  "Chat History:\n{chat_history}\nFollow Up Input: {question}\nStandalone Question:";

async function agentFlow(inputs: Record<string, unknown> = {}) {
  const cred = await credential("openAIApi", { openAIApiKey: "sk-retrieval-agent" });
  return flow([
    ...townStore("1"),
    ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1`, credential: cred }],
    ["mem_0", "bufferMemory", "Memory", { memoryKey: "chat_history" }],
    ["calc_0", "calculator", "Tools", {}],
    [
      "agent_0",
      "conversationalRetrievalToolAgent",
      "Agents",
      { model: ref("model_0"), memory: ref("mem_0"), tools: [ref("calc_0")], vectorStoreRetriever: ref("vs_0"), ...inputs },
    ],
  ] as never);
}

type Message = { role: string; content: string };
const chatBodies = async (m: string) =>
  (await requestsWith(m))
    .filter((r) => r.path.includes("/chat/completions"))
    .map((r) => r.body as { messages: Message[]; tools?: unknown[] });

describe("conversationalRetrievalToolAgent", () => {
  it("rephrases with the history, retrieves with the standalone question, and the passage reaches the model; tools work", async () => {
    const flowData = await agentFlow({ rephrasePrompt: REPHRASE });
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const sessionId = crypto.randomUUID();
    await storeTurns(chatflowid, sessionId, [
      { role: "userMessage", content: "Tell me about the bakery" },
      { role: "apiMessage", content: "It is on Mill Street." },
    ]);
    const m = marker();
    const question = `When does the bakery open in the morning? ${m} ${callOf("calculator", { input: "2+2" })}`;
    const result = await runFlow(flowData, makeCtx(question, { chatflowid, sessionId }));
    expect(result.text).toBe("tools said: 4");
    expect(result.usedTools).toEqual([{ tool: "calculator", toolInput: { input: "2+2" }, toolOutput: "4" }]);

    const bodies = await chatBodies(m);
    const rephrase = bodies.find((b) => !b.tools);
    expect(rephrase?.messages).toEqual([
      {
        role: "user",
        content: REPHRASE.replace("{chat_history}", "Human: Tell me about the bakery\nAssistant: It is on Mill Street.").replace(
          "{question}",
          question,
        ),
      },
    ]);
    const agentTurns = bodies.filter((b) => b.tools);
    expect(agentTurns).toHaveLength(2);
    const [system, ...rest] = agentTurns[0].messages;
    expect(system).toEqual({ role: "system", content: DEFAULT_RETRIEVAL_AGENT_SYSTEM.replace("{context}", `<doc id='0'>${BAKERY}</doc>`) });
    expect(rest.map((x) => x.content)).toEqual(["Tell me about the bakery", "It is on Mill Street.", question]);
  });

  it("without a rephrasePrompt the question as asked is the retriever's query; a custom system message gets {context}", async () => {
    const flowData = await agentFlow({ systemMessage: "Answer from this:\n{context}\nNothing else." });
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const m = marker();
    const result = await runFlow(flowData, makeCtx(`Which library cards are free? ${m}`, { chatflowid }));
    expect(result.text).toBe(`echo: Which library cards are free? ${m}`);
    const bodies = await chatBodies(m);
    expect(bodies).toHaveLength(1);
    expect(bodies[0].messages[0].content).toMatch(/^Answer from this:\n<doc id='0'>The Riverside Library lends novels/);
    expect(bodies[0].messages[0].content).toMatch(/<\/doc>\nNothing else\.$/);
  });

  it("without a vector store retriever it is a 400 naming the input", async () => {
    const flowData = JSON.parse(await agentFlow());
    flowData.nodes.find((n: { id: string }) => n.id === "agent_0").data.inputs.vectorStoreRetriever = "";
    const err = await runFlow(JSON.stringify(flowData), makeCtx("hi")).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/vectorStoreRetriever/);
  });
});
