// Flowise's nodes for hosted OpenAI-compatible chat services (providers/chat/openai-family.ts
// `hosted`): each built from a stored credential of its Flowise type and pointed at the stand-in
// through its base URL input (where Flowise's node has one) or its deployment var, checked by what
// the stand-in received; then one of them in a saved chatflow, through the API.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { json } from "../helpers";
import { setVars } from "../security/helpers";
import llmChain from "./fixtures/llm-chain.json";
import { type Fixture, closedUrl, credential, db, flowDataOf, marker, requestsWith, standinUrl } from "./helpers";

const deps = (over: Partial<ProviderDeps["env"]> = {}): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, ...over }, // the test runner's: loopback stand-ins are reachable
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

interface Case {
  node: string;
  /** Flowise's credential type and the field its node reads the key from. */
  credentialName: string;
  key: string;
  /** Where the base URL goes: the node's input, else the deployment var. */
  input?: string;
  envVar?: string;
  config: Record<string, unknown>;
  sent: Record<string, unknown>;
}

// Inputs as Flowise stores them (numbers often as strings); `sent` is what the body must hold.
const CASES: Case[] = [
  {
    node: "chatDeepseek",
    credentialName: "deepseekApi",
    key: "deepseekApiKey",
    envVar: "DEEPSEEK_BASE_URL",
    config: {
      modelName: "deepseek-reasoner",
      temperature: "0.2",
      maxTokens: "64",
      topP: "0.8",
      frequencyPenalty: "0.1",
      presencePenalty: "0.3",
      stopSequence: "END, STOP",
      thinking: true,
    },
    sent: {
      model: "deepseek-reasoner",
      temperature: 0.2,
      max_tokens: 64,
      top_p: 0.8,
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      stop: ["END", "STOP"],
      thinking: { type: "enabled" },
    },
  },
  {
    node: "chatOpenRouter",
    credentialName: "openRouterApi",
    key: "openRouterApiKey",
    input: "basepath",
    config: { modelName: "anthropic/claude-3.5-haiku", temperature: 0.9, maxTokens: 100, topP: 0.5, presencePenalty: "0.4" },
    sent: { model: "anthropic/claude-3.5-haiku", temperature: 0.9, max_tokens: 100, top_p: 0.5, presence_penalty: 0.4 },
  },
  {
    node: "chatTogetherAI",
    credentialName: "togetherAIApi",
    key: "togetherAIApiKey",
    envVar: "TOGETHER_BASE_URL",
    config: { modelName: "meta-llama/Llama-3.3-70B-Instruct-Turbo", temperature: "0.4" },
    sent: { model: "meta-llama/Llama-3.3-70B-Instruct-Turbo", temperature: 0.4 },
  },
  {
    node: "chatFireworks",
    credentialName: "fireworksApi",
    key: "fireworksApiKey",
    envVar: "FIREWORKS_BASE_URL",
    config: { modelName: "accounts/fireworks/models/llama-v3p1-70b-instruct", temperature: 0.6 },
    sent: { model: "accounts/fireworks/models/llama-v3p1-70b-instruct", temperature: 0.6 },
  },
  {
    node: "chatXAI",
    credentialName: "xaiApi",
    key: "xaiApiKey",
    envVar: "XAI_BASE_URL",
    config: { modelName: "grok-3-mini", temperature: "0.7", maxTokens: "32" },
    sent: { model: "grok-3-mini", temperature: 0.7, max_tokens: 32 },
  },
  {
    node: "chatCerebras",
    credentialName: "cerebrasAIApi",
    key: "cerebrasApiKey",
    input: "basepath",
    // Cerebras refuses frequency_penalty (a 400): the node's input is left out (openai-dialects-wire.test.ts).
    config: { modelName: "llama-3.3-70b", temperature: 0.1, topP: "0.9", frequencyPenalty: 0.2 },
    sent: { model: "llama-3.3-70b", temperature: 0.1, top_p: 0.9 },
  },
  {
    node: "chatNvidiaNIM",
    credentialName: "nvidiaNIMApi",
    key: "nvidiaNIMApiKey",
    input: "basePath",
    config: { modelName: "meta/llama-3.1-8b-instruct", temperature: 0.5, maxTokens: 20, topP: 0.7 },
    sent: { model: "meta/llama-3.1-8b-instruct", temperature: 0.5, max_tokens: 20, top_p: 0.7 },
  },
  {
    node: "chatLitellm",
    credentialName: "litellmApi",
    key: "litellmApiKey",
    input: "basePath",
    config: { modelName: "my-gpt", temperature: "0.3", maxTokens: "10", topP: "0.6" },
    sent: { model: "my-gpt", temperature: 0.3, max_tokens: 10, top_p: 0.6 },
  },
  {
    node: "chatSambanova",
    credentialName: "sambanovaApi",
    key: "sambanovaApiKey",
    input: "basepath",
    config: { modelName: "Meta-Llama-3.1-8B-Instruct", temperature: 0.9 },
    sent: { model: "Meta-Llama-3.1-8B-Instruct", temperature: 0.9 },
  },
  {
    node: "chatPerplexity",
    credentialName: "perplexityApi",
    key: "perplexityApiKey",
    envVar: "PERPLEXITY_BASE_URL",
    // Perplexity's node names its model input `model`.
    config: { model: "sonar-pro", temperature: 1, maxTokens: "50", topP: "0.9", topK: "3", presencePenalty: 0.5, frequencyPenalty: 0.6 },
    sent: { model: "sonar-pro", temperature: 1, max_tokens: 50, top_p: 0.9, top_k: 3, presence_penalty: 0.5, frequency_penalty: 0.6 },
  },
  {
    node: "chatCometAPI",
    credentialName: "cometApi",
    key: "cometApiKey",
    envVar: "COMETAPI_BASE_URL",
    config: { modelName: "claude-sonnet-4-20250514", temperature: 0.7, maxTokens: 40, frequencyPenalty: "0.2" },
    sent: { model: "claude-sonnet-4-20250514", temperature: 0.7, max_tokens: 40, frequency_penalty: 0.2 },
  },
];

/** The case's node built with a stored credential holding `key`, its base URL at `base`. */
async function build(c: Case, key: string, base = `${standinUrl()}/v1`, over: Record<string, unknown> = {}) {
  const id = await credential(c.credentialName, { [c.key]: key });
  const config = { ...c.config, credential: id, ...(c.input ? { [c.input]: base } : {}), ...over };
  return buildChatModel(c.node, config, deps(c.envVar ? { [c.envVar]: base } : {}));
}

describe("hosted OpenAI-compatible chat model nodes", () => {
  for (const c of CASES) {
    it(`${c.node}: the ${c.credentialName} key as a bearer token, the model and sampling, at its ${c.input ?? c.envVar}`, async () => {
      const model = await build(c, `sk-${c.node}`);
      const m = marker();
      const reply = await model.invoke([new HumanMessage(`hello ${m}`)]);
      expect(reply.content).toBe(`echo: hello ${m}`);
      const [req] = await requestsWith(m);
      expect(req.path).toBe("/v1/chat/completions");
      expect(req.headers.authorization).toBe(`Bearer sk-${c.node}`);
      expect(req.body).toMatchObject({ ...c.sent, stream: false });
      expect(req.body.messages).toEqual([{ role: "user", content: `hello ${m}` }]);
    });
  }

  it("streams (chatTogetherAI): several chunks over server-sent events", async () => {
    const model = await build(CASES[2], "sk-stream");
    const m = marker();
    const chunks: string[] = [];
    for await (const chunk of await model.stream([new HumanMessage(`stream this please ${m}`)])) chunks.push(String(chunk.content));
    expect(chunks.filter(Boolean).length).toBeGreaterThan(3);
    expect(chunks.join("")).toBe(`echo: stream this please ${m}`);
    const [req] = await requestsWith(m);
    expect(req.body).toMatchObject({ model: "meta-llama/Llama-3.3-70B-Instruct-Turbo", stream: true });
    expect(req.headers.authorization).toBe("Bearer sk-stream");
  });

  it("the node's base URL input wins over its var; SambaNova's misspelt Flowise default counts as unset", async () => {
    const openRouter = CASES[1];
    const id = await credential("openRouterApi", { openRouterApiKey: "sk-or" });
    const both = { ENVIRONMENT: env.ENVIRONMENT, OPENROUTER_BASE_URL: closedUrl() };
    const model = await buildChatModel(
      "chatOpenRouter",
      { ...openRouter.config, credential: id, basepath: `${standinUrl()}/v1` },
      deps(both),
    );
    const m = marker();
    expect((await model.invoke([new HumanMessage(m)])).content).toBe(`echo: ${m}`);

    const sambanova = await credential("sambanovaApi", { sambanovaApiKey: "sk-sn" });
    const typo = await buildChatModel(
      "chatSambanova",
      { credential: sambanova, basepath: "htps://api.sambanova.ai/v1" },
      deps({ SAMBANOVA_BASE_URL: `${standinUrl()}/v1` }),
    );
    const m2 = marker();
    expect((await typo.invoke([new HumanMessage(m2)])).content).toBe(`echo: ${m2}`);
    expect((await requestsWith(m2))[0].body).toMatchObject({ model: "Meta-Llama-3.3-70B-Instruct" });
  });

  it("without a key no Authorization is sent (the service answers for itself, as for the other providers)", async () => {
    const model = await buildChatModel("chatLitellm", { basePath: `${standinUrl()}/v1`, modelName: "local" }, deps());
    const m = marker();
    await model.invoke([new HumanMessage(m)]);
    expect((await requestsWith(m))[0].headers.authorization).toBeNull();
  });

  it("chatLitellm without its basePath is a 400 saying so; an @cf/ model goes to Workers AI", async () => {
    await expect(buildChatModel("chatLitellm", { modelName: "x" }, deps())).rejects.toMatchObject({
      status: 400,
      message: "chatLitellm needs its basePath input: the URL of the LiteLLM server",
    });
    const ai = { run: async () => ({ response: "from workers ai" }) } as unknown as Ai;
    const model = await buildChatModel("chatDeepseek", { modelName: "@cf/meta/llama-3.1-8b-instruct" }, deps({ AI: ai }));
    expect((await model.invoke([new HumanMessage("x")])).content).toBe("from workers ai");
  });
});

describe("a saved chatflow with a hosted node, through the API", () => {
  /** The llm-chain template with its model replaced by `name` (its inputs `inputs`, credential `credentialId`). */
  async function saveFlow(name: string, inputs: Record<string, unknown>, credentialId: string): Promise<string> {
    const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
      const model = nodes.get("azureChatOpenAI_0")!;
      model.data.name = name;
      model.data.inputs = inputs;
      model.data.credential = credentialId;
      const prompt = nodes.get("promptTemplate_0")!;
      prompt.data.inputs = { ...prompt.data.inputs, template: "{product}" };
    });
    return (await json("POST", "/chatflows", { body: { name: `hosted ${name}`, flowData } })).id;
  }
  const storedCredential = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
    (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id as string;

  it("chatOpenRouter at its basepath answers POST /prediction with the stored key", async () => {
    const id = await storedCredential("openRouterApi", { openRouterApiKey: "sk-or-flow" });
    const flow = await saveFlow(
      "chatOpenRouter",
      { modelName: "openai/gpt-4o-mini", temperature: "0.2", basepath: `${standinUrl()}/v1` },
      id,
    );
    const m = marker();
    const answer = await json("POST", `/prediction/${flow}`, { body: { question: m } });
    expect(answer.text).toBe(`echo: ${m}`);
    const [req] = await requestsWith(m);
    expect(req.headers.authorization).toBe("Bearer sk-or-flow");
    expect(req.body).toMatchObject({ model: "openai/gpt-4o-mini", temperature: 0.2 });
  });

  it("chatPerplexity reaches the service its deployment var names (PERPLEXITY_BASE_URL)", async () => {
    const id = await storedCredential("perplexityApi", { perplexityApiKey: "pplx-flow" });
    const flow = await saveFlow("chatPerplexity", { model: "sonar", topK: 2 }, id);
    const m = marker();
    const restore = setVars({ PERPLEXITY_BASE_URL: `${standinUrl()}/v1` });
    try {
      expect((await json("POST", `/prediction/${flow}`, { body: { question: m } })).text).toBe(`echo: ${m}`);
    } finally {
      restore();
    }
    const [req] = await requestsWith(m);
    expect(req.headers.authorization).toBe("Bearer pplx-flow");
    expect(req.body).toMatchObject({ model: "sonar", top_k: 2 });
  });
});
