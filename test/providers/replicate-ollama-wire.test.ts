// Replicate's predictions API and Ollama's /api/generate as the strict stand-ins enforce them
// (test/standin/replicate.mjs; text-services.mjs's Ollama route): the `Prefer: wait` we ask for fits
// our deadline, official models go to /v1/models/<owner>/<name>/predictions, Ollama's options reach
// it with the JSON types it decodes, and its "model not found" reaches the flow.
import { env } from "cloudflare:workers";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { credential, db, marker, standinUrl } from "../engine/helpers";

type Received = { method: string; path: string; headers: Record<string, string>; body: Record<string, any> };
const received = async (base: string, m: string): Promise<Received[]> =>
  (await fetch(`${base}/requests?contains=${encodeURIComponent(m)}`)).json();

const replicateUrl = () => inject("replicateUrl");
const deps = (over: Partial<ProviderDeps["env"]> = {}): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, REPLICATE_BASE_URL: replicateUrl(), ...over },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

async function replicate(config: Record<string, unknown>) {
  const id = await credential("replicateApi", { replicateApiKey: "r8_wire" });
  return buildChatModel("replicate", { credential: id, ...config }, deps());
}

describe("replicate", () => {
  const VERSION = "df7690f1994d94e96ad9d568eac121aecf50684a0b0963b25a41cc40061269e5";

  it("asks Replicate to wait less than the node's timeout: a slow model is polled, not aborted and created twice", async () => {
    const m = marker();
    const model = await replicate({ model: `a16z-infra/llama13b-v2-chat:${VERSION}`, timeout: "2000" });
    const reply = await model.invoke([new HumanMessage(`[slow] ünïcode ${m}`)]);
    expect(reply.content).toBe(`echo: [slow] ünïcode ${m}`);
    const posts = (await received(replicateUrl(), m)).filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1); // a bare `Prefer: wait` (60 s) outlived the 2 s deadline: aborted, retried
    expect(posts[0].headers.prefer).toBe("wait=1");
  });

  it("an official model (owner/name) goes to its models path without a version; the default wait fits 60 s", async () => {
    const m = marker();
    const model = await replicate({ model: "meta/meta-llama-3-8b-instruct", maxTokens: "64", temperature: "0.5" });
    expect((await model.invoke([new HumanMessage(`hi ${m}`)])).content).toBe(`echo: hi ${m}`);
    const [create] = await received(replicateUrl(), m);
    expect(create.path).toBe("/v1/models/meta/meta-llama-3-8b-instruct/predictions");
    expect(create.body).toEqual({ input: { temperature: 0.5, max_length: 64, prompt: `hi ${m}` } });
    expect(create.headers.prefer).toBe("wait=48");
  });
});

describe("ollama (/api/generate)", () => {
  const ollama = (config: Record<string, unknown>) =>
    buildChatModel("ollama", { baseUrl: standinUrl(), modelName: "llama3.2", ...config }, deps());
  const standinReceived = (m: string) => received(standinUrl(), m);

  it("Flowise's inputs (strings) reach Ollama as the JSON numbers and string list its options decode", async () => {
    const m = marker();
    const model = await ollama({
      temperature: "0.2",
      topP: "0.9",
      topK: "40",
      numCtx: "8192",
      numGpu: "1",
      numThread: "4",
      repeatLastN: "64",
      repeatPenalty: "1.1",
      mirostat: "1",
      stop: "User:, ###",
    });
    expect((await model.invoke([new HumanMessage(`hej ${m}`)])).content).toBe(`echo: hej ${m}`);
    const [r] = await standinReceived(m);
    expect(r.body).toMatchObject({ model: "llama3.2", stream: false, prompt: `hej ${m}` });
    expect(r.body.options).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      num_ctx: 8192,
      num_gpu: 1,
      num_thread: 4,
      repeat_last_n: 64,
      repeat_penalty: 1.1,
      stop: ["User:", "###"],
    });
  });

  it("a model Ollama has not pulled: its 404 message reaches the flow", async () => {
    const model = await ollama({ modelName: "missing-model:7b" });
    const failed = await model.invoke([new HumanMessage(`hi ${marker()}`)]).then(
      () => undefined,
      (e: { message: string }) => e,
    );
    expect(failed?.message).toContain("model 'missing-model:7b' not found");
  });
});
