// Earlier turns' images on later turns (Flowise's memory reads the stored user messages' fileUploads
// back): through POST /prediction/{id} with the same chatId, what the model stand-in received on the
// second turn — the first turn's user message with its image part — for a Conversation Chain, a Tool
// Agent and Agentflow V2's LLM and Agent nodes with memory; text only when the model's switch is off;
// a link as it is and a deleted file left out. And, on the engine's ports, what R2 was asked for: nothing for a
// text-only history or a model without images, and only the most recent image turns (the bound).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import conversationChain from "./fixtures/conversation-chain.json";
import { toolAgentFlow } from "./agents-flows";
import { type Fixture, credential, db, flowDataOf, makeCtx, marker, pointAtStandin, requestsWith, runFlow, runtimeWith } from "./helpers";
import { json } from "../helpers";
import { afEdge, afNode, llm, modelConfig, saveAgentflowOf, start } from "../agentflow-api/flows";
import { chatMessage } from "../../src/db/schema";
import type { Env } from "../../src/env";
import { PAST_IMAGE_TURNS } from "../../src/engine/core/past-images";

// A 1×1 PNG.
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PNG_BYTES = Uint8Array.from(atob(PNG.slice(PNG.indexOf(",") + 1)), (c) => c.charCodeAt(0));
const upload = { type: "file", name: "dot.png", mime: "image/png", data: PNG };
const LINK = "https://images.example.com/cat.jpg";

type Part = { type: string; text?: string; image_url?: { url: string; detail?: string } };
type Message = { role: string; content: string | Part[] };

const openAICredential = async () =>
  (await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } }))
    .id as string;

/** The conversation-chain fixture (its chatOpenAI at the stand-in; its imageResolution is "low") with `model` merged in. */
const conversationFlow = (cred: string, model: Record<string, unknown>) =>
  flowDataOf(conversationChain as unknown as Fixture, (nodes) => {
    const chat = nodes.get("chatOpenAI_0")!;
    pointAtStandin(chat, cred);
    Object.assign(chat.data.inputs!, model);
  });

async function saveConversationChain(model: Record<string, unknown>): Promise<string> {
  const flowData = conversationFlow(await openAICredential(), { imageResolution: "", ...model });
  return (await json("POST", "/chatflows", { body: { name: "image history", flowData } })).id;
}

/** The user messages of the one model request carrying `m`. */
async function userMessagesWith(m: string): Promise<Message[]> {
  const [req] = await requestsWith(m);
  expect(req, `the stand-in got a request with ${m}`).toBeDefined();
  return (req.body.messages as unknown as Message[]).filter((x) => x.role === "user");
}

/** Two turns of one chat: the first with `uploads`, the second text only; the second turn's marker. */
async function twoTurns(id: string, uploads: unknown[], between?: (chatId: string) => Promise<void>) {
  const chatId = crypto.randomUUID();
  const m1 = marker();
  await json("POST", `/prediction/${id}`, { body: { question: `first ${m1}`, chatId, uploads, streaming: false } });
  await between?.(chatId);
  const m2 = marker();
  const answer = await json("POST", `/prediction/${id}`, { body: { question: `second ${m2}`, chatId, streaming: false } });
  return { m1, m2, answer };
}

describe("chatflows: a later turn's history carries the earlier turns' images", () => {
  it("Conversation Chain: the first question comes back with its image (text first, the node's detail) on the second turn", async () => {
    const id = await saveConversationChain({ allowImageUploads: true, imageResolution: "high" });
    const { m1, m2 } = await twoTurns(id, [upload]);
    expect(await userMessagesWith(m2)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: `first ${m1}` },
          { type: "image_url", image_url: { url: PNG, detail: "high" } },
        ],
      },
      { role: "user", content: `second ${m2}` },
    ]);
  });

  it("allowImageUploads off: the earlier question is its text only", async () => {
    const id = await saveConversationChain({ allowImageUploads: false });
    const { m1, m2 } = await twoTurns(id, [upload]);
    expect(await userMessagesWith(m2)).toEqual([
      { role: "user", content: `first ${m1}` },
      { role: "user", content: `second ${m2}` },
    ]);
  });

  it("a link goes again as it is; a stored file that was deleted is left out, silently", async () => {
    const id = await saveConversationChain({ allowImageUploads: true });
    const uploads = [upload, { type: "url", name: "cat.jpg", mime: "image/jpeg", data: LINK }];
    const { m1, m2, answer } = await twoTurns(id, uploads, (chatId) => (env as unknown as Env).FILES.delete(`${id}/${chatId}/dot.png`));
    expect(answer.text).toContain(m2);
    expect((await userMessagesWith(m2))[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: `first ${m1}` },
        { type: "image_url", image_url: { url: LINK } },
      ],
    });
  });

  it("Tool Agent (buffer memory): the first model turn's history has the earlier image", async () => {
    const flowData = toolAgentFlow({ credential: await openAICredential(), model: { allowImageUploads: true, imageResolution: "" } });
    const { id } = await json("POST", "/chatflows", { body: { name: "agent", flowData } });
    const { m1, m2 } = await twoTurns(id, [upload]);
    const users = await userMessagesWith(m2);
    expect(users[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: `first ${m1}` },
        { type: "image_url", image_url: { url: PNG } },
      ],
    });
    expect(users.at(-1)).toEqual({ role: "user", content: `second ${m2}` });
  });
});

describe("Agentflow V2: an LLM node with memory gives its model the earlier turns' images", () => {
  async function llmFlow(allowImageUploads: boolean) {
    const cred = await openAICredential();
    return saveAgentflowOf(
      [start(), llm("llmAgentflow_0", cred, { llmModelConfig: modelConfig(cred, { allowImageUploads }) })],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
  }

  it("on: the earlier user message carries its image; executed data keeps the reference, not the data", async () => {
    const { id } = await llmFlow(true);
    const { m1, m2, answer } = await twoTurns(id, [upload]);
    expect(await userMessagesWith(m2)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: `first ${m1}` },
          { type: "image_url", image_url: { url: PNG } },
        ],
      },
      { role: "user", content: `second ${m2}` },
    ]);
    const llmData = answer.agentFlowExecutedData.find((e: any) => e.nodeId === "llmAgentflow_0").data;
    expect(llmData.input.messages[0]).toEqual({
      role: "user",
      content: `first ${m1}`,
      images: [{ type: "stored-file", name: "dot.png", mime: "image/png" }],
    });
    expect(JSON.stringify(answer.agentFlowExecutedData)).not.toContain(PNG.slice(30));
  });

  it("Agent node: the earlier user message carries its image too", async () => {
    const cred = await openAICredential();
    const agent = afNode("agentAgentflow_0", "Agent 0", {
      agentModel: "chatOpenAI",
      agentModelConfig: modelConfig(cred, { allowImageUploads: true }),
      agentMessages: [],
      agentEnableMemory: true,
    });
    const { id } = await saveAgentflowOf([start(), agent], [afEdge("startAgentflow_0", "agentAgentflow_0")]);
    const { m1, m2 } = await twoTurns(id, [upload]);
    expect((await userMessagesWith(m2))[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: `first ${m1}` },
        { type: "image_url", image_url: { url: PNG } },
      ],
    });
  });

  it("off: the earlier user message is its text only", async () => {
    const { id } = await llmFlow(false);
    const { m1, m2 } = await twoTurns(id, [upload]);
    expect(await userMessagesWith(m2)).toEqual([
      { role: "user", content: `first ${m1}` },
      { role: "user", content: `second ${m2}` },
    ]);
  });
});

describe("the engine's R2 reads for earlier images", () => {
  /** The runtime with its R2 bucket counting reads (and `vars` patched). */
  function countingRuntime(vars: Partial<Env> = {}) {
    const files = (env as unknown as Env).FILES;
    const reads: string[] = [];
    const bucket = new Proxy(files, {
      get: (target, key) =>
        key === "get"
          ? (k: string, o?: R2GetOptions) => {
              reads.push(k);
              return target.get(k, o);
            }
          : Reflect.get(target, key).bind(target),
    });
    return { reads, runtime: runtimeWith({ ...vars, FILES: bucket }) };
  }

  /** A session of `turns` user/assistant exchanges; `imaged` ones recorded an image stored in R2 as R2 holds it. */
  async function session(chatflowid: string, turns: number, imaged: (i: number) => boolean) {
    const chatId = crypto.randomUUID();
    const base = Date.parse("2026-01-01T00:00:00.000Z");
    for (let i = 0; i < turns; i++) {
      const name = `pic${i}.png`;
      if (imaged(i)) await (env as unknown as Env).FILES.put(`${chatflowid}/${chatId}/${name}`, PNG_BYTES);
      const row = { chatflowid, chatType: "EXTERNAL" as const, chatId, sessionId: chatId };
      await db()
        .insert(chatMessage)
        .values([
          {
            ...row,
            id: crypto.randomUUID(),
            role: "userMessage",
            content: `question ${i}`,
            createdDate: new Date(base + i * 2000).toISOString(),
            fileUploads: imaged(i) ? JSON.stringify([{ type: "stored-file", name, mime: "image/png" }]) : null,
          },
          {
            ...row,
            id: crypto.randomUUID(),
            role: "apiMessage",
            content: `answer ${i}`,
            createdDate: new Date(base + i * 2000 + 1000).toISOString(),
          },
        ]);
    }
    return chatId;
  }

  it(`only the ${PAST_IMAGE_TURNS} latest earlier turns with images are read and shown; a model without images reads none`, async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-test" });
    const chatflowid = crypto.randomUUID();
    const chatId = await session(chatflowid, 5, () => true);

    const on = countingRuntime();
    const m = marker();
    await runFlow(
      conversationFlow(cred, { allowImageUploads: true }),
      makeCtx(`now ${m}`, { runtime: on.runtime, chatflowid, chatId, sessionId: chatId }),
    );
    expect(on.reads.sort()).toEqual([2, 3, 4].map((i) => `${chatflowid}/${chatId}/pic${i}.png`));
    const shown = (await userMessagesWith(m)).map((u) =>
      typeof u.content === "string" ? u.content : u.content.map((p) => p.type).join("+"),
    );
    expect(shown).toEqual(["question 0", "question 1", "text+image_url", "text+image_url", "text+image_url", `now ${m}`]);

    const off = countingRuntime();
    const m2 = marker();
    await runFlow(
      conversationFlow(cred, { allowImageUploads: false }),
      makeCtx(`plain ${m2}`, { runtime: off.runtime, chatflowid, chatId, sessionId: chatId }),
    );
    expect(off.reads).toEqual([]);
    expect(JSON.stringify((await requestsWith(m2))[0].body.messages)).not.toContain("image_url");
  });

  it("a text-only history reads nothing from R2, even for a model that takes images", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-test" });
    const chatflowid = crypto.randomUUID();
    const chatId = await session(chatflowid, 3, () => false);
    const { reads, runtime } = countingRuntime();
    const m = marker();
    await runFlow(
      conversationFlow(cred, { allowImageUploads: true }),
      makeCtx(`text ${m}`, { runtime, chatflowid, chatId, sessionId: chatId }),
    );
    expect(reads).toEqual([]);
    expect((await userMessagesWith(m)).map((u) => u.content)).toEqual(["question 0", "question 1", "question 2", `text ${m}`]);
  });

  it("an earlier image over MAX_UPLOAD_MB is left out, and the turn still answers", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-test" });
    const chatflowid = crypto.randomUUID();
    const chatId = await session(chatflowid, 1, () => true);
    const { reads, runtime } = countingRuntime({ MAX_UPLOAD_MB: "0.00001" }); // 10 bytes: the PNG is larger
    const m = marker();
    const ctx = makeCtx(`small ${m}`, { runtime, chatflowid, chatId, sessionId: chatId });
    expect((await runFlow(conversationFlow(cred, { allowImageUploads: true }), ctx)).text).toContain(m);
    expect(reads).toEqual([`${chatflowid}/${chatId}/pic0.png`]);
    expect((await userMessagesWith(m)).map((u) => u.content)).toEqual(["question 0", `small ${m}`]);
  });
});
