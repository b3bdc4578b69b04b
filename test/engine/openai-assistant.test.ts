// openAIAssistant: Flowise's "OpenAI Assistant" template (calculator, serper, customTool) over an
// edgeflow assistant saved with /assistants: its model, credential, instructions and stored Tools,
// the flow's tools added, the session's messages as its thread. Against the OpenAI-compatible
// stand-in's tool calling ([call NAME {json}]) and the services stand-in's Serper.
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createAssistant } from "../../src/services/assistants";
import { flowDataWarning } from "../../src/services/chatflows";
import { createTool } from "../../src/services/tools";
import { LOCAL, newStore, upsert as storeUpsert } from "../routes/document-store-helpers";
import { callOf } from "./agents-flows";
import { TOWN_TEXT } from "./retrieval-flows";
import assistantTemplate from "./fixtures/openai-assistant.json";
import {
  type Fixture,
  closedUrl,
  credential,
  db,
  flowDataOf,
  makeCtx,
  marker,
  recordingSink,
  requestsWith,
  runFlow,
  runtimeWith,
  standinUrl,
  storeTurns,
} from "./helpers";

const services = () => inject("servicesUrl");

async function setup(details: Record<string, unknown> = {}, modelBase = `${standinUrl()}/v1`) {
  const modelCred = await credential("openAIApi", { openAIApiKey: "sk-assistant-key-1", basePath: modelBase });
  const city = await createTool(
    { db: db() },
    {
      name: "lookup_city",
      description: "facts about a city",
      func: "return `${$city} is lovely`",
      schema: JSON.stringify([{ property: "city", type: "string", description: "a city", required: true }]),
    },
  );
  const shout = await createTool(
    { db: db() },
    {
      name: "shout",
      description: "shouts a word",
      func: "return String($word).toUpperCase()",
      schema: JSON.stringify([{ property: "word", type: "string", description: "a word", required: true }]),
    },
  );
  const assistant = await createAssistant(
    { db: db() },
    {
      credential: modelCred,
      details: {
        name: "Pat",
        model: "assistant-model-x",
        instructions: "You are Pat, a travel helper.",
        temperature: 0.2,
        tools: ["function"],
        tool_resources: { function: { tool_ids: [city.id] } },
        ...details,
      },
    },
  );
  const serper = await credential("serperApi", { serperApiKey: "serper-secret-key-42" });
  const flow = flowDataOf(assistantTemplate as unknown as Fixture, (n) => {
    n.get("openAIAssistant_0")!.data.inputs!.selectedAssistant = assistant.id;
    n.get("customTool_0")!.data.inputs!.selectedTool = shout.id;
    n.get("serper_0")!.data.credential = serper;
  });
  return { flow, assistant };
}

const ctxFor = (question: string, serperBase = `${services()}/serper`, over = {}) =>
  makeCtx(question, { runtime: runtimeWith({ SERPER_BASE_URL: serperBase }), ...over });

type Wire = {
  body: {
    model: string;
    temperature?: number;
    messages: Array<{ role: string; content: string | null }>;
    tools?: Array<{ function: { name: string } }>;
  };
  headers: Record<string, string | null>;
};
const offered = (req: Wire) => (req.body.tools ?? []).map((t) => t.function.name);

describe("OpenAI Assistant template (openAIAssistant over an edgeflow assistant)", () => {
  it("saves without a warning", () => {
    expect(flowDataWarning(flowDataOf(assistantTemplate as unknown as Fixture))).toBeUndefined();
  });

  it("the assistant's model, credential and instructions; its stored Tool and the flow's tools, each called", async () => {
    const { flow } = await setup();
    const m = marker();
    const q = `Plan ${m} ${callOf("lookup_city", { city: "Lyon" })} ${callOf("calculator", { input: "6*7" })} ${callOf("search", { input: `food ${m}` })} ${callOf("shout", { word: "hi" })}`;
    const result = await runFlow(flow, ctxFor(q));
    expect(result.text).toBe(`tools said: Lyon is lovely | 42 | serper snippet for food ${m} | HI`);
    expect(result.usedTools?.map((u) => u.tool)).toEqual(["lookup_city", "calculator", "search", "shout"]);
    const reqs = (await requestsWith(m)) as unknown as Wire[];
    expect(reqs).toHaveLength(5);
    const [first] = reqs;
    expect(first.headers.authorization).toBe("Bearer sk-assistant-key-1");
    expect(first.body.model).toBe("assistant-model-x");
    expect(first.body.temperature).toBe(0.2);
    expect(first.body.messages[0]).toEqual({ role: "system", content: "You are Pat, a travel helper." });
    expect(offered(first)).toEqual(["lookup_city", "calculator", "search", "shout"]);
    const got = await (await fetch(`${services()}/requests?service=serper&contains=${m}`)).json<
      Array<{ headers: Record<string, string> }>
    >();
    expect(got).toHaveLength(1);
    expect(got[0].headers["x-api-key"]).toBe("serper-secret-key-42");
  });

  it("the session's stored messages are its thread", async () => {
    const { flow } = await setup();
    const chatflowid = crypto.randomUUID();
    await storeTurns(chatflowid, "thread-1", [
      { role: "userMessage", content: "I live in Oslo" },
      { role: "apiMessage", content: "Noted" },
    ]);
    const m = marker();
    await runFlow(flow, ctxFor(`Where do I live? ${m}`, undefined, { chatflowid, sessionId: "thread-1" }));
    const [req] = (await requestsWith(m)) as unknown as Wire[];
    expect(req.body.messages.slice(1)).toEqual([
      { role: "user", content: "I live in Oslo" },
      { role: "assistant", content: "Noted" },
      { role: "user", content: `Where do I live? ${m}` },
    ]);
  });

  it("streams the answer's tokens", async () => {
    const { flow } = await setup();
    const rec = recordingSink();
    const m = marker();
    const result = await runFlow(flow, ctxFor(`Hello there ${m}`), rec.sink);
    expect(rec.tokens.length).toBeGreaterThan(1);
    expect(rec.text()).toBe(result.text);
    expect(result.text).toBe(`echo: Hello there ${m}`);
  });

  it("Serper down: the model reads a tool error without the key, and answers", async () => {
    const { flow } = await setup();
    const m = marker();
    const result = await runFlow(flow, ctxFor(`${callOf("search", { input: "x" })} ${m}`, `${closedUrl()}/serper`));
    expect(result.usedTools![0].toolOutput).toMatch(/^Error: .*Serper.*unreachable/);
    expect(JSON.stringify(result)).not.toContain("serper-secret-key-42");
    expect(result.text).toBe(`tools said: ${result.usedTools![0].toolOutput}`);
  });

  it("file_search: the assistant's document store as a retriever tool; its passages are the sourceDocuments", async () => {
    const store = await newStore("assistant docs");
    await storeUpsert(store.id, {
      loader: { name: "plainText", config: { text: TOWN_TEXT } },
      splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
      ...LOCAL,
    });
    const { flow } = await setup({ tools: ["file_search"], tool_resources: { file_search: { document_store_ids: [store.id] } } });
    const m = marker();
    const result = await runFlow(flow, ctxFor(`${callOf("file_search_0", { input: "bakery bread" })} ${m}`));
    expect(result.usedTools?.[0].tool).toBe("file_search_0");
    expect(result.usedTools?.[0].toolOutput).toContain("bakery");
    expect(result.sourceDocuments?.length).toBeGreaterThan(0);
    const [first] = (await requestsWith(m)) as unknown as Wire[];
    expect(offered(first)).toEqual(["file_search_0", "calculator", "search", "shout"]);
  });

  it("no assistant selected, or one that does not exist → 400 naming the node", async () => {
    const { flow } = await setup();
    const unselected = flowDataOf(
      JSON.parse(flow) as Fixture,
      (n) => void (n.get("openAIAssistant_0")!.data.inputs!.selectedAssistant = ""),
    );
    await expect(runFlow(unselected, ctxFor("q"))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("OpenAI Assistant (openAIAssistant_0) needs an assistant"),
    });
    const missing = flowDataOf(
      JSON.parse(flow) as Fixture,
      (n) => void (n.get("openAIAssistant_0")!.data.inputs!.selectedAssistant = crypto.randomUUID()),
    );
    await expect(runFlow(missing, ctxFor("q"))).rejects.toMatchObject({ status: 400, message: expect.stringContaining("does not exist") });
  });

  it("the assistant's model down → 502", async () => {
    const { flow } = await setup({}, `${closedUrl()}/v1`);
    await expect(runFlow(flow, ctxFor(`hi ${marker()}`))).rejects.toMatchObject({ status: 502 });
  });
});
