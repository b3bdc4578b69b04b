// The LLM cache nodes on a chat model's `cache` input, in a chatflow run through POST /prediction:
// the same question twice reaches the model once (the second answer comes from the cache), another
// question reaches it again. inMemoryCache (this isolate's memory), redisCache (RESP over TCP to the
// Redis stand-in: GET/SET with PX ttl), upstashRedisCache (Upstash's REST API, token checked).
import { describe, expect, inject, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { credential, marker, requestsWith, standinUrl } from "./helpers";
import { flow, ref } from "./retrieval-flows";

const upstash = () => inject("upstashUrl");

async function save(cacheName: string, inputs: Record<string, unknown> = {}, credentialId?: string): Promise<string> {
  const flowData = flow([
    ["cache_0", cacheName, "Cache", { ...inputs, ...(credentialId ? { credential: credentialId } : {}) }],
    ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1`, cache: ref("cache_0") }],
    ["chain_0", "conversationChain", "Chains", { model: ref("model_0") }],
  ] as never);
  return (await json("POST", "/chatflows", { body: { name: `cache ${cacheName}`, flowData } })).id;
}

const ask = async (id: string, question: string) => (await json("POST", `/prediction/${id}`, { body: { question } })).text as string;
const modelCalls = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions")).length;

/** Asks `q` twice and another question once: answers and how many times the model was called. */
async function twiceAndOther(id: string) {
  const m = marker();
  const first = await ask(id, `Weather ${m}?`);
  const again = await ask(id, `Weather ${m}?`);
  const calls = await modelCalls(m);
  const other = await ask(id, `Other ${m}?`);
  return { m, first, again, calls, other, total: await modelCalls(m) };
}

describe("LLM caches on a chat model's cache input", () => {
  it("inMemoryCache: the second identical question is answered from the cache", async () => {
    const r = await twiceAndOther(await save("inMemoryCache"));
    expect(r.first).toContain(`Weather ${r.m}?`);
    expect(r.again).toBe(r.first);
    expect(r.calls).toBe(1);
    expect(r.other).toContain(`Other ${r.m}?`);
    expect(r.total).toBe(2);
  });

  it("redisCache (redisCacheUrlApi, TCP): generations stored with SET … PX ttl, read back with GET", async () => {
    const cred = await credential("redisCacheUrlApi", { redisUrl: inject("redisUrl") });
    const r = await twiceAndOther(await save("redisCache", { ttl: "60000" }, cred));
    expect(r.again).toBe(r.first);
    expect(r.calls).toBe(1);
    expect(r.total).toBe(2);
    const commands = (await (await fetch(`${upstash()}/commands`)).json()) as Array<{ args: string[] }>;
    const sets = commands.filter((c) => c.args[0] === "SET" && c.args[2].includes(`Weather ${r.m}?`));
    expect(sets).toHaveLength(1);
    expect(sets[0].args.slice(3)).toEqual(["PX", "60000"]);
    expect(JSON.parse(sets[0].args[2])).toMatchObject({ text: r.first, message: { type: "ai" } });
    expect(commands.some((c) => c.args[0] === "GET" && c.args[1] === sets[0].args[1])).toBe(true);
  });

  it("upstashRedisCache (upstashRedisApi): over Upstash's REST API; no credential or a private URL is a 400", async () => {
    const cred = await credential("upstashRedisApi", { upstashConnectionUrl: upstash(), upstashConnectionToken: "upstash-token" });
    const r = await twiceAndOther(await save("upstashRedisCache", {}, cred));
    expect(r.again).toBe(r.first);
    expect(r.calls).toBe(1);
    expect(r.total).toBe(2);
    const none = await save("upstashRedisCache");
    const err = await expectError(await call("POST", `/prediction/${none}`, { body: { question: "hi" } }), 400);
    expect(err.message).toContain("needs an upstashRedisApi credential with upstashConnectionUrl and upstashConnectionToken");
    const priv = await credential("upstashRedisApi", {
      upstashConnectionUrl: "http://10.5.5.5",
      upstashConnectionToken: "upstash-secret-9",
    });
    const refused = await expectError(
      await call("POST", `/prediction/${await save("upstashRedisCache", {}, priv)}`, { body: { question: "hi" } }),
      400,
    );
    expect(refused.message).toMatch(
      /^upstashRedisApi credential upstashConnectionUrl refused by the outbound policy: 10\.5\.5\.5 is a private/,
    );
    expect(refused.message).not.toContain("upstash-secret-9");
  });
});
