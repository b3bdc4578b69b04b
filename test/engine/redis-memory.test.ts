// RedisBackedChatMemory and UpstashRedisBackedChatMemory against the Redis stand-ins
// (test/standin/redis.mjs: a RESP server over TCP and Upstash's REST API on one keyspace): the
// exchange is written after a run in Flowise's layout and read on the next, sessions started
// elsewhere carry over, windowSize, sessionTTL, sessionId, AUTH, and a Redis that is down.
import { describe, expect, inject, it } from "vitest";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { flowDataWarning } from "../../src/services/chatflows";
import contextChatEngine from "./fixtures/context-chat-engine.json";
import {
  type Fixture,
  closedUrl,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  requestsWith,
  runFlow,
  runtimeWith,
} from "./helpers";
import { flow, ref, standinModel, textFile } from "./retrieval-flows";

const upstash = () => inject("upstashUrl");
const redisUrl = () => inject("redisUrl");
const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };

const memoryFlow = (memory: string, inputs: Record<string, unknown>) =>
  flow([
    ["mem_0", memory, "Memory", inputs],
    standinModel(),
    ["chain_0", "conversationChain", "Chains", { model: ref("model_0"), memory: ref("mem_0") }],
  ] as never);
const stored = async (key: string): Promise<{ items: string[]; ttl: number }> =>
  (await fetch(`${upstash()}/keys/${encodeURIComponent(key)}`)).json();
const tcpCommands = async (): Promise<Array<{ conn: number; args: string[] }>> => (await fetch(`${upstash()}/commands`)).json();
const lastChat = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions")).at(-1)!;
const flowiseItem = (type: "human" | "ai", content: string) =>
  JSON.stringify({ type, data: { content, additional_kwargs: {}, response_metadata: {} } });
const urlCredential = (url: string) => credential("redisCacheUrlApi", { redisUrl: url });

describe("RedisBackedChatMemory over TCP (redis://)", () => {
  it("stores each exchange in the session's list (Flowise's layout) and gives it to the next turn", async () => {
    const cred = await urlCredential(redisUrl());
    const data = memoryFlow("RedisBackedChatMemory", { credential: cred });
    const sessionId = `s-${marker()}`;
    const m = marker();
    const first = await runFlow(data, makeCtx(`My name is Ada ${m}`, { sessionId }));
    expect(first.memoryType).toBe("mem_0");
    expect((await lastChat(m)).body.messages.filter((x) => x.role !== "system")).toEqual([
      { role: "user", content: `My name is Ada ${m}` },
    ]);
    expect((await stored(sessionId)).items).toEqual([flowiseItem("ai", first.text), flowiseItem("human", `My name is Ada ${m}`)]);

    await runFlow(data, makeCtx(`What is my name? ${m}-2`, { sessionId }));
    expect((await lastChat(`${m}-2`)).body.messages.filter((x) => x.role !== "system")).toEqual([
      { role: "user", content: `My name is Ada ${m}` },
      { role: "assistant", content: first.text },
      { role: "user", content: `What is my name? ${m}-2` },
    ]);
    expect((await stored(sessionId)).items).toHaveLength(4);
    const sent = (await tcpCommands()).filter((c) => c.args[1] === sessionId).map((c) => c.args[0]);
    expect(sent).toEqual(["LRANGE", "LPUSH", "LRANGE", "LPUSH"]);
  });

  it("a session Flowise started goes on; windowSize keeps the latest messages; sessionTTL renews; the sessionId input picks the list", async () => {
    const key = `flowise-${marker()}`;
    const items = [
      flowiseItem("ai", "old answer 2"),
      flowiseItem("human", "old question 2"),
      flowiseItem("ai", "old answer 1"),
      flowiseItem("human", "old question 1"),
    ];
    await fetch(`${upstash()}/pipeline`, {
      method: "POST",
      headers: { Authorization: "Bearer upstash-token" },
      body: JSON.stringify([["RPUSH", key, ...items]]),
    });
    const cred = await urlCredential(redisUrl());
    const m = marker();
    await runFlow(
      memoryFlow("RedisBackedChatMemory", { credential: cred, sessionId: key, windowSize: 2, sessionTTL: "60" }),
      makeCtx(`next ${m}`, { sessionId: "ignored" }),
    );
    expect((await lastChat(m)).body.messages.filter((x) => x.role !== "system")).toEqual([
      { role: "user", content: "old question 2" },
      { role: "assistant", content: "old answer 2" },
      { role: "user", content: `next ${m}` },
    ]);
    expect(await stored(key)).toMatchObject({ ttl: 60 });
    expect((await stored(key)).items).toHaveLength(6);
    expect((await stored("ignored")).items).toHaveLength(0);
  });

  it("two runs of one session at once both keep their exchange", async () => {
    const cred = await urlCredential(redisUrl());
    const data = memoryFlow("RedisBackedChatMemory", { credential: cred });
    const sessionId = `par-${marker()}`;
    await Promise.all([runFlow(data, makeCtx("first", { sessionId })), runFlow(data, makeCtx("second", { sessionId }))]);
    const contents = (await stored(sessionId)).items.map((i) => JSON.parse(i).data.content);
    expect(contents.filter((c: string) => c === "first" || c === "second").sort()).toEqual(["first", "second"]);
    expect(contents).toHaveLength(4);
  });

  it("a sessionTTL under one second keeps the session for a second (EXPIRE 0 would delete it at once)", async () => {
    const cred = await urlCredential(redisUrl());
    const sessionId = `short-ttl-${marker()}`;
    await runFlow(memoryFlow("RedisBackedChatMemory", { credential: cred, sessionTTL: "0.5" }), makeCtx("hello", { sessionId }));
    expect(await stored(sessionId)).toMatchObject({ ttl: 1 });
    expect((await stored(sessionId)).items).toHaveLength(2);
    const expire = (await tcpCommands()).filter((c) => c.args[0] === "EXPIRE" && c.args[1] === sessionId);
    expect(expire.map((c) => c.args)).toEqual([["EXPIRE", sessionId, "1"]]);
  });

  it("a session key holding a string (not a list) is a 502 naming Redis's WRONGTYPE refusal", async () => {
    const cred = await urlCredential(redisUrl());
    const key = `string-key-${marker()}`;
    await fetch(`${upstash()}/pipeline`, {
      method: "POST",
      headers: { Authorization: "Bearer upstash-token" },
      body: JSON.stringify([["SET", key, "a cached value"]]),
    });
    const e = await err(runFlow(memoryFlow("RedisBackedChatMemory", { credential: cred, sessionId: key }), makeCtx("hello")));
    expect(e.status).toBe(502);
    expect(e.message).toMatch(/answered an error: WRONGTYPE/);
  });

  it("redisCacheApi (host, port, user, password) sends AUTH; a wrong password is a 502 that never shows it", async () => {
    const port = new URL(redisUrl()).port;
    const good = await credential("redisCacheApi", {
      redisCacheHost: "127.0.0.1",
      redisCachePort: port,
      redisCacheUser: "default",
      redisCachePwd: "stand-in-pass",
    });
    const sessionId = `secret:${marker()}`;
    await runFlow(memoryFlow("RedisBackedChatMemory", { credential: good }), makeCtx("hello", { sessionId }));
    expect((await stored(sessionId)).items).toHaveLength(2);
    const conns = (await tcpCommands()).filter((c) => c.args[1] === sessionId).map((c) => c.conn);
    const auth = (await tcpCommands()).filter((c) => conns.includes(c.conn) && c.args[0] === "AUTH");
    expect(auth.map((c) => c.args)).toEqual([
      ["AUTH", "default", "stand-in-pass"],
      ["AUTH", "default", "stand-in-pass"],
    ]);

    const bad = await credential("redisCacheApi", {
      redisCacheHost: "127.0.0.1",
      redisCachePort: port,
      redisCachePwd: "wrong-password-123",
    });
    const e = await err(runFlow(memoryFlow("RedisBackedChatMemory", { credential: bad }), makeCtx("hello", { sessionId })));
    expect(e.status).toBe(502);
    expect(e.message).toMatch(new RegExp(`^Redis at 127.0.0.1:${port} refused AUTH: WRONGPASS`));
    expect(e.message).not.toContain("wrong-password-123");
  });

  it("a Redis that refuses connections → 502 naming it; no credential → 400", async () => {
    const port = new URL(closedUrl()).port;
    const down = await urlCredential(`redis://127.0.0.1:${port}`);
    const e = await err(runFlow(memoryFlow("RedisBackedChatMemory", { credential: down }), makeCtx("hello")));
    expect(e.status).toBe(502);
    expect(e.message).toMatch(new RegExp(`^Redis at 127.0.0.1:${port} failed`));
    expect(await err(runFlow(memoryFlow("RedisBackedChatMemory", {}), makeCtx("hello")))).toMatchObject({
      status: 400,
      message: "mem_0 is not configured: connect a redisCacheUrlApi credential (redisUrl) or a redisCacheApi one (host, port, password)",
    });
  });
});

describe("a Redis that does not answer", () => {
  it("is a 504 naming it once its deadline passes", async () => {
    const { RedisTcp, tcpOptionsOfUrl } = await import("../../src/providers/memory/redis/tcp");
    const client = new RedisTcp({
      ...tcpOptionsOfUrl(redisUrl()),
      policy: { field: "redisUrl", env: { ENVIRONMENT: "test" } },
      timeoutMs: 300,
    });
    const started = Date.now();
    const e = await err(client.pipeline([["LRANGE", `hang:${marker()}`, 0, -1]]));
    expect(e).toMatchObject({ status: 504, message: `Redis at 127.0.0.1:${new URL(redisUrl()).port} did not answer within 300 ms` });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("Upstash REST", () => {
  it("RedisBackedChatMemory with an https:// redisUrl (token as its password) and UpstashRedisBackedChatMemory both use /pipeline with the token", async () => {
    const base = new URL(upstash());
    for (const data of [
      memoryFlow("RedisBackedChatMemory", { credential: await urlCredential(`http://default:upstash-token@${base.host}`) }),
      memoryFlow("UpstashRedisBackedChatMemory", {
        credential: await credential("upstashRedisMemoryApi", { upstashRestToken: "upstash-token" }),
        baseURL: upstash(),
        sessionTTL: "30",
      }),
    ]) {
      const sessionId = `up-${marker()}`;
      await runFlow(data, makeCtx("hi there", { sessionId }));
      await runFlow(data, makeCtx("again", { sessionId }));
      expect((await stored(sessionId)).items.map((i) => JSON.parse(i).data.content).reverse()).toEqual([
        "hi there",
        "echo: hi there",
        "again",
        "echo: again",
      ]);
      const sent = (await (await fetch(`${upstash()}/requests`)).json()) as Array<{
        path: string;
        headers: Record<string, string>;
        body: unknown;
      }>;
      const mine = sent.filter((r) => JSON.stringify(r.body ?? null).includes(sessionId));
      expect(mine.map((r) => r.path)).toEqual(["/pipeline", "/pipeline", "/pipeline", "/pipeline"]);
      expect(mine.every((r) => r.headers.authorization === "Bearer upstash-token")).toBe(true);
    }
  });

  it("Upstash failing → 502 naming Upstash without the token; a bad token → 502", async () => {
    const cred = await credential("upstashRedisMemoryApi", { upstashRestToken: "upstash-token" });
    const e = await err(
      runFlow(memoryFlow("UpstashRedisBackedChatMemory", { credential: cred, baseURL: upstash() }), makeCtx("hi", { sessionId: "fail:x" })),
    );
    expect(e).toMatchObject({
      status: 502,
      message: `Upstash Redis at ${new URL(upstash()).host} answered 500: ERR the stand-in is having a bad day`,
    });
    const wrong = await credential("upstashRedisMemoryApi", { upstashRestToken: "not-the-token-123" });
    const e2 = await err(runFlow(memoryFlow("UpstashRedisBackedChatMemory", { credential: wrong, baseURL: upstash() }), makeCtx("hi")));
    expect(e2.status).toBe(502);
    expect(e2.message).not.toContain("not-the-token-123");
  });
});

describe("RESP reader", () => {
  it("gives each reply once complete, whatever way the bytes are cut", async () => {
    const { RespReader, RespError, encodeCommand } = await import("../../src/providers/memory/redis/resp");
    const wire = new TextEncoder().encode("+OK\r\n:42\r\n$-1\r\n*2\r\n$6\r\nhéllo\r\n*1\r\n$0\r\n\r\n-ERR no\r\n*-1\r\n");
    for (const cut of [1, 2, 3, 7, wire.length]) {
      const reader = new RespReader();
      const replies: unknown[] = [];
      for (let i = 0; i < wire.length; i += cut) {
        reader.push(wire.subarray(i, i + cut));
        for (let r = reader.next(); r !== undefined; r = reader.next()) replies.push(r);
      }
      expect(replies).toEqual(["OK", 42, null, ["héllo", [""]], new RespError("ERR no"), null]);
    }
    expect(new TextDecoder().decode(encodeCommand(["LPUSH", "k", "é"]))).toBe("*3\r\n$5\r\nLPUSH\r\n$1\r\nk\r\n$2\r\né\r\n");
  });

  it("a long session's LRANGE in many chunks: every message, in order, bulk strings cut anywhere", async () => {
    const { RespReader } = await import("../../src/providers/memory/redis/resp");
    const messages = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ type: i % 2 ? "ai" : "human", text: `message ${i} ü` }));
    const wire = new TextEncoder().encode(
      `*${messages.length}\r\n${messages.map((m) => `$${new TextEncoder().encode(m).length}\r\n${m}\r\n`).join("")}`,
    );
    const reader = new RespReader();
    const replies: unknown[] = [];
    for (let i = 0; i < wire.length; i += 997) {
      reader.push(wire.subarray(i, i + 997));
      for (let r = reader.next(); r !== undefined; r = reader.next()) replies.push(r);
    }
    expect(replies).toEqual([messages]);
  });
});

describe("Context Chat Engine template with its RedisBackedChatMemory (as exported)", () => {
  it("saves without a warning; the second turn gets the first exchange back from Redis", async () => {
    expect(flowDataWarning(flowDataOf(contextChatEngine as unknown as Fixture))).toBeUndefined();
    const openai = await credential("openAIApi", { openAIApiKey: "sk-ctx" });
    const pc = await credential("pineconeApi", { pineconeApiKey: "pc-ctx-key" });
    const redis = await urlCredential(redisUrl());
    const index = `ctx-redis-${marker()}`;
    const flowData = flowDataOf(contextChatEngine as unknown as Fixture, (nodes) => {
      for (const node of nodes.values()) {
        if (node.data.name === "chatOpenAI_LlamaIndex" || node.data.name === "openAIEmbedding_LlamaIndex") pointAtStandin(node, openai);
        if (node.data.name === "pineconeLlamaIndex") {
          node.data.credential = pc;
          node.data.inputs = { ...node.data.inputs, pineconeIndex: index };
        }
        if (node.data.name === "RedisBackedChatMemory") node.data.credential = redis;
      }
    });
    const runtime = runtimeWith({ PINECONE_BASE_URL: inject("pineconeUrl") });
    const chatflowid = crypto.randomUUID();
    const { graph, plan } = planFlowUpsert(flowData);
    await runUpsert(graph, plan, makeCtx("", { chatflowid, runtime, files: { txtFile: [textFile()] } }));

    const sessionId = `ctx-${marker()}`;
    const m = marker();
    const first = await runFlow(flowData, makeCtx(`When does the bakery open? ${m}`, { chatflowid, sessionId, runtime }));
    await runFlow(flowData, makeCtx(`And on Sundays? ${m}-2`, { chatflowid, sessionId, runtime }));
    const messages = (await lastChat(`${m}-2`)).body.messages.filter((x) => x.role !== "system");
    expect(messages).toEqual([
      { role: "user", content: `When does the bakery open? ${m}` },
      { role: "assistant", content: first.text },
      { role: "user", content: `And on Sundays? ${m}-2` },
    ]);
    expect((await stored(sessionId)).items).toHaveLength(4);
  });
});
