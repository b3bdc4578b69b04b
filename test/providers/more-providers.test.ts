// Flowise 3.1.4's nodes over HTTP APIs next to ones we had: azureOpenAIEmbeddings and
// huggingFaceInferenceEmbeddings (embeddings registry), inputModerationOpenAI (OpenAI's moderation
// API), and the text LLMs openAI, togetherAI, fireworks, sambanova (OpenAI's completions API),
// ollama (/api/generate) and cohere (/v1/generate) from the chat model registry. Each built with a
// stored credential of its Flowise type and pointed at the stand-in (test/standin/text-services.mjs,
// server.mjs), checked by what the stand-in received; then one chatflow per kind through the API.
import { env } from "cloudflare:workers";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { embeddingsNodes } from "../../src/engine/chatflow/nodes/embeddings";
import { providerDeps } from "../../src/engine/core/ports";
import { buildChatModel } from "../../src/providers/chat/registry";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import type { OpenAICompatibleEmbeddings } from "../../src/providers/embeddings/openai";
import { openAIModeration } from "../../src/providers/moderation";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import conversationChain from "../engine/fixtures/conversation-chain.json";
import hfChain from "../engine/fixtures/huggingface-llm-chain.json";
import { type Fixture, credential, db, flowDataOf, makeCtx, marker, pointAtStandin, runtimeWith, standinUrl } from "../engine/helpers";
import { call, json } from "../helpers";
import { newStore, upsert } from "../routes/document-store-helpers";
import { framesOf, setVars } from "../security/helpers";

type Body = Record<string, any>;
interface Received {
  path: string;
  headers: Record<string, string | null>;
  body: Body;
}

const received = async (m: string): Promise<Received[]> =>
  (await fetch(`${standinUrl()}/requests?contains=${encodeURIComponent(m)}`)).json();

const deps = (over: Partial<ProviderDeps["env"]> = {}): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, ...over }, // the test runner's: loopback stand-ins are reachable
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: { status: number; message: string }) => e,
  );

/** Embeddings built as a flow builds them: the stored credential by id, the deployment's vars. */
async function embeddings(node: string, config: Record<string, unknown>, vars: Partial<Env> = {}) {
  const ctx = makeCtx("embeddings", { runtime: runtimeWith(vars) });
  return buildEmbeddings(node, config, providerDeps(ctx));
}

describe("azureOpenAIEmbeddings", () => {
  const azureCredential = (key: string) =>
    credential("azureOpenAIApi", {
      azureOpenAIApiKey: key,
      azureOpenAIApiInstanceName: "unused-with-basepath",
      azureOpenAIApiDeploymentName: "embed-dep",
      azureOpenAIApiVersion: "2024-02-01",
    });

  it("posts to the deployment's /embeddings?api-version with the key in api-key; vectors in order", async () => {
    const m = marker();
    const key = `az-${m}`;
    const e = await embeddings("azureOpenAIEmbeddings", {
      credential: await azureCredential(key),
      basepath: `${standinUrl()}/openai/deployments`,
      baseOptions: JSON.stringify({ "x-team": "search" }),
      batchSize: "2",
    });
    const vectors = await e.embedDocuments([`${m} alpha\nbeta`, `${m} gamma`, `${m} delta`]);
    expect(vectors.map((v) => v.length)).toEqual([4096, 4096, 4096]);
    expect(await e.embedQuery(`${m} gamma`)).toEqual(vectors[1]);
    const requests = await received(m);
    expect(requests).toHaveLength(3); // two batches (2 + 1), then the query
    for (const r of requests) {
      expect(r.path).toBe("/openai/deployments/embed-dep/embeddings?api-version=2024-02-01");
      expect(r.headers["api-key"]).toBe(key);
      expect(r.headers.authorization).toBeNull();
      expect(r.headers["x-team"]).toBe("search");
      expect(r.body.model).toBe("embed-dep");
    }
    const inputs = requests.slice(0, 2).flatMap((r) => r.body.input);
    expect(inputs.sort()).toEqual([`${m} alpha beta`, `${m} delta`, `${m} gamma`]); // new lines stripped
  });

  it("without a basepath: the instance's host; no deployment or instance is a 400 naming the credential field", async () => {
    const e = await embeddings("azureOpenAIEmbeddings", { credential: await azureCredential("k") });
    expect((e as OpenAICompatibleEmbeddings).url).toBe(
      "https://unused-with-basepath.openai.azure.com/openai/deployments/embed-dep/embeddings?api-version=2024-02-01",
    );
    const bare = await credential("azureOpenAIApi", { azureOpenAIApiKey: "k", azureOpenAIApiDeploymentName: "d" });
    const err = await failureOf(embeddings("azureOpenAIEmbeddings", { credential: bare }));
    expect(err).toMatchObject({ status: 400, message: expect.stringMatching(/azureOpenAIEmbeddings .*azureOpenAIApiInstanceName/) });
  });

  it("a 5xx is tried once more, then a 502 with the service's message and without the key", async () => {
    const m = marker();
    const key = `az-secret-${m}`;
    const e = await embeddings("azureOpenAIEmbeddings", {
      credential: await azureCredential(key),
      basepath: `${standinUrl()}/openai/deployments`,
    });
    const err = await failureOf(e.embedQuery(`${m} [fail-embed]`));
    expect(err).toMatchObject({
      status: 502,
      message: expect.stringContaining("Azure OpenAI embeddings answered 500: stand-in embeddings"),
    });
    expect(await received(m)).toHaveLength(2);
    const echoed = await failureOf(e.embedQuery(`${m} [echo-auth]`));
    expect(echoed?.status).toBe(502);
    expect(echoed?.message).not.toContain(key);
  });
});

describe("huggingFaceInferenceEmbeddings", () => {
  const hfCredential = (key: string) => credential("huggingFaceApi", { huggingFaceApiKey: key });

  it("posts the texts to the model's feature-extraction pipeline (HUGGINGFACE_BASE_URL) with the token", async () => {
    const m = marker();
    const key = `hf_${m}`;
    const e = await embeddings(
      "huggingFaceInferenceEmbeddings",
      { credential: await hfCredential(key), modelName: "sentence-transformers/all-MiniLM-L6-v2" },
      { HUGGINGFACE_BASE_URL: standinUrl() },
    );
    const vectors = await e.embedDocuments([`${m} rivers\nflow`, `${m} mountains`]);
    expect(vectors.map((v) => v.length)).toEqual([384, 384]);
    expect(await e.embedQuery(`${m} mountains`)).toEqual(vectors[1]);
    const [docs, query, ...more] = await received(m);
    expect(more).toHaveLength(0);
    expect(docs.path).toBe("/models/sentence-transformers/all-MiniLM-L6-v2/pipeline/feature-extraction");
    expect(docs.headers.authorization).toBe(`Bearer ${key}`);
    expect(docs.body).toEqual({ inputs: [`${m} rivers flow`, `${m} mountains`] });
    expect(query.body).toEqual({ inputs: [`${m} mountains`] });
  });

  it("the node's own endpoint gets the same body; a model answering a vector per token is pooled to one", async () => {
    const m = marker();
    const e = await embeddings("huggingFaceInferenceEmbeddings", {
      credential: await hfCredential("hf_x"),
      endpoint: `${standinUrl()}/hf-endpoint/minilm`,
    });
    const [plain, tokens] = await e.embedDocuments([`${m} one`, `${m} [tokens] two three`]);
    expect(plain).toHaveLength(384);
    expect(tokens).toHaveLength(384);
    const [r] = await received(m);
    expect(r.path).toBe("/hf-endpoint/minilm");
    expect(r.body).toEqual({ inputs: [`${m} one`, `${m} [tokens] two three`] });
  });

  it("is an embeddings node of the chatflow engine; failures are 502 with the service's message", async () => {
    const added = ["azureOpenAIEmbeddings", "huggingFaceInferenceEmbeddings"];
    expect(embeddingsNodes.map((n) => n.name)).toEqual(expect.arrayContaining(added));
    const wizard = (await json("GET", "/document-store/components/embeddings")) as Array<{ name: string }>;
    expect(wizard.map((n) => n.name)).toEqual(expect.arrayContaining(added)); // the document store wizard offers them
    const m = marker();
    const e = await embeddings(
      "huggingFaceInferenceEmbeddings",
      { credential: await hfCredential("hf_x") },
      { HUGGINGFACE_BASE_URL: standinUrl() },
    );
    const err = await failureOf(e.embedQuery(`${m} [fail-embed]`));
    expect(err).toMatchObject({ status: 502, message: "Hugging Face embeddings answered 500: stand-in text service failure" });
    const [r] = await received(m);
    expect(r.path).toBe("/models/sentence-transformers/distilbert-base-nli-mean-tokens/pipeline/feature-extraction"); // the node's default
  });
});

describe("inputModerationOpenAI's check", () => {
  it("posts the input to OPENAI_BASE_URL's /moderations with the key; flagged or not as OpenAI says", async () => {
    const m = marker();
    const id = await credential("openAIApi", { openAIApiKey: `sk-mod-${m}` });
    const mod = await openAIModeration({ credential: id }, deps({ OPENAI_BASE_URL: `${standinUrl()}/v1` }), "inputModerationOpenAI");
    expect(await mod.flagged(`${m} a kind question`)).toBe(false);
    expect(await mod.flagged(`${m} [flagged] an unkind one`)).toBe(true);
    const requests = await received(m);
    expect(requests.map((r) => [r.path, r.headers.authorization, r.body])).toEqual([
      ["/v1/moderations", `Bearer sk-mod-${m}`, { input: `${m} a kind question` }],
      ["/v1/moderations", `Bearer sk-mod-${m}`, { input: `${m} [flagged] an unkind one` }],
    ]);
  });

  it("no key is a 400; a failing service a 502 with its message and without the key", async () => {
    const none = await failureOf(openAIModeration({}, deps(), "inputModerationOpenAI"));
    expect(none).toMatchObject({ status: 400, message: expect.stringContaining("OpenAI API key not found") });
    const m = marker();
    const key = `sk-mod-secret-${m}`;
    const id = await credential("openAIApi", { openAIApiKey: key, basePath: `${standinUrl()}/v1` });
    const mod = await openAIModeration({ credential: id }, deps(), "inputModerationOpenAI");
    const err = await failureOf(mod.flagged(`${m} [fail]`));
    expect(err).toMatchObject({ status: 502, message: "OpenAI moderation answered 500: stand-in text service failure" });
    const echoed = await failureOf(mod.flagged(`${m} [echo-auth]`));
    expect(echoed?.status).toBe(502);
    expect(echoed?.message).not.toContain(key);
  });
});

interface LLMCase {
  node: string;
  credentialName?: string;
  secret?: (key: string) => Record<string, unknown>;
  config: Record<string, unknown>;
  vars?: () => Partial<ProviderDeps["env"]>;
  path: string;
  /** The key as the request carried it. */
  auth?: (r: Received) => string | null | undefined;
  /** What the body must hold besides the prompt. */
  sent: Record<string, unknown>;
  prompt: (body: Body) => unknown;
}

const bearer = (r: Received) => r.headers.authorization?.replace(/^Bearer /, "");
const LLM_CASES: LLMCase[] = [
  {
    node: "openAI",
    credentialName: "openAIApi",
    secret: (key) => ({ openAIApiKey: key }),
    config: {
      modelName: "gpt-3.5-turbo-instruct",
      temperature: "0.3",
      maxTokens: "40",
      topP: "0.9",
      bestOf: "2",
      frequencyPenalty: "0.1",
      presencePenalty: "0.2",
      basepath: `${standinUrl()}/v1`,
    },
    path: "/v1/completions",
    auth: bearer,
    sent: {
      model: "gpt-3.5-turbo-instruct",
      temperature: 0.3,
      max_tokens: 40,
      top_p: 0.9,
      best_of: 2,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      stream: false,
    },
    prompt: (b) => b.prompt,
  },
  {
    node: "togetherAI",
    credentialName: "togetherAIApi",
    secret: (key) => ({ togetherAIApiKey: key }),
    config: { modelName: "mistralai/Mixtral-8x7B-v0.1", topK: 50, topP: 0.7, temperature: 0.7, repeatPenalty: 1.1, stop: "END,STOP" },
    vars: () => ({ TOGETHER_BASE_URL: `${standinUrl()}/v1` }),
    path: "/v1/completions",
    auth: bearer,
    sent: {
      model: "mistralai/Mixtral-8x7B-v0.1",
      top_k: 50,
      top_p: 0.7,
      temperature: 0.7,
      repetition_penalty: 1.1,
      stop: ["END", "STOP"],
    },
    prompt: (b) => b.prompt,
  },
  {
    node: "fireworks",
    credentialName: "fireworksApi",
    secret: (key) => ({ fireworksApiKey: key }),
    config: {},
    vars: () => ({ FIREWORKS_BASE_URL: `${standinUrl()}/inference/v1` }),
    path: "/inference/v1/completions",
    auth: bearer,
    sent: { model: "accounts/fireworks/models/llama-v3-70b-instruct-hf" },
    prompt: (b) => b.prompt,
  },
  {
    node: "sambanova",
    credentialName: "sambanovaApi",
    secret: (key) => ({ sambanovaApiKey: key }),
    config: { modelName: "Meta-Llama-3.1-8B-Instruct" },
    vars: () => ({ SAMBANOVA_BASE_URL: `${standinUrl()}/v1` }),
    path: "/v1/completions",
    auth: bearer,
    sent: { model: "Meta-Llama-3.1-8B-Instruct" },
    prompt: (b) => b.prompt,
  },
  {
    node: "ollama",
    config: { baseUrl: standinUrl(), modelName: "llama3.2", temperature: "0.9", topK: "40", numCtx: "4096", repeatPenalty: "1.1" },
    path: "/api/generate",
    sent: { model: "llama3.2", stream: false, options: { temperature: 0.9, top_k: 40, num_ctx: 4096, repeat_penalty: 1.1 } },
    prompt: (b) => b.prompt,
  },
  {
    node: "cohere",
    credentialName: "cohereApi",
    secret: (key) => ({ cohereApiKey: key }),
    config: { modelName: "command-light", temperature: "0.5", maxTokens: "30" },
    vars: () => ({ COHERE_GENERATE_BASE_URL: standinUrl() }),
    path: "/v1/generate",
    auth: bearer,
    sent: { model: "command-light", temperature: 0.5, max_tokens: 30 },
    prompt: (b) => b.prompt,
  },
];

async function llm(c: LLMCase, key: string, over: Record<string, unknown> = {}) {
  const id = c.credentialName ? await credential(c.credentialName, c.secret!(key)) : undefined;
  return buildChatModel(c.node, { ...c.config, ...over, ...(id ? { credential: id } : {}) }, deps(c.vars?.()));
}

describe("text LLM nodes", () => {
  for (const c of LLM_CASES) {
    it(`${c.node}: the prompt to ${c.path} with the node's fields and the credential's key; the text is the answer`, async () => {
      const m = marker();
      const key = `key-${c.node}-${m}`;
      const model = await llm(c, key);
      const reply = await model.invoke([new HumanMessage(`hello ${m}`)]);
      expect(reply.content).toBe(`echo: hello ${m}`);
      const [r, ...more] = await received(m);
      expect(more).toHaveLength(0);
      expect(r.path).toBe(c.path);
      if (c.auth) expect(c.auth(r)).toBe(key);
      expect(r.body).toMatchObject(c.sent);
      expect(c.prompt(r.body)).toBe(`hello ${m}`);
    });
  }

  it("openAI streams its completion (server-sent events, one word a frame) and sends a conversation as one prompt", async () => {
    const m = marker();
    const model = await llm(LLM_CASES[0], `key-${m}`);
    const chunks: string[] = [];
    for await (const chunk of await model.stream([new HumanMessage(`tell me about rivers ${m}`)])) chunks.push(String(chunk.content));
    expect(chunks.join("")).toBe(`echo: tell me about rivers ${m}`);
    expect(chunks.filter(Boolean).length).toBeGreaterThan(3);
    const [r] = await received(m);
    expect(r.body).toMatchObject({ stream: true, prompt: `tell me about rivers ${m}` });
  });

  it("failures: a 5xx is tried once more, then a 502 with the service's message and without the key", async () => {
    for (const c of LLM_CASES) {
      const m = marker();
      const key = `secret-${c.node}-${m}`;
      const model = await llm(c, key);
      const err = await failureOf(model.invoke([new HumanMessage(`${m} [fail]`)]));
      expect(err?.status, c.node).toBe(502);
      expect(err?.message, c.node).toContain("answered 500: stand-in text service failure");
      expect(await received(m), c.node).toHaveLength(2);
      if (!c.auth) continue;
      const echoed = await failureOf(model.invoke([new HumanMessage(`${m} [echo-auth]`)]));
      expect(echoed?.status, c.node).toBe(502);
      expect(echoed?.message, c.node).not.toContain(key);
    }
  });

  it("togetherAI without a model name is a 400 naming the input", async () => {
    const err = await failureOf(llm(LLM_CASES[1], "k", { modelName: "" }));
    expect(err).toMatchObject({ status: 400, message: expect.stringContaining("togetherAI needs its modelName input") });
  });
});

/** `fixture` with an inputModerationOpenAI node (the stored credential) on `chainId`'s inputModeration. */
function withModeration(fixture: Fixture, chainId: string, credentialId: string, message?: string): Fixture {
  const node = {
    id: "inputModerationOpenAI_0",
    position: { x: 0, y: 0 },
    type: "customNode",
    data: {
      id: "inputModerationOpenAI_0",
      name: "inputModerationOpenAI",
      label: "OpenAI Moderation",
      type: "Moderation",
      category: "Moderation",
      baseClasses: ["Moderation"],
      credential: credentialId,
      inputs: message ? { moderationErrorMessage: message } : {},
    },
  } as unknown as Fixture["nodes"][number];
  const copy = structuredClone(fixture);
  const chain = copy.nodes.find((n) => n.id === chainId)!;
  chain.data.inputs = { ...chain.data.inputs, inputModeration: ["{{inputModerationOpenAI_0.data.instance}}"] };
  const edge = {
    source: node.id,
    sourceHandle: `${node.id}-output-inputModerationOpenAI-Moderation`,
    target: chainId,
    targetHandle: `${chainId}-input-inputModeration-Moderation`,
    type: "buttonedge",
    id: `${node.id}-${chainId}`,
  };
  return { nodes: [...copy.nodes, node], edges: [...copy.edges, edge] };
}

describe("a document store with huggingFaceInferenceEmbeddings, through the API", () => {
  it("upserts over the feature-extraction pipeline (HUGGINGFACE_BASE_URL); a query answers the right chunk", async () => {
    const restore = setVars({ HUGGINGFACE_BASE_URL: standinUrl() });
    try {
      const m = marker();
      const id = await credential("huggingFaceApi", { huggingFaceApiKey: `hf_${m}` });
      const store = await newStore(`hf ${m}`);
      const embedding = { name: "huggingFaceInferenceEmbeddings", config: { credential: id, modelName: "BAAI/bge-small-en-v1.5" } };
      const paragraphs = [
        `Glaciers carve valleys over centuries ${m}.`,
        `Lighthouses guide ships along rocky coasts ${m}.`,
        `Volcanoes erupt molten rock and ash ${m}.`,
      ];
      const up = await upsert(store.id, {
        embedding,
        vectorStore: { name: "localVectorStore" },
        loader: { name: "plainText", config: { text: paragraphs.join("\n\n") } },
        splitter: { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } },
      });
      expect(up.numAdded).toBe(3);
      const found = await json("POST", "/document-store/vectorstore/query", {
        body: { storeId: store.id, query: `which ships need lighthouses ${m}`, inputs: { topK: 1 } },
      });
      expect(found.docs.map((d: { pageContent: string }) => d.pageContent)).toEqual([paragraphs[1]]);
      const requests = await received(m);
      expect(requests.map((r) => [r.path, r.headers.authorization])).toEqual([
        ["/models/BAAI/bge-small-en-v1.5/pipeline/feature-extraction", `Bearer hf_${m}`],
        ["/models/BAAI/bge-small-en-v1.5/pipeline/feature-extraction", `Bearer hf_${m}`],
      ]);
    } finally {
      restore();
    }
  });
});

describe("chatflows through the API", () => {
  it("an llmChain with the openAI text LLM answers the completion of its prompt, as JSON and streamed", async () => {
    const id = await credential("openAIApi", { openAIApiKey: "sk-llm-chain" });
    const flowData = flowDataOf(hfChain as unknown as Fixture, (nodes) => {
      const node = nodes.get("huggingFaceInference_LLMs_0")!;
      node.data.name = "openAI";
      node.data.inputs = { modelName: "gpt-3.5-turbo-instruct", temperature: "0.2", basepath: `${standinUrl()}/v1` };
      node.data.credential = id;
    });
    const flow = (await json("POST", "/chatflows", { body: { name: "openAI llm chain", flowData } })).id;
    const m = marker();
    const prompt = `Question: why do rivers bend ${m}\n\nAnswer: Let's think step by step.`;
    const answer = await json("POST", `/prediction/${flow}`, { body: { question: `why do rivers bend ${m}` } });
    expect(answer.text).toBe(`echo: ${prompt}`);
    const [r] = await received(m);
    expect(r.path).toBe("/v1/completions");
    expect(r.headers.authorization).toBe("Bearer sk-llm-chain");
    expect(r.body).toMatchObject({ model: "gpt-3.5-turbo-instruct", temperature: 0.2, prompt });

    // Streamed: the completion's words as tokens (the stand-in sends one a frame), then the end.
    const frames = await framesOf(
      await call("POST", `/prediction/${flow}`, { body: { question: `why do lakes freeze ${m}`, streaming: true } }),
    );
    const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
    expect(tokens.join("")).toBe(`echo: Question: why do lakes freeze ${m}\n\nAnswer: Let's think step by step.`);
    expect(tokens.length).toBeGreaterThan(3);
    expect(frames.at(-1)?.event).toBe("end");
    const streamedRequest = (await received(`lakes freeze ${m}`))[0];
    expect(streamedRequest.body.stream).toBe(true);
  });

  it("a conversation with inputModerationOpenAI refuses a flagged question with Flowise's message and answers a clean one", async () => {
    const modCredential = await credential("openAIApi", { openAIApiKey: "sk-moderation", basePath: `${standinUrl()}/v1` });
    const chatCredential = await credential("openAIApi", { openAIApiKey: "sk-chat" });
    const fixture = withModeration(
      conversationChain as unknown as Fixture,
      "conversationChain_0",
      modCredential,
      "Cannot Process! Input violates OpenAI's content moderation policies.",
    );
    const flowData = flowDataOf(fixture, (nodes) => pointAtStandin(nodes.get("chatOpenAI_0")!, chatCredential));
    const flow = (await json("POST", "/chatflows", { body: { name: "moderated conversation", flowData } })).id;
    const m = marker();
    const refused = await json("POST", `/prediction/${flow}`, { body: { question: `${m} [flagged] something unkind` } });
    expect(refused.text).toBe("Cannot Process! Input violates OpenAI's content moderation policies.");
    const afterRefusal = await received(m);
    expect(afterRefusal.map((r) => r.path)).toEqual(["/v1/moderations"]); // the model was never asked
    expect(afterRefusal[0].headers.authorization).toBe("Bearer sk-moderation");

    const answered = await json("POST", `/prediction/${flow}`, { body: { question: `${m} a kind question` } });
    expect(answered.text).toBe(`echo: ${m} a kind question`);
    const all = await received(`${m} a kind`);
    expect(all.map((r) => r.path)).toEqual(["/v1/moderations", "/v1/chat/completions"]);
    expect(all[1].headers.authorization).toBe("Bearer sk-chat");
  });

  it("a failing moderation service fails the prediction with a 502 and the service's message", async () => {
    const id = await credential("openAIApi", { openAIApiKey: "sk-m", basePath: `${standinUrl()}/v1` });
    const flowData = flowDataOf(withModeration(hfChain as unknown as Fixture, "llmChain_0", id), (nodes) => {
      const node = nodes.get("huggingFaceInference_LLMs_0")!;
      node.data.name = "openAI";
      node.data.inputs = { basepath: `${standinUrl()}/v1` };
      node.data.credential = id;
    });
    const flow = (await json("POST", "/chatflows", { body: { name: "moderation down", flowData } })).id;
    const m = marker();
    const res = await call("POST", `/prediction/${flow}`, { body: { question: `${m} [fail]` } });
    expect(res.status).toBe(502);
    expect(JSON.stringify(await res.json())).toContain("OpenAI moderation answered 500: stand-in text service failure");
    expect((await received(m)).map((r) => r.path)).toEqual(["/v1/moderations", "/v1/moderations"]);
  });
});
