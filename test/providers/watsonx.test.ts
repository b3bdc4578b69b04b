// Flowise's IBM watsonx.ai nodes (chatIBMWatsonx, ibmWatsonx, ibmEmbedding) against the IAM and
// watsonx.ai stand-in (test/standin/watsonx.mjs): the API key exchanged at IAM once and the bearer
// token reused, /ml/v1/text/chat with model_id and project_id, chat_stream's tokens through
// POST /prediction, tool calls, the generation and embeddings APIs, a bearer-token credential, and
// failures (IAM refusing the key, a service error, a private serviceUrl, missing credential fields).
import { env } from "cloudflare:workers";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { callOf } from "../engine/agents-flows";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, credential, db, flowDataOf, marker } from "../engine/helpers";
import { call, json } from "../helpers";
import { framesOf, setVars } from "../security/helpers";

const wxUrl = () => inject("watsonxUrl");
const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, IBM_IAM_BASE_URL: wxUrl() },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});
type Received = { path: string; headers: Record<string, string>; body: Record<string, unknown> };
const received = async (m: string): Promise<Received[]> => (await fetch(`${wxUrl()}/requests?contains=${encodeURIComponent(m)}`)).json();

async function ibmCredential(over: Record<string, unknown> = {}) {
  const m = marker();
  const id = await credential("ibmWatsonx", {
    version: "2024-05-31",
    serviceUrl: wxUrl(),
    projectId: "proj-1",
    watsonxAIAuthType: "iam",
    watsonxAIApikey: `ibm-key-${m}`,
    ...over,
  });
  return { m, id };
}

describe("chatIBMWatsonx", () => {
  it("exchanges the API key at IAM once and chats with model_id, project_id and the bearer token", async () => {
    const { m, id } = await ibmCredential();
    const model = await buildChatModel(
      "chatIBMWatsonx",
      { credential: id, modelName: "ibm/granite-3-8b-instruct", temperature: "0.2", maxTokens: "64", topP: "0.1" },
      deps(),
    );
    expect((await model.invoke([new HumanMessage(`hi ${m}`)])).content).toBe(`echo: hi ${m}`);
    expect((await model.invoke([new HumanMessage(`again ${m}`)])).content).toBe(`echo: again ${m}`);
    const reqs = await received(m);
    expect(reqs.filter((r) => r.path === "/identity/token")).toHaveLength(1);
    const chats = reqs.filter((r) => r.path.startsWith("/ml/"));
    expect(chats.map((r) => r.path)).toEqual(Array(2).fill("/ml/v1/text/chat?version=2024-05-31"));
    expect(chats[0].headers.authorization).toMatch(/^Bearer eyJraWQ\.standin-/);
    expect(chats[0].body).toMatchObject({ model_id: "ibm/granite-3-8b-instruct", project_id: "proj-1", temperature: 0.2, max_tokens: 64 });
    expect(chats[0].body).not.toHaveProperty("model");
  });

  it("streams chat_stream's tokens through POST /prediction", async () => {
    const { m, id } = await ibmCredential();
    const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
      for (const node of nodes.values()) {
        if (node.data.category !== "Chat Models") continue;
        node.data.name = "chatIBMWatsonx";
        node.data.inputs = { modelName: "mistralai/mistral-large", temperature: 0.9, streaming: true };
        node.data.credential = id;
      }
      const prompt = nodes.get("promptTemplate_0")!;
      prompt.data.inputs = { ...prompt.data.inputs, template: "{product}" };
    });
    const restore = setVars({ IBM_IAM_BASE_URL: wxUrl() });
    try {
      const flowId = (await json("POST", "/chatflows", { body: { name: "watsonx chain", flowData } })).id;
      const res = await call("POST", `/prediction/${flowId}`, { body: { question: `a long answer ${m}`, streaming: true } });
      const tokens = (await framesOf(res)).filter((f) => f.event === "token").map((f) => f.data);
      expect(tokens.length).toBeGreaterThan(2);
      expect(tokens.join("")).toBe(`echo: a long answer ${m}`);
      expect((await received(m)).map((r) => r.path)).toContain("/ml/v1/text/chat_stream?version=2024-05-31");
    } finally {
      restore();
    }
  });

  it("offers tools and reads tool calls back; a bearer-token credential is sent as it is", async () => {
    const m = marker();
    const id = await credential("ibmWatsonx", {
      version: "2024-05-31",
      serviceUrl: wxUrl(),
      projectId: "proj-2",
      watsonxAIAuthType: "bearertoken",
      watsonxAIBearerToken: `ibm-bearer-${m}`,
    });
    const weather = tool(async ({ city }) => `sunny in ${city}`, {
      name: "get_weather",
      description: "weather",
      schema: z.object({ city: z.string() }),
    });
    const model = (await buildChatModel("chatIBMWatsonx", { credential: id, modelName: "ibm/granite" }, deps())).bindTools!([weather]);
    const answer = await model.invoke([new HumanMessage(`${callOf("get_weather", { city: "Oslo" })} ${m}`)]);
    expect(answer.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Oslo" } })]);
    const reqs = await received(m);
    expect(reqs.some((r) => r.path === "/identity/token")).toBe(false);
    expect(reqs[0].headers.authorization).toBe(`Bearer ibm-bearer-${m}`);
    expect(reqs[0].body.tools).toEqual([
      expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "get_weather" }) }),
    ]);
  });

  it("IAM refusing the key and a service error are 502s with IBM's message, never the key", async () => {
    const { id: bad } = await ibmCredential({ watsonxAIApikey: "wrong-key-abcdefghijklmnop" });
    const model = await buildChatModel("chatIBMWatsonx", { credential: bad, modelName: "ibm/granite" }, deps());
    const err = await model.invoke([new HumanMessage("hi")]).catch((e) => e);
    expect(err).toMatchObject({ status: 502, message: expect.stringContaining("IBM Cloud IAM answered 400: BXNIM0415E") });
    expect(String(err.message)).not.toContain("wrong-key-abcdefghijklmnop");
    const { id } = await ibmCredential();
    const ok = await buildChatModel("chatIBMWatsonx", { credential: id, modelName: "ibm/granite" }, deps());
    await expect(ok.invoke([new HumanMessage("[bad-request] now")])).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining("IBM watsonx.ai answered 400: stand-in refuses this request"),
    });
  });

  it("bad config is a 400 naming what is missing", async () => {
    const build = (id: string, config: Record<string, unknown> = { modelName: "ibm/granite" }) =>
      buildChatModel("chatIBMWatsonx", { credential: id, ...config }, deps());
    await expect(build((await ibmCredential()).id, {})).rejects.toMatchObject({ status: 400, message: expect.stringContaining("Model") });
    await expect(build((await ibmCredential({ version: "" })).id)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("version"),
    });
    await expect(build((await ibmCredential({ watsonxAIApikey: "" })).id)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("watsonxAIApikey"),
    });
    await expect(build((await ibmCredential({ serviceUrl: "http://10.1.2.3" })).id)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("ibmWatsonx serviceUrl"),
    });
  });
});

describe("ibmWatsonx (LLM) and ibmEmbedding", () => {
  it("the LLM calls /text/generation with Flowise's parameters (sampling only when decodingMethod is sample)", async () => {
    const { m, id } = await ibmCredential();
    const greedy = await buildChatModel(
      "ibmWatsonx",
      {
        credential: id,
        modelId: "ibm/granite-13b-instruct-v2",
        decodingMethod: "greedy",
        temperature: 0.7,
        maxNewTokens: 100,
        stopSequence: "a, b",
      },
      deps(),
    );
    expect((await greedy.invoke(`write ${m}`)).content).toBe(`echo: write ${m}`);
    const sample = await buildChatModel(
      "ibmWatsonx",
      { credential: id, modelId: "ibm/x", decodingMethod: "sample", temperature: 0.5, topK: 5 },
      deps(),
    );
    await sample.invoke(`sample ${m}`);
    const gens = (await received(m)).filter((r) => r.path.startsWith("/ml/"));
    expect(gens[0]).toMatchObject({
      path: "/ml/v1/text/generation?version=2024-05-31",
      body: { input: `write ${m}`, model_id: "ibm/granite-13b-instruct-v2", project_id: "proj-1" },
    });
    expect(gens[0].body.parameters).toEqual({ decoding_method: "greedy", max_new_tokens: 100, stop_sequences: ["a", "b"] });
    expect(gens[1].body.parameters).toEqual({ decoding_method: "sample", temperature: 0.5, top_k: 5 });
  });

  it("embeds through /text/embeddings", async () => {
    const { m, id } = await ibmCredential();
    const emb = await buildEmbeddings("ibmEmbedding", { credential: id, truncateInputTokens: "128" }, deps());
    const vectors = await emb.embedDocuments([`one ${m}`, `two ${m}`]);
    expect(vectors).toHaveLength(2);
    expect(await emb.embedQuery(`one ${m}`)).toEqual(vectors[0]);
    const [req] = (await received(m)).filter((r) => r.path.startsWith("/ml/"));
    expect(req).toMatchObject({
      path: "/ml/v1/text/embeddings?version=2024-05-31",
      body: {
        inputs: [`one ${m}`, `two ${m}`],
        model_id: "ibm/slate-30m-english-rtrvr",
        project_id: "proj-1",
        parameters: { truncate_input_tokens: 128 },
      },
    });
  });
});
