// momentoCache on a chat model's `cache` input, in a chatflow run through POST /prediction, over
// Momento's HTTP API (test/standin/momento.mjs at MOMENTO_BASE_URL): the same question twice reaches
// the model once, what Momento received (GET then PUT with ttl_seconds, the key's token), Momento's
// errors → 502 without the token (a missing cache before the model is asked), bad keys / no
// credential / a private base → 400; and the cache endpoint found from each kind of key as Momento's SDK finds it.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { momentoTarget } from "../../src/providers/memory/momento";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { credential, marker, requestsWith, standinUrl } from "./helpers";
import { flow, ref } from "./retrieval-flows";

type Recorded = { method: string; path: string; headers: Record<string, string>; body: unknown };

const momento = () => inject("momentoUrl");
const v1Key = (apiKey: string, endpoint = "cell-4-us-west-2-1.prod.a.momentohq.com") => btoa(JSON.stringify({ api_key: apiKey, endpoint }));
const jwt = (claims: Record<string, unknown>) =>
  `${btoa(JSON.stringify({ alg: "HS256" }))}.${btoa(JSON.stringify(claims)).replace(/=+$/, "")}.c2ln`;

async function save(credentialId?: string): Promise<string> {
  const flowData = flow([
    ["cache_0", "momentoCache", "Cache", credentialId ? { credential: credentialId } : {}],
    ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1`, cache: ref("cache_0") }],
    ["chain_0", "conversationChain", "Chains", { model: ref("model_0") }],
  ] as never);
  return (await json("POST", "/chatflows", { body: { name: "momento cache", flowData } })).id;
}
const momentoCredential = (cache: string, apiKey = v1Key("momento-token"), momentoEndpoint = "") =>
  credential("momentoCacheApi", { momentoCache: cache, momentoApiKey: apiKey, momentoEndpoint });
const ask = async (id: string, question: string) => (await json("POST", `/prediction/${id}`, { body: { question } })).text as string;
const modelCalls = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions")).length;
const received = async (cache: string): Promise<Recorded[]> =>
  ((await (await fetch(`${momento()}/requests`)).json()) as Recorded[]).filter((r) => r.path.startsWith(`/cache/${cache}?`));

let restore: () => void;
beforeAll(() => {
  restore = setVars({ MOMENTO_BASE_URL: momento() });
});
afterAll(() => restore());

describe("momentoCache through POST /prediction", () => {
  it("a second identical question is answered from Momento: GET by key, PUT with a day's ttl_seconds, the key's token", async () => {
    const m = marker();
    const cache = `llm-${m}`;
    const id = await save(await momentoCredential(cache));
    const first = await ask(id, `Weather ${m}?`);
    const again = await ask(id, `Weather ${m}?`);
    expect(again).toBe(first);
    expect(await modelCalls(m)).toBe(1);
    const requests = await received(cache);
    expect(requests.map((r) => r.method)).toEqual(["GET", "PUT", "GET"]);
    const [get, put] = requests;
    const key = new URL(`http://x${put.path}`).searchParams.get("key");
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(new URL(`http://x${get.path}`).searchParams.get("key")).toBe(key);
    expect(new URL(`http://x${put.path}`).searchParams.get("ttl_seconds")).toBe("86400");
    expect(requests.every((r) => r.headers.authorization === "momento-token")).toBe(true);
    expect(put.body).toEqual([expect.objectContaining({ text: first, message: expect.objectContaining({ type: "ai" }) })]);
    const unicode = `Other ${m}? 天気は 🌦 «ok»`;
    const other = await ask(id, unicode);
    expect(other).toContain(unicode);
    expect(await ask(id, unicode)).toBe(other);
    expect(await modelCalls(m)).toBe(2);
  });

  it("Momento's errors are 502s without the token; no credential, a bad key or a private base URL is a 400", async () => {
    const wrong = await save(await momentoCredential(`llm-${marker()}`, v1Key("momento-wrong-secret")));
    const denied = await expectError(await call("POST", `/prediction/${wrong}`, { body: { question: marker() } }), 502);
    expect(denied.message).toContain("answered 401: Invalid authentication credentials");
    expect(denied.message).not.toContain("momento-wrong-secret");
    // A cache that does not exist answers 404 "Cache not found" to the GET too: an error before the model is
    // asked, not a miss (which left the model's answer lost at the PUT, and a streamed run never told).
    const gone = `missing-${marker()}`;
    const m = marker();
    const missing = await save(await momentoCredential(gone));
    const notFound = await expectError(await call("POST", `/prediction/${missing}`, { body: { question: m } }), 502);
    expect(notFound.message).toContain("answered 404: Cache not found");
    expect(await modelCalls(m)).toBe(0);
    expect((await received(gone)).map((r) => r.method)).toEqual(["GET"]);
    const none = await expectError(await call("POST", `/prediction/${await save()}`, { body: { question: "hi" } }), 400);
    expect(none.message).toContain("needs a momentoCacheApi credential with momentoCache and momentoApiKey");
    const bad = await save(await momentoCredential("c", "not-a-key"));
    expect((await expectError(await call("POST", `/prediction/${bad}`, { body: { question: "hi" } }), 400)).message).toContain(
      "momentoApiKey is not a Momento API key",
    );
    const undo = setVars({ MOMENTO_BASE_URL: "http://10.6.6.6" });
    try {
      const priv = await save(await momentoCredential("c"));
      const refused = await expectError(await call("POST", `/prediction/${priv}`, { body: { question: "hi" } }), 400);
      expect(refused.message).toMatch(/^MOMENTO_BASE_URL refused by the outbound policy: 10\.6\.6\.6 is a private/);
    } finally {
      undo();
    }
  });
});

describe("the cache endpoint, as Momento's SDK finds it", () => {
  it("v1 keys name their endpoint; legacy JWTs their `c` claim; v2 keys take the credential's endpoint", () => {
    expect(momentoTarget(v1Key("tok"), undefined)).toEqual({ token: "tok", cacheHost: "cache.cell-4-us-west-2-1.prod.a.momentohq.com" });
    const legacy = jwt({ c: "cache.cell-us-east-1-1.prod.a.momentohq.com", cp: "control.cell-us-east-1-1.prod.a.momentohq.com" });
    expect(momentoTarget(legacy, undefined)).toEqual({ token: legacy, cacheHost: "cache.cell-us-east-1-1.prod.a.momentohq.com" });
    const v2 = jwt({ t: "g", id: "k" });
    expect(momentoTarget(v2, "cell-1-ap-south-1-1.prod.a.momentohq.com")).toEqual({
      token: v2,
      cacheHost: "cache.cell-1-ap-south-1-1.prod.a.momentohq.com",
    });
    expect(() => momentoTarget(v2, "")).toThrow(/a v2 API key needs the credential's momentoEndpoint/);
    expect(() => momentoTarget(jwt({ sub: "x" }), undefined)).toThrow(/names no cache endpoint/);
  });
});
