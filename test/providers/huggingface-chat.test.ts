// chatHuggingFace over Hugging Face's OpenAI-compatible chat completions, against the main stand-in
// (test/standin/server.mjs): the router's /v1/chat/completions under HUGGINGFACE_BASE_URL (its
// /hf-inference path swapped for /v1), a dedicated endpoint's /v1/chat/completions, the token as
// Bearer, Flowise's inputs (hfTopK as top_k, stop), streaming, and a missing token as a 400.
import { env } from "cloudflare:workers";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { credential, db, marker, requestsWith, standinUrl } from "../engine/helpers";

const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, HUGGINGFACE_BASE_URL: `${standinUrl()}/hf-inference` },
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
    const model = await build({ model: "gpt2", endpoint: `${standinUrl()}/my-endpoint` });
    const m = marker();
    await model.invoke([new HumanMessage(`ep ${m}`)]);
    expect((await requestsWith(m))[0].path).toBe("/my-endpoint/v1/chat/completions");
    await expect(buildChatModel("chatHuggingFace", { model: "x/y" }, deps())).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("huggingFaceApi"),
    });
    await expect(build({})).rejects.toMatchObject({ status: 400, message: expect.stringContaining("model") });
  });
});
