// The chat model registry on its own: every chat model node of the chatflow runtime builds
// through it, and a caller outside any chatflow (Agentflow's llmModel + llmModelConfig, later) gets
// a working model from a name and Flowise's config — checked by what the stand-in model received.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { registry } from "../../src/engine/chatflow/registry";
import { buildChatModel, supportedChatModels } from "../../src/providers/chat/registry";
import { WorkersAIChatModel } from "../../src/providers/chat/workers-ai";
import type { ProviderDeps } from "../../src/providers/types";
import { credential, db, marker, requestsWith, standinUrl } from "./helpers";
import { getCredentialData } from "../../src/services/credentials";
import type { Env } from "../../src/env";

const deps = (over: Partial<ProviderDeps["env"]> = {}): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, ...over }, // the test runner's: loopback stand-ins are reachable
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

describe("buildChatModel", () => {
  it("has every chat model the chatflow runtime offers, and only those", () => {
    const chatNodes = [...registry.values()]
      .filter((d) => d.category === "Chat Models" || d.category === "LLMs")
      .map((d) => d.name)
      .sort();
    expect(supportedChatModels()).toEqual(chatNodes);
    expect(supportedChatModels()).toEqual(
      [
        "awsChatBedrock",
        "awsBedrock",
        "chatCohere",
        "chatHuggingFace",
        "chatNemoGuardrails",
        "chatAlibabaTongyi",
        "chatBaiduWenxin",
        "azureChatOpenAI",
        "chatCloudflareWorkersAI",
        "chatLocalAI",
        "chatMistralAI",
        "chatOllama",
        "chatOpenAI",
        "chatOpenAICustom",
        "groqChat",
        "chatAnthropic",
        "chatAnthropic_LlamaIndex",
        "chatGoogleGenerativeAI",
        "chatOpenAI_LlamaIndex",
        "azureChatOpenAI_LlamaIndex",
        "chatGroq_LlamaIndex",
        "chatMistral_LlamaIndex",
        "chatOllama_LlamaIndex",
        "chatTogetherAI_LlamaIndex",
        "huggingFaceInference_LLMs",
        "replicate",
        "openAI",
        "togetherAI",
        "fireworks",
        "sambanova",
        "ollama",
        "cohere",
        "chatDeepseek",
        "chatOpenRouter",
        "chatTogetherAI",
        "chatFireworks",
        "chatXAI",
        "chatCerebras",
        "chatNvidiaNIM",
        "chatLitellm",
        "chatSambanova",
        "chatPerplexity",
        "chatCometAPI",
        "chatGoogleVertexAI",
        "googlevertexai",
        "chatIBMWatsonx",
        "ibmWatsonx",
      ].sort(),
    );
  });

  it("builds from Flowise's llmModelConfig: model, sampling, base path and the credential by id", async () => {
    const cred = await credential("mistralAIApi", { mistralAIAPIKey: "sk-mistral" });
    const m = marker();
    const model = await buildChatModel(
      "chatMistralAI",
      {
        modelName: "mistral-large-latest",
        temperature: "0.3",
        maxTokens: 55,
        overrideEndpoint: `${standinUrl()}/v1`,
        randomSeed: 7,
        FLOWISE_CREDENTIAL_ID: cred,
      },
      deps(),
    );
    const reply = await model.invoke([new HumanMessage(`hello ${m}`)]);
    expect(reply.content).toBe(`echo: hello ${m}`);
    const [req] = await requestsWith(m);
    expect(req.headers.authorization).toBe("Bearer sk-mistral");
    expect(req.body).toMatchObject({ model: "mistral-large-latest", temperature: 0.3, max_tokens: 55, random_seed: 7, stream: false });
  });

  it("uses OPENAI_BASE_URL / OPENAI_API_KEY for chatOpenAI when neither input nor credential says otherwise", async () => {
    const m = marker();
    const model = await buildChatModel("chatOpenAI", {}, deps({ OPENAI_BASE_URL: `${standinUrl()}/v1`, OPENAI_API_KEY: "sk-env" }));
    await model.invoke([new HumanMessage(`hi ${m}`)]);
    const [req] = await requestsWith(m);
    expect(req.headers.authorization).toBe("Bearer sk-env");
    expect(req.body.model).toBe("gpt-4o-mini");
  });

  it("sends an @cf/ model to the AI binding, and says so when none is bound", async () => {
    const ai = { run: async () => ({ response: "from workers ai" }) } as unknown as Ai;
    const model = await buildChatModel("groqChat", { modelName: "@cf/meta/llama-3.1-8b-instruct" }, deps({ AI: ai }));
    expect(model).toBeInstanceOf(WorkersAIChatModel);
    expect((await model.invoke([new HumanMessage("x")])).content).toBe("from workers ai");
    await expect(buildChatModel("chatCloudflareWorkersAI", {}, deps())).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Workers AI binding AI is not configured"),
    });
  });

  it("an unknown name is a 400 listing the supported ones", async () => {
    await expect(buildChatModel("chatNoSuchModel", {}, deps())).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Supported: awsBedrock, awsChatBedrock, azureChatOpenAI"),
    });
  });
});
