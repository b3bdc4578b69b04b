// Flowise's Google Vertex AI nodes (chatGoogleVertexAI, googlevertexai, googlevertexaiEmbeddings)
// against the Vertex stand-in (test/standin/vertex.mjs), which verifies each sign-in's RS256 JWT with
// the public key of a key pair this file generates and registers, and each call's bearer token: the
// token exchanged once and reused, Vertex's URL by project and region, streamed tokens through
// POST /prediction, embeddings over :predict, and the failures (a wrong key, a key file path, no
// credential, a private token_uri, a Claude or PaLM model). Then the wire format: the stand-in refuses what
// Vertex AI refuses (empty text parts, function names, the Gemini API's rules), and what our flows hand the
// model (an empty question, a turn of tool calls, calls and results cut apart, a greeting first, an empty
// failed answer, two system messages, structured output, the Tool Agent chatflow) reaches it as a request it takes.
import { env } from "cloudflare:workers";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { Deadline } from "../../src/lib/run-control";
import { buildChatModel } from "../../src/providers/chat/registry";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import { vertexTarget } from "../../src/providers/google/vertex";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { callOf, toolAgentFlow } from "../engine/agents-flows";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, credential, db, flowDataOf, makeCtx, marker, runFlow, runtimeWith } from "../engine/helpers";
import { call, json } from "../helpers";
import { framesOf, setVars } from "../security/helpers";
import { askStatus, cutToolConversation, weather } from "./wire-conversations";

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

describe("chatGoogleVertexAI: what our flows send is a request Vertex AI accepts", () => {
  type Body = Record<string, unknown> & { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
  /** The body of the last generateContent request the stand-in received with `m` in it. */
  const sent = async (m: string): Promise<Body> =>
    (
      (await received(m)).filter((r) => r.path.includes(":generate") || r.path.includes(":streamGenerate")).at(-1) as unknown as {
        body: Body;
      }
    ).body;
  const build = async () =>
    buildChatModel("chatGoogleVertexAI", { credential: (await account()).id, modelName: "gemini-2.5-flash" }, deps());

  it("the stand-in answers Vertex's 400 for empty text and function names, and takes what only Vertex has", async () => {
    const { id } = await account();
    const target = await vertexTarget({ credential: id }, "chatGoogleVertexAI", deps());
    const deadline = new Deadline(10_000);
    const headers = await target.auth(deadline);
    deadline.done();
    const raw = (body: Record<string, unknown>) =>
      fetch(`${target.modelsUrl}/gemini-2.5-flash:generateContent`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const user = { role: "user", parts: [{ text: "q" }] };
    const declare = (name: string, parameters?: Record<string, unknown>) => ({ tools: [{ functionDeclarations: [{ name, parameters }] }] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ contents: [user, { role: "model", parts: [{ text: "" }] }, user] }, "it has an empty text parameter"],
      [{ contents: [user], systemInstruction: { parts: [{ text: "" }] } }, "it has an empty text parameter"],
      [{ contents: [user], ...declare("2fa_check") }, "Must start with a letter or an underscore"],
      [{ contents: [user], ...declare("f", { type: "object", $schema: "x" }) }, 'Unknown name "$schema"'],
      [{ contents: [user], ...declare("f", { type: ["string", "null"] }) }, "google.cloud.aiplatform.v1.Type"],
      // What the Gemini API refuses too: a function response with no call before it.
      [
        { contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] }] },
        "comes immediately after a function call turn",
      ],
    ];
    for (const [body, message] of cases) {
      const res = await raw(body);
      expect(res.status, message).toBe(400);
      expect(await res.json()).toMatchObject({
        error: { code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining(message) },
      });
    }
    // Vertex's Schema takes additionalProperties and any string format; its request takes labels.
    const ok = await raw({
      contents: [user],
      labels: { team: "edge" },
      ...declare("_lookup.v2", { type: "object", additionalProperties: false, properties: { to: { type: "string", format: "email" } } }),
    });
    expect(ok.status).toBe(200);
  });

  it("an empty question and a system prompt alone go as a stand-in user turn, never an empty text part", async () => {
    const model = await build();
    const m = marker();
    expect((await model.invoke([new SystemMessage(`Fill the form ${m}`), new HumanMessage("")])).content).toBe("echo: Please continue.");
    expect(await sent(m)).toMatchObject({
      systemInstruction: { parts: [{ text: `Fill the form ${m}` }] },
      contents: [{ role: "user", parts: [{ text: "Please continue." }] }],
    });
    const m2 = marker();
    expect((await model.invoke([new SystemMessage(`Only a system prompt ${m2}`), new SystemMessage("")])).content).toBe(
      "echo: Please continue.",
    );
    expect((await sent(m2)).contents).toEqual([{ role: "user", parts: [{ text: "Please continue." }] }]);
  });

  it("a turn of tool calls with blank text goes as its calls alone, answered in the next turn", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const calls = [
      { id: "c1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const },
      { id: "c2", name: "get_weather", args: { city: "Rome" }, type: "tool_call" as const },
    ];
    const reply = await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "\n\n", tool_calls: calls }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: "c1" }),
      new ToolMessage({ content: "rainy in Rome", tool_call_id: "c2" }),
      new HumanMessage(`and tomorrow? ${m}`),
    ]);
    expect(reply.content).toBe(`echo: and tomorrow? ${m}`);
    expect((await sent(m)).contents.slice(1)).toEqual([
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Oslo" } } },
          { functionCall: { name: "get_weather", args: { city: "Rome" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { content: "sunny in Oslo" } } },
          { functionResponse: { name: "get_weather", response: { content: "rainy in Rome" } } },
          { text: `and tomorrow? ${m}` },
        ],
      },
    ]);
  });

  it("a tool result cut from its call goes as user text; a call cut from its result goes without it", async () => {
    const model = await build();
    const m = marker();
    expect((await model.invoke(cutToolConversation(m))).content).toBe(`echo: and? ${m}`);
    expect((await sent(m)).contents).toEqual([
      { role: "user", parts: [{ text: "The tool get_weather answered: rainy in Rome" }, { text: `weather? ${m}` }] },
      { role: "model", parts: [{ text: "Looking." }, { functionCall: { name: "get_weather", args: { city: "Oslo" } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "get_weather", response: { content: "sunny in Oslo" } } }, { text: `and? ${m}` }],
      },
    ]);
  });

  it("history opening with a greeting, an empty failed answer, two system messages: a request Vertex takes", async () => {
    const model = await build();
    const m = marker();
    const reply = await model.invoke([
      new SystemMessage("You are terse."),
      new AIMessage("Hello! How can I help?"),
      new HumanMessage("the question whose answer failed"),
      new AIMessage(""),
      new HumanMessage(`asked again ${m}`),
      new SystemMessage("Answer in English."),
    ]);
    expect(reply.content).toContain(`asked again ${m}`); // the stand-in echoes the whole last user turn
    expect(await sent(m)).toMatchObject({
      systemInstruction: { parts: [{ text: "You are terse.\n\nAnswer in English." }] },
      contents: [
        { role: "model", parts: [{ text: "Hello! How can I help?" }] },
        { role: "user", parts: [{ text: "the question whose answer failed" }, { text: `asked again ${m}` }] },
      ],
    });
  });

  it("structured output forces its function (mode ANY) and the Tool Agent chatflow runs its calculator", async () => {
    const { id } = await account();
    const model = await buildChatModel("chatGoogleVertexAI", { credential: id, modelName: "gemini-2.5-flash" }, deps());
    const m = marker();
    expect(await askStatus(model, m)).toEqual({ status: "open" });
    expect((await sent(m)).toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: [expect.any(String)] } });
    const flow = JSON.parse(toolAgentFlow());
    const node = flow.nodes.find((n: { id: string }) => n.id === "chatOpenAI_0");
    node.data.name = "chatGoogleVertexAI";
    node.data.inputs = { modelName: "gemini-2.5-flash" };
    node.data.credential = id;
    const runtime = runtimeWith({ GOOGLE_VERTEX_BASE_URL: vertexUrl() });
    const result = await runFlow(
      JSON.stringify(flow),
      makeCtx(`6 times 7? ${callOf("calculator", { input: "6*7" })} ${marker()}`, { runtime }),
    );
    expect(result.text).toBe("tools said: 42");
  });
});
