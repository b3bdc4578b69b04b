// Images uploaded with a question reach the chat model (Flowise's "Allow Image Uploads"): through
// POST /prediction/{id}, what the model stand-ins received — the question's user message with an
// image part (OpenAI's image_url, Anthropic's base64 image block) — for a Conversation Chain, a Tool
// Agent and an Agentflow V2 LLM node; nothing when the model's switch is off; a link as it is. And
// what the widget's GET /public-chatbotConfig says the chat may upload.
import { describe, expect, inject, it } from "vitest";
import conversationChain from "./fixtures/conversation-chain.json";
import { toolAgentFlow } from "./agents-flows";
import { type Fixture, flowDataOf, marker, pointAtStandin, requestsWith } from "./helpers";
import { call, expectError, json } from "../helpers";
import { afEdge, afNode, llm, modelConfig, saveAgentflowOf, start } from "../agentflow-api/flows";
import { setVars } from "../security/helpers";

// A 1×1 PNG.
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const upload = { type: "file", name: "dot.png", mime: "image/png", data: PNG };

type Part = { type: string; text?: string; image_url?: { url: string; detail?: string } };
type Message = { role: string; content: string | Part[] };

const openAICredential = async () =>
  (await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } }))
    .id as string;

/** The conversation-chain fixture (its chatOpenAI at the stand-in) with `model` inputs merged in, saved. */
async function saveConversationChain(model: Record<string, unknown> = {}): Promise<string> {
  const cred = await openAICredential();
  const flowData = flowDataOf(conversationChain as unknown as Fixture, (nodes) => {
    const chat = nodes.get("chatOpenAI_0")!;
    pointAtStandin(chat, cred);
    Object.assign(chat.data.inputs!, model);
  });
  return (await json("POST", "/chatflows", { body: { name: "images", flowData } })).id;
}

/** The user messages of the one model request carrying `m`. */
async function userMessagesWith(m: string): Promise<Message[]> {
  const [req] = await requestsWith(m);
  expect(req, `the stand-in got a request with ${m}`).toBeDefined();
  return (req.body.messages as unknown as Message[]).filter((x) => x.role === "user");
}

const imagesOf = (message: Message): Part[] =>
  Array.isArray(message.content) ? message.content.filter((p) => p.type === "image_url") : [];

describe("chatflows: the question's images reach a chat model with Allow Image Uploads", () => {
  it("Conversation Chain: the user message carries the question and the image's data URL (the node's imageResolution as detail)", async () => {
    const id = await saveConversationChain({ allowImageUploads: true, imageResolution: "high" });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `what is this? ${m}`, uploads: [upload] } });
    expect(answer.text).toContain(m);
    const [question] = (await userMessagesWith(m)).slice(-1);
    expect(question.content).toEqual([
      { type: "text", text: `what is this? ${m}` },
      { type: "image_url", image_url: { url: PNG, detail: "high" } },
    ]);
    // The message records the upload as before (stored in R2, without its data).
    const stored = await json<any[]>("GET", `/chatmessage/${id}`);
    expect(stored[0].fileUploads).toEqual([{ type: "stored-file", name: "dot.png", mime: "image/png" }]);
  });

  it("an upload whose data URI has no type (or a generic one) keeps the upload's own mime, and still reaches the model as an image", async () => {
    const id = await saveConversationChain({ allowImageUploads: true });
    const base64 = PNG.slice(PNG.indexOf(";base64,"));
    for (const data of [`data:${base64}`, `data:application/octet-stream${base64}`]) {
      const m = marker();
      await json("POST", `/prediction/${id}`, { body: { question: `typed? ${m}`, chatId: m, uploads: [{ ...upload, data }] } });
      expect(
        imagesOf((await userMessagesWith(m)).at(-1)!).map((p) => p.image_url?.url),
        data.slice(0, 40),
      ).toEqual([PNG]);
      const stored = await json<any[]>("GET", `/chatmessage/${id}?chatId=${m}`);
      expect(stored[0].fileUploads).toEqual([{ type: "stored-file", name: "dot.png", mime: "image/png" }]);
    }
  });

  // A later turn's history with the earlier images: image-history.test.ts.

  it("allowImageUploads off: no image part, the question as plain text", async () => {
    const id = await saveConversationChain({ allowImageUploads: false });
    const m = marker();
    await json("POST", `/prediction/${id}`, { body: { question: `no eyes ${m}`, uploads: [upload] } });
    const [question] = (await userMessagesWith(m)).slice(-1);
    expect(question.content).toBe(`no eyes ${m}`);
  });

  it("a url upload goes to the model as the link itself; a non-image file and a non-http link are not shown", async () => {
    const id = await saveConversationChain({ allowImageUploads: true, imageResolution: "" });
    const m = marker();
    const link = "https://images.example.com/cat.png";
    await json("POST", `/prediction/${id}`, {
      body: {
        question: `link ${m}`,
        uploads: [
          { type: "url", name: "cat.png", mime: "image/png", data: link },
          { type: "url", name: "local", mime: "image/png", data: "file:///etc/passwd" },
          { type: "file", name: "a.txt", mime: "text/plain", data: "data:text/plain;base64,aGk=" },
        ],
      },
    });
    const [question] = (await userMessagesWith(m)).slice(-1);
    expect(imagesOf(question)).toEqual([{ type: "image_url", image_url: { url: link } }]);
  });

  it("an image over MAX_UPLOAD_MB is a 413, and nothing is stored", async () => {
    const restore = setVars({ MAX_UPLOAD_MB: "0.001" });
    try {
      const id = await saveConversationChain({ allowImageUploads: true });
      const big = `data:image/png;base64,${btoa("x".repeat(3000))}`;
      const res = await call("POST", `/prediction/${id}`, { body: { question: "big", uploads: [{ ...upload, data: big }] } });
      expect((await expectError(res, 413)).message).toContain("dot.png");
      expect(await json<any[]>("GET", `/chatmessage/${id}`)).toEqual([]);
    } finally {
      restore();
    }
  });

  it("Tool Agent: the first model turn's user message carries the image", async () => {
    const cred = await openAICredential();
    const flowData = toolAgentFlow({ credential: cred, model: { allowImageUploads: true, imageResolution: "" } });
    const { id } = await json("POST", "/chatflows", { body: { name: "agent", flowData } });
    const m = marker();
    await json("POST", `/prediction/${id}`, { body: { question: `describe ${m}`, uploads: [upload], streaming: false } });
    const [question] = (await userMessagesWith(m)).slice(-1);
    expect(question.content).toEqual([
      { type: "text", text: `describe ${m}` },
      { type: "image_url", image_url: { url: PNG } },
    ]);
  });

  it("Anthropic: the image goes as its base64 image block", async () => {
    const restore = setVars({ OUTBOUND_ALLOW: "127.0.0.1", ANTHROPIC_BASE_URL: inject("anthropicUrl") });
    try {
      const cred = (
        await json("POST", "/credentials", {
          body: { name: "anthropic", credentialName: "anthropicApi", plainDataObj: { anthropicApiKey: "sk-ant-img" } },
        })
      ).id;
      const flowData = flowDataOf(conversationChain as unknown as Fixture, (nodes) => {
        const chat = nodes.get("chatOpenAI_0")!;
        chat.data.name = "chatAnthropic";
        chat.data.credential = cred;
        chat.data.inputs = { modelName: "claude-3-5-haiku-latest", allowImageUploads: true, streaming: false };
      });
      const { id } = await json("POST", "/chatflows", { body: { name: "claude", flowData } });
      const m = marker();
      await json("POST", `/prediction/${id}`, { body: { question: `see ${m}`, uploads: [upload] } });
      const [req] = (await (await fetch(`${inject("anthropicUrl")}/requests?contains=${m}`)).json()) as any[];
      const last = (req.body.messages as Array<{ role: string; content: unknown[] }>).at(-1)!;
      expect(last).toEqual({
        role: "user",
        content: [
          { type: "text", text: `see ${m}` },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG.slice(PNG.indexOf(",") + 1) } },
        ],
      });
    } finally {
      restore();
    }
  });
});

describe("Agentflow V2: the first LLM/Agent node with allowImageUploads gives the model the question's images", () => {
  /** Start → LLM (`first` inputs) → a second LLM; both with memory, as Flowise's canvas saves them. */
  async function twoLlms(first: Record<string, unknown>, second: Record<string, unknown> = {}) {
    const cred = await openAICredential();
    const a = llm("llmAgentflow_0", cred, first);
    const b = llm("llmAgentflow_1", cred, { llmMessages: [{ role: "user", content: "now the second node" }], ...second });
    const { id } = await saveAgentflowOf(
      [start(), a, b],
      [afEdge("startAgentflow_0", "llmAgentflow_0"), afEdge("llmAgentflow_0", "llmAgentflow_1")],
    );
    return { id, cred };
  }

  it("LLM node: an image-only user message just before the question; executed data keeps a reference, not the data", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf(
      [start(), llm("llmAgentflow_0", cred, { llmModelConfig: modelConfig(cred, { allowImageUploads: true }) })],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
    const m = marker();
    const link = "https://images.example.com/a.jpg";
    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: `look ${m}`, uploads: [upload, { type: "url", name: "a.jpg", mime: "image/jpeg", data: link }] },
    });
    const users = await userMessagesWith(m);
    expect(users.slice(-2)).toEqual([
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: PNG } },
          { type: "image_url", image_url: { url: link } },
        ],
      },
      { role: "user", content: `look ${m}` },
    ]);
    const llmData = answer.agentFlowExecutedData.find((e: any) => e.nodeId === "llmAgentflow_0").data;
    expect(llmData.input.messages.at(-2)).toEqual({
      role: "user",
      content: "",
      images: [
        { type: "stored-file", name: "dot.png", mime: "image/png" },
        { type: "url", name: "a.jpg", mime: "image/jpeg", data: link },
      ],
    });
    expect(JSON.stringify(answer.agentFlowExecutedData)).not.toContain(PNG.slice(30));
  });

  it("off on the model: no image message; a later node sees the images only when its own model takes them", async () => {
    const off = await twoLlms({});
    const m1 = marker();
    await json("POST", `/prediction/${off.id}`, { body: { question: `plain ${m1}`, uploads: [upload] } });
    for (const req of await requestsWith(m1)) {
      expect(JSON.stringify(req.body.messages)).not.toContain("image_url");
    }

    const cred = await openAICredential();
    const on = await twoLlms(
      { llmModelConfig: modelConfig(cred, { allowImageUploads: true }) },
      { llmModelConfig: modelConfig(cred, { allowImageUploads: true }) },
    );
    const m2 = marker();
    await json("POST", `/prediction/${on.id}`, { body: { question: `both ${m2}`, uploads: [upload] } });
    const second = (await requestsWith(m2)).find((r) => JSON.stringify(r.body.messages).includes("now the second node"))!;
    expect(second.body.messages as unknown as Message[]).toContainEqual({
      role: "user",
      content: [{ type: "image_url", image_url: { url: PNG } }],
    });
  });

  it("Agent node: its first model turn gets the image message before the question", async () => {
    const cred = await openAICredential();
    const agent = afNode("agentAgentflow_0", "Agent 0", {
      agentModel: "chatOpenAI",
      agentModelConfig: modelConfig(cred, { allowImageUploads: "true" }),
      agentMessages: [],
      agentEnableMemory: true,
    });
    const { id } = await saveAgentflowOf([start(), agent], [afEdge("startAgentflow_0", "agentAgentflow_0")]);
    const m = marker();
    await json("POST", `/prediction/${id}`, { body: { question: `agent ${m}`, uploads: [upload] } });
    const users = await userMessagesWith(m);
    expect(users.slice(-2)).toEqual([
      { role: "user", content: [{ type: "image_url", image_url: { url: PNG } }] },
      { role: "user", content: `agent ${m}` },
    ]);
  });
});

describe("GET /public-chatbotConfig/{id}: the widget may upload images where the model is shown them", () => {
  it("reports images as GET /chatflows-uploads does: on with Allow Image Uploads, off without", async () => {
    const on = await saveConversationChain({ allowImageUploads: true });
    await json("PUT", `/chatflows/${on}`, { body: { isPublic: true } });
    const config = await json("GET", `/public-chatbotConfig/${on}`, { token: null });
    expect(config.uploads).toEqual({
      isSpeechToTextEnabled: false,
      isImageUploadAllowed: true,
      imgUploadSizeAndTypes: [{ fileTypes: ["image/gif", "image/jpeg", "image/png", "image/webp"], maxUploadSize: 5 }],
      isRAGFileUploadAllowed: false,
      fileUploadSizeAndTypes: [],
    });
    const studio = await json("GET", `/chatflows-uploads/${on}`, { token: null });
    expect(studio).toMatchObject({ isImageUploadAllowed: true, imgUploadSizeAndTypes: config.uploads.imgUploadSizeAndTypes });

    const off = await saveConversationChain({ allowImageUploads: false });
    await json("PUT", `/chatflows/${off}`, { body: { isPublic: true } });
    const plain = await json("GET", `/public-chatbotConfig/${off}`, { token: null });
    expect(plain.uploads).toMatchObject({ isImageUploadAllowed: false, imgUploadSizeAndTypes: [] });
  });

  it("an agentflow: on when its LLM node's model config allows images", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf(
      [start(), llm("llmAgentflow_0", cred, { llmModelConfig: modelConfig(cred, { allowImageUploads: true }) })],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
      { isPublic: true },
    );
    expect((await json("GET", `/public-chatbotConfig/${id}`, { token: null })).uploads.isImageUploadAllowed).toBe(true);
  });
});
