// chatHuggingFace over Hugging Face's OpenAI-compatible chat completions, against the Hugging Face
// stand-in (test/standin/huggingface.mjs: TGI's refusals, then the main stand-in's answers): the router's
// /v1/chat/completions under HUGGINGFACE_BASE_URL (its /hf-inference path swapped for /v1), a dedicated
// endpoint's /v1/chat/completions, the token as Bearer, Flowise's inputs (hfTopK as top_k, stop),
// streaming, a top_p TGI refuses left out, TGI's 422 text in the error, and a missing token as a 400.
import { env } from "cloudflare:workers";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { credential, db, marker } from "../engine/helpers";

const hfUrl = () => inject("huggingFaceUrl");
type Received = { path: string; headers: Record<string, string>; body: Record<string, unknown> };
const requestsWith = async (m: string): Promise<Received[]> =>
  (await fetch(`${hfUrl()}/requests?contains=${encodeURIComponent(m)}`)).json();

const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, HUGGINGFACE_BASE_URL: `${hfUrl()}/hf-inference` },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

const build = async (config: Record<string, unknown>) =>
  buildChatModel(
    "chatHuggingFace",
    { credential: await credential("huggingFaceApi", { huggingFaceApiKey: "hf_secret1" }), ...config },
    deps(),
  );

describe("chatHuggingFace", () => {
  it("calls the router's chat completions with the token and Flowise's inputs, JSON and streamed", async () => {
    const model = await build({ model: "meta-llama/Llama-3.1-8B-Instruct:novita", temperature: "0.4", hfTopK: "7", stop: "END, STOP" });
    const m = marker();
    expect((await model.invoke([new HumanMessage(`hi ${m}`)])).content).toBe(`echo: hi ${m}`);
    const [req] = await requestsWith(m);
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer hf_secret1");
    expect(req.body).toMatchObject({ model: "meta-llama/Llama-3.1-8B-Instruct:novita", temperature: 0.4, top_k: 7, stop: ["END", "STOP"] });
    const m2 = marker();
    const tokens: string[] = [];
    for await (const chunk of await model.stream([new HumanMessage(`stream ${m2}`)])) if (chunk.content) tokens.push(String(chunk.content));
    expect(tokens.join("")).toBe(`echo: stream ${m2}`);
    expect(tokens.length).toBeGreaterThan(1);
  });

  it("a dedicated Inference Endpoint gets /v1/chat/completions; a missing token or model is a 400", async () => {
    const model = await build({ model: "gpt2", endpoint: `${hfUrl()}/my-endpoint` });
    const m = marker();
    await model.invoke([new HumanMessage(`ep ${m}`)]);
    expect((await requestsWith(m))[0].path).toBe("/my-endpoint/v1/chat/completions");
    await expect(buildChatModel("chatHuggingFace", { model: "x/y" }, deps())).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("huggingFaceApi"),
    });
    await expect(build({})).rejects.toMatchObject({ status: 400, message: expect.stringContaining("model") });
  });

  it("a top_p of 1 (TGI refuses top_p outside (0, 1)) is left out; a conversation with memory goes as messages", async () => {
    const model = await build({ model: "gpt2", endpoint: `${hfUrl()}/tgi`, topP: "1", temperature: "0" });
    const m = marker();
    const history = [new SystemMessage("be brief"), new HumanMessage("hello"), new AIMessage("hi there")];
    expect((await model.invoke([...history, new HumanMessage(`again ${m}`)])).content).toBe(`echo: again ${m}`);
    const [req] = await requestsWith(m);
    expect(req.body).not.toHaveProperty("top_p");
    expect(req.body).toMatchObject({
      temperature: 0,
      messages: [{ role: "system" }, { role: "user" }, { role: "assistant" }, { role: "user" }],
    });
  });

  it("a request TGI refuses is a 502 carrying TGI's own text", async () => {
    const model = await build({ model: "gpt2", endpoint: `${hfUrl()}/tgi`, stop: "a, b, c, d, e" });
    await expect(model.invoke([new HumanMessage(`stops ${marker()}`)])).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining("`stop` supports up to 4 stop sequences. Given: 5"),
    });
  });
});
