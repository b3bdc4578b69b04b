// A Workers AI template run where the worker has no AI binding (as under `npm run dev`, or a
// deployment without [ai]): its chatCloudflareWorkersAI node with a cloudflareApi credential made in
// the studio's form — Flowise's field names, cloudflareAccountId and cloudflareApiToken — and its
// Base URL at an OpenAI-compatible endpoint. The provider read other field names, so such a
// credential was never found and the run failed asking for the AI binding (found by the studio's
// template journey, test/e2e/studio-template.mjs).
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { forgetConfig } from "../../src/config";
import { credential, marker, standinUrl } from "../engine/helpers";
import { json } from "../helpers";
import { standinRequests } from "../security/helpers";
import { NAMES, nodeOf, saveTemplate, template } from "../studio/templates";

const bindings = env as unknown as Record<string, unknown>;
const ai = bindings.AI;

// The worker reads its env once per env object (src/config.ts perEnv): a test that changes the live
// one says so, as a deployment without the binding would be another isolate.
afterEach(() => {
  bindings.AI = ai;
  forgetConfig(env);
});

describe("the Voice Assistant template without the AI binding", () => {
  it("calls the Base URL with the studio-made cloudflareApi credential's token and answers from it", async () => {
    delete bindings.AI;
    forgetConfig(env);
    const { template: t, flow } = await template(NAMES.voice);
    const model = nodeOf(flow, "chatCloudflareWorkersAI_0");
    model.data.credential = await credential("cloudflareApi", { cloudflareAccountId: "acct-e2e", cloudflareApiToken: "cf-token-e2e" });
    model.data.inputs.baseUrl = `${standinUrl()}/v1`;
    const saved = await saveTemplate(t, flow);
    const m = marker();
    const answer = await json<{ text: string }>("POST", `/prediction/${saved.id}`, { body: { question: `hello ${m}` } });
    expect(answer.text).toContain(`echo: hello ${m}`);
    const calls = await standinRequests(m);
    expect(calls).toHaveLength(1);
    expect(calls[0].headers.authorization).toBe("Bearer cf-token-e2e");
    expect(calls[0].body.model).toBe("@cf/meta/llama-3.1-8b-instruct-fast");
  });
});
