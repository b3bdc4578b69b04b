// Issue 8, point 3: a model endpoint that answers 401 repeating the Authorization header put
// `Bearer sk-…` into the 502 body and the stream's error frame — for an anonymous caller of a
// public chatflow. Errors now quote the provider's status and message with every credential value
// and authorization header taken out: where provider errors are made (the key that call sent), and
// again where errors leave (the run's credentials, the worker's secrets, credential-shaped text).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, expectError, json } from "../helpers";
import { redact } from "../../src/lib/redact";
import { credential, standinUrl } from "../engine/helpers";
import { registry } from "../../src/engine/chatflow/registry";
import { framesOf, openAICredential, saveChain } from "./helpers";
import type { Env } from "../../src/env";

afterEach(() => {
  vi.restoreAllMocks();
});

// Keys no pattern recognises: only knowing the value can hide it.
const PLAIN_KEY = "k3y9f1b2c4d6a8e0plainshape";
const OPENAI_KEY = "sk-proj-4f9a2b7c1d8e6f3a5b0c";

/** Asserts `text` carries neither the key nor an authorization header value. */
function expectScrubbed(text: string, key: string) {
  expect(text).not.toContain(key);
  expect(text).not.toContain(key.slice(0, 12));
  expect(text).not.toMatch(/Bearer\s+(?!\[redacted\])\S/);
}

describe("a provider echoing the credential it was sent", () => {
  it("JSON: a public chatflow called without a token answers 502 with the provider's status and message, no key", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const key of [PLAIN_KEY, OPENAI_KEY]) {
      const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential(key), extra: { isPublic: true } });
      const err = await expectError(await call("POST", `/prediction/${id}`, { token: null, body: { question: "[echo-auth] hi" } }), 502);
      expect(err.message).toMatch(/answered 401: Invalid credentials: the request carried/);
      expectScrubbed(JSON.stringify(err), key);
    }
    expect(logged).toHaveBeenCalled(); // 5xx are logged — scrubbed too
    for (const line of logged.mock.calls.flat().map(String)) expectScrubbed(line, PLAIN_KEY);
  });

  it("streaming: the error frame carries the status and message, no key; then end", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential(PLAIN_KEY), extra: { isPublic: true } });
    const res = await call("POST", `/prediction/${id}`, { token: null, body: { question: "[echo-auth] hi", streaming: true } });
    const frames = await framesOf(res);
    expect(frames.map((f) => f.event)).toEqual(["error", "end"]);
    expect(frames[0].data).toMatch(/answered 401: Invalid credentials/);
    expectScrubbed(frames[0].data, PLAIN_KEY);
  });

  it("Azure's api-key header is scrubbed the same way", async () => {
    const azure = await credential("azureOpenAIApi", {
      azureOpenAIApiKey: PLAIN_KEY,
      azureOpenAIApiInstanceName: "inst",
      azureOpenAIApiDeploymentName: "dep",
      azureOpenAIApiVersion: "2024-02-01",
    });
    const id = await saveChain({ credential: azure, extra: { isPublic: true } });
    const err = await expectError(await call("POST", `/prediction/${id}`, { token: null, body: { question: "[echo-auth] hi" } }), 502);
    expect(err.message).toContain("Azure OpenAI answered 401");
    expectScrubbed(err.message, PLAIN_KEY);
  });

  it("embeddings: a document store upsert's 502 carries no key", async () => {
    const cred = await openAICredential(PLAIN_KEY);
    const store = await json("POST", "/document-store/store", { body: { name: "echo" } });
    const res = await call("POST", `/document-store/upsert/${store.id}`, {
      body: {
        loader: { name: "plainText", config: { text: "[echo-auth] some text to embed" } },
        embedding: {
          name: "openAIEmbeddings",
          config: { credential: cred, basepath: `${standinUrl()}/v1`, modelName: "text-embedding-3-small" },
        },
        vectorStore: { name: "memoryVectorStore" },
      },
    });
    const err = await expectError(res, 502);
    expect(err.message).toContain("answered 401");
    expectScrubbed(err.message, PLAIN_KEY);
  });
});

describe("the last scrub where errors leave", () => {
  it("a provider's non-JSON error page is not quoted whole (it may echo the request's headers)", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(
      async () =>
        new Response(`<html><body><pre>authorization: Bearer ${PLAIN_KEY}</pre></body></html>`, {
          status: 403,
          statusText: "Forbidden",
          headers: { "content-type": "text/html" },
        }),
    );
    const id = await saveChain({ model: "chatOpenAI", base: "https://llm.example.com/v1", credential: await openAICredential(PLAIN_KEY) });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 502);
    expect(err.message).toBe("OpenAI-compatible endpoint answered 403: Forbidden");
  });

  it("redact(): known values in any quoting, authorization headers, bearer tokens, keys in URLs", () => {
    const out = redact(
      `key ${PLAIN_KEY} json "${JSON.stringify(PLAIN_KEY).slice(1, -1)}" url ${encodeURIComponent(`p@ss/${PLAIN_KEY}`)} ` +
        `Authorization: Bearer abc.def-123456 "api-key":"zz9zz9zz9" x-api-key=q1w2e3r4t5 token ghp_0123456789abcdefABCD ` +
        `https://user:hunter22@example.com/x?api_key=s3cr3t&ok=1 ${OPENAI_KEY}`,
      [PLAIN_KEY, `p@ss/${PLAIN_KEY}`],
    );
    for (const leaked of [PLAIN_KEY, "abc.def-123456", "zz9zz9zz9", "q1w2e3r4t5", "ghp_0123456789", "hunter22", "s3cr3t", OPENAI_KEY])
      expect(out).not.toContain(leaked);
    expect(out).toContain("ok=1");
    // Prose about tokens is left alone.
    expect(redact("Invalid authorization header: expected 'Bearer <token>'")).toBe(
      "Invalid authorization header: expected 'Bearer <token>'",
    );
  });
});

describe("the run's own scrub, behind the providers'", () => {
  it("an error quoting the run's credential or a worker secret, from code that did not scrub it, leaves without them", async () => {
    // A node standing for a future provider that forgets to scrub: it quotes its key and the admin key.
    registry.set("leakyUpstream", {
      name: "leakyUpstream",
      category: "Chains",
      build: async ({ node, ctx }) => ({
        key: String((await ctx.getCredential(String(node.data.credential))).openAIApiKey),
        admin: String(env.ADMIN_API_KEY),
      }), // nodes have no env: it quotes the secret it was handed
      run: async (instance) => {
        const { key, admin } = instance as { key: string; admin: string };
        throw new Error(`upstream refused ${key} (and ${admin})`);
      },
      canStream: () => true,
    });
    try {
      const cred = await openAICredential(PLAIN_KEY);
      const node = {
        id: "leaky_0",
        type: "customNode",
        position: { x: 0, y: 0 },
        data: { id: "leaky_0", name: "leakyUpstream", label: "Leaky", category: "Chains", credential: cred, inputs: {} },
      };
      const { id } = await json("POST", "/chatflows", {
        body: { name: "leaky", flowData: JSON.stringify({ nodes: [node], edges: [] }), isPublic: true },
      });

      const res = await call("POST", `/prediction/${id}`, { token: null, body: { question: "hi" } });
      expect(res.status).toBe(500);
      const body = await res.text();
      expect(JSON.parse(body).message).toBe("Leaky (leakyUpstream) failed: upstream refused [redacted] (and [redacted])");
      for (const secret of [PLAIN_KEY, "test-admin-key"]) expect(body).not.toContain(secret);

      const frames = await framesOf(await call("POST", `/prediction/${id}`, { token: null, body: { question: "hi", streaming: true } }));
      expect(frames).toEqual([
        { event: "error", data: "Leaky (leakyUpstream) failed: upstream refused [redacted] (and [redacted])" },
        { event: "end", data: "[DONE]" },
      ]);
    } finally {
      registry.delete("leakyUpstream");
    }
  });
});

describe("redact() is stable", () => {
  it("scrubbing twice changes nothing more", () => {
    const once = redact(`"Authorization: Bearer ${PLAIN_KEY}" api-key: ${PLAIN_KEY}`, [PLAIN_KEY]);
    expect(once).toBe('"Authorization: Bearer [redacted]" api-key: [redacted]');
    expect(redact(once, [PLAIN_KEY])).toBe(once);
  });
});

describe("native providers echoing their key (Anthropic's x-api-key, Gemini's x-goog-api-key)", () => {
  const cases = [
    {
      name: "chatAnthropic",
      credential: () => credential("anthropicApi", { anthropicApiKey: PLAIN_KEY }),
      model: "claude-3-5-haiku-latest",
    },
    {
      name: "chatGoogleGenerativeAI",
      credential: () => credential("googleGenerativeAI", { googleGenerativeAPIKey: PLAIN_KEY }),
      model: "gemini-1.5-flash-latest",
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the provider's 401 quoting the key leaves without it`, async () => {
      const { buildChatModel } = await import("../../src/providers/chat/registry");
      const { getCredentialData } = await import("../../src/services/credentials");
      const { db } = await import("../engine/helpers");
      vi.spyOn(globalThis, "fetch").mockImplementation(async () =>
        Response.json({ error: { message: `invalid x-api-key ${PLAIN_KEY}` } }, { status: 401 }),
      );
      const model = await buildChatModel(
        c.name,
        { modelName: c.model, credential: await c.credential() },
        {
          env: {
            ENVIRONMENT: env.ENVIRONMENT,
            ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
            GOOGLE_GENERATIVE_AI_BASE_URL: "http://127.0.0.1:9",
          },
          getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
        },
      );
      const err = await model.invoke("hi").then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(/401/);
      expectScrubbed(String(err?.message), PLAIN_KEY);
    });
  }
});
