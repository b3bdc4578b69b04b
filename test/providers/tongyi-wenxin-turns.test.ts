// chatAlibabaTongyi (DashScope, test/standin/misc-models.mjs) and chatBaiduWenxin (Qianfan,
// test/standin/baidu-qianfan.mjs) with what real flows send: memory holding two user turns in a row (an
// answer that failed), an opening greeting, a system prompt after the question, and settings past the
// services' ranges. Both stand-ins refuse turns that do not alternate and values out of range, as the
// services do; the request they received shows what went.
import { env } from "cloudflare:workers";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { credential, db, marker } from "../engine/helpers";

type Received = { path: string; body: Record<string, unknown> };
const received = async (base: string, m: string): Promise<Received[]> =>
  (await fetch(`${base}/requests?contains=${encodeURIComponent(m)}`)).json();

const deps = (vars: Record<string, string>): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, ...vars },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

/** Memory as a flow keeps it after a failed answer: a greeting first, the question twice, a system prompt late. */
const memory = (m: string) => [
  new AIMessage("Hello! How can I help?"),
  new HumanMessage("first try"),
  new SystemMessage("Answer briefly."),
  new HumanMessage(`second try ${m}`),
];

describe("chatAlibabaTongyi", () => {
  const misc = () => inject("miscModelsUrl");
  const build = async (config: Record<string, unknown>) =>
    buildChatModel(
      "chatAlibabaTongyi",
      { credential: await credential("AlibabaApi", { alibabaApiKey: "dashscope-key" }), modelName: "qwen-plus", ...config },
      deps({ DASHSCOPE_BASE_URL: misc() }),
    );

  it("memory goes as DashScope takes it: the system prompt first, turns alternating from a user one to a user one", async () => {
    const model = await build({});
    const m = marker();
    expect((await model.invoke(memory(m))).content).toBe(`qwen qwen-plus: first try\n\nsecond try ${m}`);
    const [req] = await received(misc(), m);
    expect((req.body.input as { messages: unknown }).messages).toEqual([
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "Please continue." },
      { role: "assistant", content: "Hello! How can I help?" },
      { role: "user", content: `first try\n\nsecond try ${m}` },
    ]);
  });

  it("a temperature of 2 (DashScope takes [0, 2)) goes as 1.99; streamed, the turns alternate too", async () => {
    const model = await build({ temperature: "2" });
    const m = marker();
    const chunks: string[] = [];
    for await (const c of await model.stream([new HumanMessage("a"), new HumanMessage(`b ${m}`)])) chunks.push(String(c.content));
    expect(chunks.join("")).toBe(`qwen qwen-plus: a\n\nb ${m}`);
    const [req] = await received(misc(), m);
    expect(req.body.parameters).toMatchObject({ temperature: 1.99, stream: true });
  });
});

describe("chatBaiduWenxin", () => {
  const qianfan = () => inject("baiduQianfanUrl");
  const build = async (config: Record<string, unknown>) =>
    buildChatModel(
      "chatBaiduWenxin",
      {
        credential: await credential("baiduQianfanApi", { qianfanAccessKey: "qianfan-ak", qianfanSecretKey: "qianfan-sk" }),
        modelName: "ernie-speed-8k",
        ...config,
      },
      deps({ BAIDU_QIANFAN_BASE_URL: qianfan() }),
    );

  it("memory goes as Qianfan takes it: an odd count of turns, user first and last, the system prompt apart", async () => {
    const model = await build({});
    const m = marker();
    expect((await model.invoke(memory(m))).content).toBe(`ernie ernie_speed: first try\n\nsecond try ${m}`);
    const [req] = await received(qianfan(), m);
    expect(req.body.system).toBe("Answer briefly.");
    expect(req.body.messages).toEqual([
      { role: "user", content: "Please continue." },
      { role: "assistant", content: "Hello! How can I help?" },
      { role: "user", content: `first try\n\nsecond try ${m}` },
    ]);
  });

  it("settings past Qianfan's ranges go at their bounds: temperature 0 as 0.01, top_p 1.5 as 1, penalty 3 as 2", async () => {
    const model = await build({ temperature: "0", topP: "1.5", penaltyScore: "3" });
    const m = marker();
    expect((await model.invoke([new HumanMessage(`calm ${m}`)])).content).toBe(`ernie ernie_speed: calm ${m}`);
    const [req] = await received(qianfan(), m);
    expect(req.body).toMatchObject({ temperature: 0.01, top_p: 1, penalty_score: 2 });
  });
});
