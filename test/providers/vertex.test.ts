// Flowise's Google Vertex AI nodes (chatGoogleVertexAI, googlevertexai, googlevertexaiEmbeddings)
// against the Vertex stand-in (test/standin/vertex.mjs), which verifies each sign-in's RS256 JWT with
// the public key of a key pair this file generates and registers, and each call's bearer token: the
// token exchanged once and reused, Vertex's URL by project and region, streamed tokens through
// POST /prediction, embeddings over :predict, and the failures (a wrong key, a key file path, no
// credential, a private token_uri, a Claude or PaLM model).
import { env } from "cloudflare:workers";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, credential, db, flowDataOf, marker } from "../engine/helpers";
import { call, json } from "../helpers";
import { framesOf, setVars } from "../security/helpers";

const vertexUrl = () => inject("vertexUrl");
const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, GOOGLE_VERTEX_BASE_URL: vertexUrl() },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Received = { path: string; headers: Record<string, string>; body: Record<string, unknown>; account?: string };
const received = async (m: string): Promise<Received[]> =>
  (await fetch(`${vertexUrl()}/requests?contains=${encodeURIComponent(m)}`)).json();

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${btoa(String.fromCharCode(...new Uint8Array(der)))
    .match(/.{1,64}/g)!
    .join("\n")}\n-----END ${label}-----\n`;

async function keyPair() {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  return {
    privateKey: pem("PRIVATE KEY", (await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer),
    publicKey: pem("PUBLIC KEY", (await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer),
  };
}

/** A service account registered at the stand-in (its e-mail names the test's marker) and its googleVertexAuth credential. */
async function account(over: { register?: boolean; key?: Record<string, unknown>; cred?: Record<string, unknown> } = {}) {
  const m = marker();
  const email = `${m}@edge-proj.iam.gserviceaccount.com`;
  const { privateKey, publicKey } = await keyPair();
  if (over.register !== false)
    await fetch(`${vertexUrl()}/control/keys`, { method: "POST", body: JSON.stringify({ client_email: email, public_key: publicKey }) });
  const key = {
    type: "service_account",
    project_id: "edge-proj",
    private_key_id: `kid-${m}`,
    private_key: privateKey,
    client_email: email,
    token_uri: `${vertexUrl()}/token`,
    ...over.key,
  };
  const id = await credential("googleVertexAuth", { googleApplicationCredential: JSON.stringify(key), ...over.cred });
  return { m, email, id, privateKey };
}

describe("chatGoogleVertexAI", () => {
  it("signs in once with an RS256 JWT and calls Vertex's generateContent with the bearer token", async () => {
    const { m, email, id } = await account();
    const model = await buildChatModel(
      "chatGoogleVertexAI",
      { credential: id, region: "europe-west4", modelName: "gemini-2.5-flash", temperature: "0.3", maxOutputTokens: "99", topK: "4" },
      deps(),
    );
    const first = await model.invoke([new SystemMessage("be brief"), new HumanMessage(`hello ${m}`)]);
    expect(first.content).toBe(`echo: hello ${m}`);
    expect((await model.invoke([new HumanMessage(`again ${m}`)])).content).toBe(`echo: again ${m}`);
    const reqs = await received(email);
    const tokens = reqs.filter((r) => r.path === "/token");
    expect(tokens).toHaveLength(1); // cached for the second call
    expect(tokens[0].body).toMatchObject({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer" });
    const calls = reqs.filter((r) => r.path !== "/token");
    expect(calls.map((r) => r.path)).toEqual(
      Array(2).fill("/v1/projects/edge-proj/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent"),
    );
    expect(calls[0].headers.authorization).toMatch(/^Bearer ya29\.standin-/);
    expect(calls[0].body).toMatchObject({
      systemInstruction: { parts: [{ text: "be brief" }] },
      generationConfig: { temperature: 0.3, maxOutputTokens: 99, topK: 4 },
    });
  });

  it("streams tokens through POST /prediction on a chatflow (customModelName, projectID from the credential)", async () => {
    const { m, email, id } = await account({ cred: { projectID: "other-proj" } });
    const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
      for (const node of nodes.values()) {
        if (node.data.category !== "Chat Models") continue;
        node.data.name = "chatGoogleVertexAI";
        node.data.inputs = { modelName: "gemini-2.5-pro", customModelName: "gemini-3-flash-preview", region: "global", temperature: 0.9 };
        node.data.credential = id;
      }
      const prompt = nodes.get("promptTemplate_0")!;
      prompt.data.inputs = { ...prompt.data.inputs, template: "{product}" };
    });
    const restore = setVars({ GOOGLE_VERTEX_BASE_URL: vertexUrl() });
    try {
      const flowId = (await json("POST", "/chatflows", { body: { name: "vertex chain", flowData } })).id;
      const res = await call("POST", `/prediction/${flowId}`, { body: { question: `tell me a story ${m}`, streaming: true } });
      expect(res.status).toBe(200);
      const frames = await framesOf(res);
      const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
      expect(tokens.length).toBeGreaterThan(2);
      expect(tokens.join("")).toBe(`echo: tell me a story ${m}`);
      const [req] = (await received(email)).filter((r) => r.path !== "/token");
      expect(req.path).toBe(
        "/v1/projects/other-proj/locations/global/publishers/google/models/gemini-3-flash-preview:streamGenerateContent?alt=sse",
      );
    } finally {
      restore();
    }
  });

  it("a key Google does not know is a 502 with Google's message, never the private key", async () => {
    const { m, id, privateKey } = await account({ register: false });
    const model = await buildChatModel("chatGoogleVertexAI", { credential: id, modelName: "gemini-2.5-flash" }, deps());
    const err = await model.invoke([new HumanMessage(`hi ${m}`)]).catch((e) => e);
    expect(err).toMatchObject({ status: 502, message: expect.stringContaining("Google OAuth answered 400: invalid_grant") });
    expect(String(err.message)).not.toContain(privateKey.slice(40, 80));
  });

  it("a wrong signature is Google's invalid_grant (502); a service error is a 502 naming Vertex AI", async () => {
    const { email, id } = await account();
    const other = await keyPair();
    const bad = await credential("googleVertexAuth", {
      googleApplicationCredential: JSON.stringify({
        type: "service_account",
        project_id: "edge-proj",
        private_key: other.privateKey,
        client_email: email,
        token_uri: `${vertexUrl()}/token`,
      }),
    });
    const wrong = await buildChatModel("chatGoogleVertexAI", { credential: bad, modelName: "gemini-2.5-flash" }, deps());
    await expect(wrong.invoke([new HumanMessage("hi")])).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining("Invalid JWT Signature"),
    });
    const model = await buildChatModel("chatGoogleVertexAI", { credential: id, modelName: "gemini-2.5-flash" }, deps());
    await expect(model.invoke([new HumanMessage("[bad-request] please")])).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining("Google Vertex AI answered 400"),
    });
  });

  it("bad config is a 400 that says what to fix", async () => {
    const build = async (config: Record<string, unknown>) => buildChatModel("chatGoogleVertexAI", config, deps());
    const path = await credential("googleVertexAuth", { googleApplicationCredentialFilePath: "/keys/sa.json", projectID: "p" });
    await expect(build({ credential: path, modelName: "gemini-2.5-flash" })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("no file system"),
    });
    await expect(build({ modelName: "gemini-2.5-flash" })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Application Default Credentials"),
    });
    const { id } = await account();
    await expect(build({ credential: id, modelName: "claude-sonnet-4-5@20250929" })).rejects.toMatchObject({ status: 400 });
    await expect(build({ credential: id, modelName: "gemini-2.5-flash", region: "us central" })).rejects.toMatchObject({ status: 400 });
    await expect(buildChatModel("googlevertexai", { credential: id, modelName: "text-bison" }, deps())).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("retired"),
    });
    const { id: privateToken } = await account({ key: { token_uri: "http://10.0.0.7/token" } });
    await expect(build({ credential: privateToken, modelName: "gemini-2.5-flash" })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("token_uri"),
    });
  });
});

describe("googlevertexai (LLM) and googlevertexaiEmbeddings", () => {
  it("the text LLM answers through generateContent", async () => {
    const { m, email, id } = await account();
    const llm = await buildChatModel("googlevertexai", { credential: id, modelName: "gemini-2.0-flash-001", temperature: 0.7 }, deps());
    expect((await llm.invoke(`complete ${m}`)).content).toBe(`echo: complete ${m}`);
    const [req] = (await received(email)).filter((r) => r.path !== "/token");
    expect(req.path).toBe("/v1/projects/edge-proj/locations/us-central1/publishers/google/models/gemini-2.0-flash-001:generateContent");
  });

  it("embeds over :predict with the bearer token (stripNewLines as Flowise does)", async () => {
    const { m, email, id } = await account();
    const emb = await buildEmbeddings(
      "googlevertexaiEmbeddings",
      { credential: id, modelName: "text-embedding-005", region: "us-east4", stripNewLines: true },
      deps(),
    );
    const vectors = await emb.embedDocuments([`apples ${m}`, `pears\nand plums ${m}`]);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(16);
    expect(await emb.embedQuery(`apples ${m}`)).toEqual(vectors[0]);
    const calls = (await received(email)).filter((r) => r.path !== "/token");
    expect(calls[0].path).toBe("/v1/projects/edge-proj/locations/us-east4/publishers/google/models/text-embedding-005:predict");
    expect(calls[0].headers.authorization).toMatch(/^Bearer ya29\./);
    expect(calls[0].body).toEqual({ instances: [{ content: `apples ${m}` }, { content: `pears and plums ${m}` }] });
    const gemini = await buildEmbeddings("googlevertexaiEmbeddings", { credential: id, modelName: "gemini-embedding-001" }, deps());
    await gemini.embedDocuments([`one ${m}x`, `two ${m}x`]);
    expect((await received(`${m}x`)).map((r) => (r.body.instances as unknown[]).length)).toEqual([1, 1]);
    await expect(emb.embedQuery(`[fail] ${m}`)).rejects.toMatchObject({ status: 502 });
  });
});
