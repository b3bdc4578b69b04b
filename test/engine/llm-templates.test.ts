// Flowise's marketplace templates built on text LLMs — HuggingFace LLM Chain, Replicate LLM, Image
// Generation — saved as exported (no warning) and run against the Hugging Face and Replicate
// stand-ins (test/standin/huggingface.mjs, replicate.mjs), reached through HUGGINGFACE_BASE_URL /
// REPLICATE_BASE_URL; only a credential is added to each model node.
import { describe, expect, inject, it } from "vitest";
import { flowDataWarning } from "../../src/services/chatflows";
import hfChain from "./fixtures/huggingface-llm-chain.json";
import imageGeneration from "./fixtures/image-generation.json";
import replicateLlm from "./fixtures/replicate-llm.json";
import {
  type Fixture,
  closedUrl,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  recordingSink,
  requestsWith,
  runFlow,
  runtimeWith,
} from "./helpers";

const hfUrl = () => inject("huggingFaceUrl");
const replicateUrl = () => inject("replicateUrl");
const runtime = (over: Record<string, string> = {}) =>
  runtimeWith({ HUGGINGFACE_BASE_URL: hfUrl(), REPLICATE_BASE_URL: replicateUrl(), ...over });

type Received = { method: string; path: string; headers: Record<string, string>; body: Record<string, unknown> };
async function received(base: string, m?: string): Promise<Received[]> {
  return (await fetch(`${base}/requests${m ? `?contains=${encodeURIComponent(m)}` : ""}`)).json();
}

describe("templates save without a warning", () => {
  it.each([
    ["HuggingFace LLM Chain", hfChain],
    ["Replicate LLM", replicateLlm],
    ["Image Generation", imageGeneration],
  ])("%s", (_name, fixture) => {
    expect(flowDataWarning(flowDataOf(fixture as unknown as Fixture))).toBeUndefined();
  });
});

describe("HuggingFace LLM Chain (huggingFaceInference_LLMs + promptTemplate + llmChain)", () => {
  const flow = async (patch?: Record<string, unknown>) => {
    const cred = await credential("huggingFaceApi", { huggingFaceApiKey: "hf_secret_token" });
    return flowDataOf(hfChain as unknown as Fixture, (n) => {
      const node = n.get("huggingFaceInference_LLMs_0")!;
      node.data.credential = cred;
      Object.assign(node.data.inputs!, patch ?? {});
    });
  };

  it("sends the prompt to the model's inference URL with the token; the generated text is the answer", async () => {
    const m = marker();
    const result = await runFlow(await flow(), makeCtx(`why is the sky blue ${m}`, { runtime: runtime() }));
    const prompt = `Question: why is the sky blue ${m}\n\nAnswer: Let's think step by step.`;
    expect(result.text).toBe(`echo: ${prompt}`);
    const [req, ...more] = await received(hfUrl(), m);
    expect(more).toHaveLength(0);
    expect(req.path).toBe("/models/tiiuae/falcon-7b-instruct");
    expect(req.headers.authorization).toBe("Bearer hf_secret_token");
    expect(req.body).toEqual({ inputs: prompt, parameters: { return_full_text: false } });
  });

  it("the endpoint input and sampling inputs: posted to that endpoint with HF's parameter names", async () => {
    const m = marker();
    const f = await flow({
      endpoint: `${hfUrl()}/my-endpoint`,
      temperature: "0.5",
      maxTokens: "64",
      topP: "0.9",
      hfTopK: "10",
      frequencyPenalty: "1.2",
    });
    await runFlow(f, makeCtx(`hi ${m}`, { runtime: runtime() }));
    const [req] = await received(hfUrl(), m);
    expect(req.path).toBe("/my-endpoint");
    expect(req.body.parameters).toEqual({
      return_full_text: false,
      temperature: 0.5,
      max_new_tokens: 64,
      top_p: 0.9,
      top_k: 10,
      repetition_penalty: 1.2,
    });
  });

  it("settings TGI refuses (temperature 0, top_p 1, top_k 0, repetition penalty 0) are left out: their defaults", async () => {
    const m = marker();
    const f = await flow({ temperature: "0", topP: "1", hfTopK: "0", frequencyPenalty: "0", maxTokens: "32" });
    expect((await runFlow(f, makeCtx(`calm ${m}`, { runtime: runtime() }))).text).toContain(`echo: Question: calm ${m}`);
    const [req] = await received(hfUrl(), m);
    expect(req.body.parameters).toEqual({ return_full_text: false, max_new_tokens: 32 });
  });

  it("a request TGI refuses is a 502 carrying TGI's own text", async () => {
    const failed = await runFlow(await flow({ stop: "a,b,c,d,e" }), makeCtx(`many stops ${marker()}`, { runtime: runtime() })).catch(
      (e) => e,
    );
    expect(failed).toMatchObject({ status: 502, message: expect.stringContaining("`stop` supports up to 4 stop sequences. Given: 5") });
  });

  it("streaming a chain over a text LLM sends the whole answer as one token", async () => {
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(await flow(), makeCtx(`tell me ${m}`, { runtime: runtime() }), rec.sink);
    expect(rec.text()).toBe(result.text);
    expect(result.text).toContain(`echo: Question: tell me ${m}`);
  });

  it("a failing or unreachable service is a 502 naming Hugging Face, without the token", async () => {
    const failed = await runFlow(await flow(), makeCtx(`[fail] ${marker()}`, { runtime: runtime() })).catch((e) => e);
    expect(failed).toMatchObject({
      status: 502,
      message: expect.stringContaining("Hugging Face Inference answered 500: stand-in refuses this request"),
    });
    const down = await runFlow(await flow(), makeCtx("hello", { runtime: runtime({ HUGGINGFACE_BASE_URL: closedUrl() }) })).catch((e) => e);
    expect(down).toMatchObject({ status: 502, message: expect.stringContaining("Hugging Face Inference request failed") });
    for (const e of [failed, down]) expect(e.message).not.toContain("hf_secret_token");
  });
});

describe("Replicate LLM (replicate + promptTemplate + llmChain)", () => {
  const flow = async () => {
    const cred = await credential("replicateApi", { replicateApiKey: "r8_secret" });
    return flowDataOf(replicateLlm as unknown as Fixture, (n) => void (n.get("replicate_0")!.data.credential = cred));
  };

  it("creates a prediction on the model's version, polls it until it succeeds, answers its joined output", async () => {
    const m = marker();
    const result = await runFlow(await flow(), makeCtx(`hello there ${m}`, { runtime: runtime() }));
    const prompt = `Assistant: You are a helpful assistant. You do not respond as 'User' or pretend to be 'User'. You only respond once as Assistant.\nUser: hello there ${m}\nAssistant:`;
    expect(result.text).toBe(`echo: ${prompt}`);
    const [create] = await received(replicateUrl(), m);
    expect(create.path).toBe("/v1/predictions");
    expect(create.headers.authorization).toBe("Bearer r8_secret");
    expect(create.body).toEqual({
      version: "df7690f1994d94e96ad9d568eac121aecf50684a0b0963b25a41cc40061269e5",
      input: { temperature: 0.7, prompt },
    });
    // The GETs that followed this prediction's creation (this file alone uses the Replicate stand-in).
    const all = await received(replicateUrl());
    const at = all.findIndex((r) => r.method === "POST" && JSON.stringify(r.body).includes(m));
    const polls = all.slice(at + 1).filter((r) => r.method === "GET");
    expect(polls.map((r) => r.path)).toEqual([expect.stringMatching(/^\/v1\/predictions\/pred\d+$/), expect.anything()]);
    expect(new Set(polls.map((r) => r.path)).size).toBe(1);
    expect(polls[0].headers.authorization).toBe("Bearer r8_secret");
  });

  it("a failed prediction is a 502 with Replicate's error", async () => {
    const failed = await runFlow(await flow(), makeCtx(`[fail] ${marker()}`, { runtime: runtime() })).catch((e) => e);
    expect(failed).toMatchObject({ status: 502, message: "Replicate prediction failed: stand-in model crashed" });
  });
});

describe("Image Generation (replicate sdxl → llmChain → chatOpenAI writes the markdown image)", () => {
  it("the image URL Replicate returns reaches the second chain, whose answer shows it", async () => {
    const rep = await credential("replicateApi", { replicateApiKey: "r8_img" });
    const oai = await credential("openAIApi", { openAIApiKey: "sk-img" });
    const flow = flowDataOf(imageGeneration as unknown as Fixture, (n) => {
      n.get("replicate_0")!.data.credential = rep;
      pointAtStandin(n.get("chatOpenAI_0")!, oai);
    });
    const m = marker();
    const result = await runFlow(flow, makeCtx(`a cat painting ${m}`, { runtime: runtime() }));
    const [create] = await received(replicateUrl(), m);
    expect(create.body).toMatchObject({
      version: "af1a68a271597604546c09c64aabcd7782c114a63539a4a8d14d1eeda5630c33",
      input: { prompt: `a cat painting ${m}` },
    });
    expect(result.text).toMatch(
      /^echo: Reply with nothing else but the following:\n!\[\]\(https:\/\/replicate\.delivery\/standin\/pred\d+\.png\)$/,
    );
    const image = /\((.*)\)/.exec(result.text)![1];
    expect((await requestsWith(image)).length).toBe(1); // the OpenAI stand-in got the URL in its prompt
  });
});
