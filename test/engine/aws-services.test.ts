// Flowise's AWS nodes against the AWS stand-ins, each request's SigV4 signature recomputed there
// (test/standin/bedrock.mjs, test/standin/aws-services.mjs): the awsBedrock text LLM in an LLM
// chain (Converse), awsBedrockKBRetriever feeding a retrieval chain (Retrieve), the awsSNS and
// awsDynamoDBKVStorage tools in a Tool Agent (Publish, PutItem, Query), DynamoDBChatMemory in a
// conversation chain (GetItem, UpdateItem; a session Flowise wrote), and the failures: the
// service's error as a 502 without the secret, a wrong secret as AWS's 403, bad config as a 400.
import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { AWS_SERVICES, awsClient } from "../../src/providers/aws/client";
import { appendChatMessages, chatMessagesOf, loadChatItem } from "../../src/providers/aws/services";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker, requestsWith, runFlow, runtimeWith } from "./helpers";
import { flow, ref, standinModel } from "./retrieval-flows";

const aws = () => inject("awsServicesUrl");
const bedrock = () => inject("bedrockUrl");
const KEY = { awsKey: "AKIAEDGEFLOWTEST", awsSecret: "edgeflow/standin+Secret1" };
const WRONG = { awsKey: "AKIAEDGEFLOWTEST", awsSecret: "wrong/Secret-never-shown" };
const runtime = () =>
  runtimeWith({
    AWS_BEDROCK_BASE_URL: bedrock(),
    AWS_BEDROCK_AGENT_BASE_URL: aws(),
    AWS_SNS_BASE_URL: aws(),
    AWS_DYNAMODB_BASE_URL: aws(),
    AWS_KENDRA_BASE_URL: aws(),
  } as never);

type Received = { method: string; path: string; headers: Record<string, string>; body: string };
const received = async (base: string, m: string): Promise<Received[]> =>
  (await fetch(`${base}/requests?contains=${encodeURIComponent(m)}`)).json();
const failure = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
/** A Kendra index ID as Kendra makes them: 36 characters (a UUID), here after a prefix the stand-in reads. */
const kendraIndex = (prefix: string) => `${prefix}${crypto.randomUUID()}`.slice(0, 36);
const scope = (req: Received) =>
  /Credential=AKIAEDGEFLOWTEST\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(req.headers.authorization)?.slice(1);

describe("awsBedrock (text LLM)", () => {
  const llmFlow = async (inputs: Record<string, unknown>, cred = KEY) =>
    flow([
      ["llm_0", "awsBedrock", "LLMs", { region: "eu-central-1", credential: await credential("awsApi", cred), ...inputs }],
      ["prompt_0", "promptTemplate", "Prompts", { template: "Answer briefly: {question}" }],
      ["chain_0", "llmChain", "Chains", { model: ref("llm_0"), prompt: ref("prompt_0") }],
    ]);

  it("sends the prompt as one user turn through Converse with Flowise's defaults, signed for bedrock", async () => {
    const m = marker();
    const result = await runFlow(await llmFlow({ model: "meta.llama3-8b-instruct-v1:0" }), makeCtx(`why ${m}`, { runtime: runtime() }));
    expect(result.text).toBe(`echo: Answer briefly: why ${m}`);
    const [req, ...more] = await received(bedrock(), m);
    expect(more).toHaveLength(0);
    expect(req.path).toBe("/model/meta.llama3-8b-instruct-v1%3A0/converse");
    expect(scope(req)).toEqual(["eu-central-1", "bedrock"]);
    expect(req.body as unknown).toEqual({
      inferenceConfig: { temperature: 0.7, maxTokens: 200 },
      messages: [{ role: "user", content: [{ text: `Answer briefly: why ${m}` }] }],
    });
  });

  it("customModel wins; temperature and max_tokens_to_sample are sent; a wrong secret is a 502 without it", async () => {
    const m = marker();
    await runFlow(
      await llmFlow({
        model: "amazon.titan-text-lite-v1",
        customModel: "amazon.nova-micro-v1:0",
        temperature: "0.1",
        max_tokens_to_sample: "30",
      }),
      makeCtx(`hi ${m}`, { runtime: runtime() }),
    );
    const [req] = await received(bedrock(), m);
    expect(req.path).toBe("/model/amazon.nova-micro-v1%3A0/converse");
    expect((req.body as unknown as { inferenceConfig: unknown }).inferenceConfig).toEqual({ temperature: 0.1, maxTokens: 30 });
    const err = await failure(
      runFlow(await llmFlow({ model: "amazon.nova-micro-v1:0" }, WRONG), makeCtx(`x ${marker()}`, { runtime: runtime() })),
    );
    expect(err.status).toBe(502);
    expect(err.message).toMatch(/403.*signature/i);
    expect(err.message).not.toContain(WRONG.awsSecret);
  });
});

describe("awsBedrockKBRetriever", () => {
  const kbFlow = async (inputs: Record<string, unknown>, cred = KEY) => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-aws-kb" });
    return flow([
      ["kb_0", "awsBedrockKBRetriever", "Retrievers", { region: "us-west-2", credential: await credential("awsApi", cred), ...inputs }],
      standinModel("model_0", openai),
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("kb_0"), returnSourceDocuments: true }],
    ]);
  };

  it("retrieves the knowledge base's chunks for the question (Retrieve, signed for bedrock) and answers from them", async () => {
    const m = marker();
    const f = await kbFlow({
      knoledgeBaseID: "KB12345678",
      topK: "2",
      searchType: "HYBRID",
      filter: '{"equals":{"key":"team","value":"ops"}}',
    });
    const result = await runFlow(f, makeCtx(`ferry times ${m}`, { runtime: runtime() }));
    const [req, ...more] = await received(aws(), m);
    expect(more).toHaveLength(0);
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/knowledgebases/KB12345678/retrieve");
    expect(scope(req)).toEqual(["us-west-2", "bedrock"]);
    expect(JSON.parse(req.body)).toEqual({
      retrievalQuery: { text: `ferry times ${m}` },
      retrievalConfiguration: {
        vectorSearchConfiguration: { numberOfResults: 2, overrideSearchType: "HYBRID", filter: { equals: { key: "team", value: "ops" } } },
      },
    });
    expect(result.sourceDocuments).toEqual([
      {
        pageContent: `Chunk 1 about ferry times ${m} end`,
        metadata: { source: "s3://kb/doc1.txt", score: 0.9, "x-amz-bedrock-kb-chunk-id": "chunk-1" },
      },
      { pageContent: `Chunk 2 about ferry times ${m} end`, metadata: expect.objectContaining({ source: "s3://kb/doc2.txt" }) },
    ]);
    const chat = (await requestsWith(m)).find((r) => r.path?.endsWith("/chat/completions"))!;
    expect(JSON.stringify(chat.body.messages)).toContain(`Chunk 1 about ferry times ${m} end`);
  });

  it("a missing knowledge base is a 502 with AWS's message; a wrong secret a 502 without it; no ID or a bad filter a 400", async () => {
    const missing = await failure(
      runFlow(await kbFlow({ knoledgeBaseID: "KBMISSING0" }), makeCtx(`q ${marker()}`, { runtime: runtime() })),
    );
    expect(missing.status).toBe(502);
    expect(missing.message).toContain("ResourceNotFoundException: Knowledge base KBMISSING0 does not exist");
    const wrong = await failure(
      runFlow(await kbFlow({ knoledgeBaseID: "KB00000001" }, WRONG), makeCtx(`q ${marker()}`, { runtime: runtime() })),
    );
    expect(wrong.status).toBe(502);
    expect(wrong.message).toMatch(/403: SignatureDoesNotMatch/);
    expect(wrong.message).not.toContain(WRONG.awsSecret);
    expect((await failure(runFlow(await kbFlow({}), makeCtx("q", { runtime: runtime() })))).status).toBe(400);
    const bad = await failure(
      runFlow(await kbFlow({ knoledgeBaseID: "KB00000001", filter: "{nope" }), makeCtx("q", { runtime: runtime() })),
    );
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/filter is not JSON/);
  });

  it("a topK over 100 asks for 100 (Retrieve's cap); a question over 20,000 characters is searched by its first 20,000", async () => {
    const m = marker();
    const long = `${m} ${"🙂".repeat(20_000)}`;
    const result = await runFlow(await kbFlow({ knoledgeBaseID: "KB12345678", topK: "250" }), makeCtx(long, { runtime: runtime() }));
    expect(result.sourceDocuments).toHaveLength(3);
    const [req] = await received(aws(), m);
    const body = JSON.parse(req.body);
    expect(body.retrievalConfiguration.vectorSearchConfiguration.numberOfResults).toBe(100);
    expect([...body.retrievalQuery.text]).toHaveLength(20_000);
    expect(body.retrievalQuery.text.startsWith(`${m} 🙂`)).toBe(true);
  });

  it("a Knowledge Base ID Retrieve would refuse is a 400 naming it, before any call", async () => {
    const m = marker();
    const err = await failure(runFlow(await kbFlow({ knoledgeBaseID: `kb-${m}` }), makeCtx(`q ${m}`, { runtime: runtime() })));
    expect(err.status).toBe(400);
    expect(err.message).toContain(`Knowledge Base ID must be 10 letters or digits (or its ARN), got kb-${m}`);
    expect(await received(aws(), m)).toHaveLength(0);
  });
});

describe("awsSNS and awsDynamoDBKVStorage tools", () => {
  const agentWith = async (nodes: Array<{ id: string; name: string; inputs: Record<string, unknown> }>) => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-aws-tools" });
    return toolAgentFlow({ calculator: false, memory: false, credential: openai, nodes });
  };

  it("awsSNS publishes the model's text to the topic (Query API, signed for sns) and answers the MessageId", async () => {
    const cred = await credential("awsApi", KEY);
    const topicArn = "arn:aws:sns:eu-west-1:123456789012:alerts";
    const f = await agentWith([{ id: "sns_0", name: "awsSNS", inputs: { region: "eu-west-1", topicArn, credential: cred } }]);
    const m = marker();
    const result = await runFlow(f, makeCtx(`alert ${callOf("aws_sns_publish", { input: `disk full ${m}` })}`, { runtime: runtime() }));
    const [req] = (await received(aws(), m)).filter((r) => r.body.includes("Action=Publish"));
    expect(scope(req)).toEqual(["eu-west-1", "sns"]);
    expect(req.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
      Action: "Publish",
      Version: "2010-03-31",
      TopicArn: topicArn,
      Message: `disk full ${m}`,
    });
    expect(result.text).toMatch(/^tools said: Successfully published message to SNS topic\. MessageId: msg-[0-9a-f]{12}$/);
  });

  it("a topic SNS does not know is Flowise's failure text for the model; no topic is a 400", async () => {
    const cred = await credential("awsApi", KEY);
    const f = await agentWith([{ id: "sns_0", name: "awsSNS", inputs: { topicArn: "arn:aws:sns:us-east-1:1:missing", credential: cred } }]);
    const result = await runFlow(f, makeCtx(callOf("aws_sns_publish", { input: `x ${marker()}` }), { runtime: runtime() }));
    expect(result.text).toBe("tools said: Failed to publish message to SNS: AWS SNS answered 404: NotFound: Topic does not exist");
    const none = await agentWith([{ id: "sns_0", name: "awsSNS", inputs: { credential: cred } }]);
    expect((await failure(runFlow(none, makeCtx("x", { runtime: runtime() })))).status).toBe(400);
  });

  it("dynamodb_kv_store writes a version per call (pk, sk, value, timestamp); dynamodb_kv_retrieve reads the nth latest", async () => {
    const cred = await credential("awsApi", KEY);
    const table = `kv-${marker()}`;
    const tool = (operation: string) => [
      {
        id: "kv_0",
        name: "awsDynamoDBKVStorage",
        inputs: { region: "ap-south-1", tableName: table, keyPrefix: "app", operation, credential: cred },
      },
    ];
    const store = await agentWith(tool("store"));
    await runFlow(store, makeCtx(callOf("dynamodb_kv_store", { key: "colour", value: "red" }), { runtime: runtime() }));
    await new Promise((r) => setTimeout(r, 5));
    const second = await runFlow(store, makeCtx(callOf("dynamodb_kv_store", { key: "colour", value: "blue" }), { runtime: runtime() }));
    expect(second.text).toMatch(/^tools said: Successfully stored value with key "colour" at \d{4}-\d\d-\d\dT/);
    const puts = await received(aws(), table);
    const put = puts.find((r) => r.body.includes('"red"'))!;
    expect(scope(put)).toEqual(["ap-south-1", "dynamodb"]);
    expect(put.headers["x-amz-target"]).toBe("DynamoDB_20120810.PutItem");
    expect(put.headers["content-type"]).toBe("application/x-amz-json-1.0");
    const item = JSON.parse(put.body).Item;
    expect(item).toEqual({
      pk: { S: "app#colour" },
      sk: { S: expect.stringMatching(/^\d+$/) },
      value: { S: "red" },
      timestamp: { S: expect.any(String) },
    });

    const retrieve = await agentWith(tool("retrieve"));
    const latest = await runFlow(retrieve, makeCtx(callOf("dynamodb_kv_retrieve", { key: "colour" }), { runtime: runtime() }));
    expect(JSON.parse(latest.text.replace("tools said: ", ""))).toMatchObject({ value: "blue" });
    const older = await runFlow(
      retrieve,
      makeCtx(callOf("dynamodb_kv_retrieve", { key: "colour", nthLatest: "2" }), { runtime: runtime() }),
    );
    expect(JSON.parse(older.text.replace("tools said: ", ""))).toMatchObject({ value: "red" });
    const none = await runFlow(
      retrieve,
      makeCtx(callOf("dynamodb_kv_retrieve", { key: "colour", nthLatest: "3" }), { runtime: runtime() }),
    );
    expect(none.text).toBe('tools said: {"value":null,"timestamp":null}');
    const query = (await received(aws(), table)).filter((r) => r.headers["x-amz-target"] === "DynamoDB_20120810.Query").at(-1)!;
    expect(JSON.parse(query.body)).toEqual({
      TableName: table,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": { S: "app#colour" } },
      ScanIndexForward: false,
      Limit: 3,
    });
  });

  it("a missing table is the model's error text; a key prefix with # is a 400", async () => {
    const cred = await credential("awsApi", KEY);
    const f = await agentWith([{ id: "kv_0", name: "awsDynamoDBKVStorage", inputs: { tableName: "missing-table", credential: cred } }]);
    const result = await runFlow(f, makeCtx(callOf("dynamodb_kv_store", { key: "k", value: `v ${marker()}` }), { runtime: runtime() }));
    expect(result.text).toContain(
      "Failed to store value: AWS DynamoDB answered 400: ResourceNotFoundException: Requested resource not found",
    );
    const bad = await agentWith([
      { id: "kv_0", name: "awsDynamoDBKVStorage", inputs: { tableName: "t", keyPrefix: "a#b", credential: cred } },
    ]);
    expect((await failure(runFlow(bad, makeCtx("x", { runtime: runtime() })))).status).toBe(400);
  });

  it("awsSNS to a FIFO topic sends a message group and a fresh deduplication id, which SNS requires", async () => {
    const cred = await credential("awsApi", KEY);
    const topicArn = "arn:aws:sns:eu-west-1:123456789012:orders.fifo";
    const f = await agentWith([{ id: "sns_0", name: "awsSNS", inputs: { region: "eu-west-1", topicArn, credential: cred } }]);
    const m = marker();
    const result = await runFlow(f, makeCtx(callOf("aws_sns_publish", { input: `order ${m}` }), { runtime: runtime() }));
    expect(result.text).toMatch(/^tools said: Successfully published message to SNS topic\. MessageId: msg-/);
    const [req] = (await received(aws(), m)).filter((r) => r.body.includes("Action=Publish"));
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
      Action: "Publish",
      Version: "2010-03-31",
      TopicArn: topicArn,
      Message: `order ${m}`,
      MessageGroupId: "default",
      MessageDeduplicationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it("dynamodb_kv_store counts the key in UTF-8 bytes (DynamoDB's 2,048): a longer one is the model's error, not sent", async () => {
    const cred = await credential("awsApi", KEY);
    const table = `kv-${marker()}`;
    const f = await agentWith([{ id: "kv_0", name: "awsDynamoDBKVStorage", inputs: { tableName: table, credential: cred } }]);
    const key = "é".repeat(1100); // 1,100 characters, 2,200 bytes
    const result = await runFlow(f, makeCtx(callOf("dynamodb_kv_store", { key, value: "v" }), { runtime: runtime() }));
    expect(result.text).toContain("Key too long. Maximum length is 2048 bytes (UTF-8), got 2200");
    expect(await received(aws(), table)).toHaveLength(0);
  });
});

describe("DynamoDBChatMemory", () => {
  const memoryFlow = async (
    inputs: Record<string, unknown>,
    cred: Record<string, unknown> = { accessKey: KEY.awsKey, secretAccessKey: KEY.awsSecret },
  ) => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-aws-mem" });
    return flow([
      [
        "mem_0",
        "DynamoDBChatMemory",
        "Memory",
        { region: "us-east-2", credential: await credential("dynamodbMemoryApi", cred), ...inputs },
      ],
      standinModel("model_0", openai),
      ["chain_0", "conversationChain", "Chains", { model: ref("model_0"), memory: ref("mem_0") }],
    ]);
  };
  const lastChat = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions")).at(-1)!;

  it("appends each exchange to the session's item in Flowise's layout and reads it on the next turn", async () => {
    const table = `chat-${marker()}`;
    const f = await memoryFlow({ tableName: table, partitionKey: "id" });
    const sessionId = `s-${marker()}`;
    const first = await runFlow(f, makeCtx(`I am Ada ${sessionId}`, { sessionId, runtime: runtime() }));
    await runFlow(f, makeCtx(`who am I ${sessionId}-2`, { sessionId, runtime: runtime() }));
    expect((await lastChat(`${sessionId}-2`)).body.messages.filter((x) => x.role !== "system")).toEqual([
      { role: "user", content: `I am Ada ${sessionId}` },
      { role: "assistant", content: first.text },
      { role: "user", content: `who am I ${sessionId}-2` },
    ]);
    const calls = await received(aws(), table);
    expect(calls.map((c) => c.headers["x-amz-target"])).toEqual([
      "DynamoDB_20120810.GetItem",
      "DynamoDB_20120810.UpdateItem",
      "DynamoDB_20120810.GetItem",
      "DynamoDB_20120810.UpdateItem",
    ]);
    expect(scope(calls[0])).toEqual(["us-east-2", "dynamodb"]);
    expect(JSON.parse(calls[1].body)).toEqual({
      TableName: table,
      Key: { id: { S: sessionId } },
      ExpressionAttributeNames: { "#m": "messages" },
      ExpressionAttributeValues: {
        ":empty_list": { L: [] },
        ":m": {
          L: [{ M: { type: { S: "human" }, text: { S: `I am Ada ${sessionId}` } } }, { M: { type: { S: "ai" }, text: { S: first.text } } }],
        },
      },
      UpdateExpression: "SET #m = list_append(if_not_exists(#m, :empty_list), :m)",
    });
  });

  it("reads a session Flowise wrote (sessionId input); a wrong secret is a 502 without it; no table is a 400", async () => {
    const table = `flowise-${marker()}`;
    await fetch(`${aws()}/seed/dynamodb`, {
      method: "POST",
      body: JSON.stringify({
        table,
        key: { sessionKey: { S: "flowise-session" } },
        item: {
          messages: {
            L: [{ M: { type: { S: "human" }, text: { S: "old question" } } }, { M: { type: { S: "ai" }, text: { S: "old answer" } } }],
          },
        },
      }),
    });
    const m = marker();
    await runFlow(
      await memoryFlow({ tableName: table, partitionKey: "sessionKey", sessionId: "flowise-session" }),
      makeCtx(`next ${m}`, { runtime: runtime() }),
    );
    expect((await lastChat(m)).body.messages.filter((x) => x.role !== "system")).toEqual([
      { role: "user", content: "old question" },
      { role: "assistant", content: "old answer" },
      { role: "user", content: `next ${m}` },
    ]);
    const wrong = await failure(
      runFlow(
        await memoryFlow({ tableName: table, partitionKey: "sessionKey" }, { accessKey: KEY.awsKey, secretAccessKey: WRONG.awsSecret }),
        makeCtx("x", { runtime: runtime() }),
      ),
    );
    expect(wrong.status).toBe(502);
    expect(wrong.message).not.toContain(WRONG.awsSecret);
    expect((await failure(runFlow(await memoryFlow({ partitionKey: "id" }), makeCtx("x", { runtime: runtime() })))).status).toBe(400);
  });

  it("past DynamoDB's 400 KB item limit, the list is rewritten without its oldest exchange instead of failing every turn", async () => {
    const table = `long-${marker()}`;
    const sessionId = `s-${marker()}`;
    const msg = (type: string, ch: string) => ({ M: { type: { S: type }, text: { S: ch.repeat(102_300) } } });
    // ~409,300 bytes: under the limit, but no room for one more exchange
    const seeded = [msg("human", "a"), msg("ai", "b"), msg("human", "c"), msg("ai", "d")];
    await fetch(`${aws()}/seed/dynamodb`, {
      method: "POST",
      body: JSON.stringify({ table, key: { id: { S: sessionId } }, item: { messages: { L: seeded } } }),
    });
    const f = await memoryFlow({ tableName: table, partitionKey: "id" });
    const question = `${"q".repeat(400)} ${marker()}`;
    const result = await runFlow(f, makeCtx(question, { sessionId, runtime: runtime() }));
    const update = (await received(aws(), table)).find((c) => c.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem")!;
    const sent = JSON.parse(update.body);
    expect(sent.UpdateExpression).toBe("SET #m = :m");
    expect(sent.ExpressionAttributeValues[":m"].L).toEqual([
      seeded[2],
      seeded[3],
      { M: { type: { S: "human" }, text: { S: question } } },
      { M: { type: { S: "ai" }, text: { S: result.text } } },
    ]);
    // the next turn reads the kept history, and appends again with list_append
    const m = marker();
    await runFlow(f, makeCtx(`again ${m}`, { sessionId, runtime: runtime() }));
    const turns = (await lastChat(m)).body.messages.filter((x) => x.role !== "system");
    expect(turns.map((t) => String(t.content).slice(0, 3))).toEqual(["ccc", "ddd", "qqq", "ech", "aga"]);
    const last = (await received(aws(), table)).filter((c) => c.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem").at(-1)!;
    expect(JSON.parse(last.body).UpdateExpression).toBe("SET #m = list_append(if_not_exists(#m, :empty_list), :m)");
  });

  it("a trim never loses an exchange another run appended after our read: the write is conditional, read again", async () => {
    const table = `race-${marker()}`;
    const at = { table, key: { id: { S: `s-${marker()}` } } };
    const msg = (type: string, ch: string) => ({ M: { type: { S: type }, text: { S: ch.repeat(102_300) } } });
    await fetch(`${aws()}/seed/dynamodb`, {
      method: "POST",
      body: JSON.stringify({
        table,
        key: at.key,
        item: { messages: { L: [msg("human", "a"), msg("ai", "b"), msg("human", "c"), msg("ai", "d")] } },
      }),
    });
    const client = awsClient(
      AWS_SERVICES.dynamodb,
      "us-east-1",
      { accessKeyId: KEY.awsKey, secretAccessKey: KEY.awsSecret },
      {
        ...(env as unknown as Env),
        AWS_DYNAMODB_BASE_URL: aws(),
      },
    );
    const read = await loadChatItem(client, at); // this run's read, before the other run writes
    await appendChatMessages(
      client,
      at,
      [
        { type: "human", text: "other run" },
        { type: "ai", text: "its answer" },
      ],
      await loadChatItem(client, at),
    );
    await appendChatMessages(
      client,
      at,
      [
        { type: "human", text: "this run" },
        { type: "ai", text: "mine" },
      ],
      read,
    );
    const kept = chatMessagesOf(await loadChatItem(client, at)).map((m) => m.text.slice(0, 10));
    expect(kept.slice(-4)).toEqual(["other run", "its answer", "this run", "mine"]);
    const writes = (await received(aws(), table)).filter((c) => c.headers["x-amz-target"] === "DynamoDB_20120810.UpdateItem");
    // the other run's trim; ours refused (as long a list as we read, but another); read again, ours fits: an append
    expect(writes.map((c) => JSON.parse(c.body).ConditionExpression ?? JSON.parse(c.body).UpdateExpression)).toEqual([
      "size(#m) = :n AND #m[3].#t = :last",
      "size(#m) = :n AND #m[3].#t = :last",
      "SET #m = list_append(if_not_exists(#m, :empty_list), :m)",
    ]);
  });

  it("an exchange that alone is over 400 KB is a clear 413, not DynamoDB's ValidationException", async () => {
    const table = `huge-${marker()}`;
    const f = await memoryFlow({ tableName: table, partitionKey: "id" });
    const err = await failure(runFlow(f, makeCtx(`${"x".repeat(205_000)} ${marker()}`, { runtime: runtime() })));
    expect(err.status).toBe(413);
    expect(err.message).toContain("this exchange alone is over DynamoDB's 400 KB item limit; it was not saved");
    expect((await received(aws(), table)).map((c) => c.headers["x-amz-target"])).toEqual(["DynamoDB_20120810.GetItem"]);
  });
});

describe("kendra", () => {
  const kendraFlow = async (inputs: Record<string, unknown>, cred = KEY) => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-aws-kendra" });
    return flow([
      [
        "text_0",
        "plainText",
        "Document Loaders",
        { text: inputs.text ?? "The ferry to the island leaves at nine every morning." },
        { output: "document" },
      ],
      [
        "text_1",
        "plainText",
        "Document Loaders",
        { text: "The museum closes on Mondays.", metadata: '{"source": "museum.txt"}' },
        { output: "document" },
      ],
      [
        "kendra_0",
        "kendra",
        "Vector Stores",
        { document: [ref("text_0"), ref("text_1")], region: "eu-west-2", credential: await credential("awsApi", cred), ...inputs },
        { output: "retriever" },
      ],
      standinModel("model_0", openai),
      [
        "chain_0",
        "retrievalQAChain",
        "Chains",
        { model: ref("model_0"), vectorStoreRetriever: ref("kendra_0"), returnSourceDocuments: true },
      ],
    ]);
  };

  it("upserts the loaders' documents as plain text (BatchPutDocument) and retrieves them for the question (Retrieve)", async () => {
    const index = kendraIndex("idx-");
    const f = await kendraFlow({
      indexId: index,
      topK: "3",
      attributeFilter: '{"EqualsTo":{"Key":"_category","Value":{"StringValue":"notes"}}}',
    });
    const { graph, plan } = planFlowUpsert(f);
    const counts = await runUpsert(graph, plan, makeCtx("", { runtime: runtime() }));
    expect(counts).toMatchObject({ numAdded: 2 });
    const [put] = (await received(aws(), index)).filter((r) => r.headers["x-amz-target"] === "AWSKendraFrontendService.BatchPutDocument");
    expect(scope(put)).toEqual(["eu-west-2", "kendra"]);
    expect(put.headers["content-type"]).toBe("application/x-amz-json-1.1");
    const docs = JSON.parse(put.body).Documents;
    expect(docs.map((d: { Title: string; ContentType: string }) => [d.Title, d.ContentType])).toEqual([
      ["Document 1", "PLAIN_TEXT"],
      ["museum.txt", "PLAIN_TEXT"],
    ]);
    expect(atob(docs[1].Blob)).toBe("The museum closes on Mondays.");

    const m = marker();
    const result = await runFlow(f, makeCtx(`when does the ferry leave ${m}`, { runtime: runtime() }));
    expect(result.sourceDocuments).toEqual([
      {
        pageContent: "Document Title: Document 1\nDocument Excerpt: \nThe ferry to the island leaves at nine every morning. \n",
        metadata: {
          source: expect.stringMatching(/^https:\/\/kendra\.example\/doc_\d+_0$/),
          title: "Document 1",
          excerpt: "The ferry to the island leaves at nine every morning. ",
          document_attributes: { _category: "notes" },
        },
      },
    ]);
    const [retrieve] = (await received(aws(), m)).filter((r) => r.headers["x-amz-target"] === "AWSKendraFrontendService.Retrieve");
    expect(JSON.parse(retrieve.body)).toEqual({
      IndexId: index,
      QueryText: `when does the ferry leave ${m}`,
      PageSize: 3,
      AttributeFilter: { EqualsTo: { Key: "_category", Value: { StringValue: "notes" } } },
    });
  });

  it("falls back to Query when Retrieve finds nothing; a missing index is a 502; no index ID a 400", async () => {
    const m = marker();
    const result = await runFlow(
      await kendraFlow({ indexId: kendraIndex("query-only-") }),
      makeCtx(`opening hours ${m}`, { runtime: runtime() }),
    );
    expect(result.sourceDocuments?.[0]).toMatchObject({
      pageContent: `Document Title: FAQ\nDocument Excerpt: \nAnswer for opening hours ${m}\n`,
      metadata: { source: "https://kendra.example/faq" },
    });
    expect((await received(aws(), m)).map((r) => r.headers["x-amz-target"])).toEqual([
      "AWSKendraFrontendService.Retrieve",
      "AWSKendraFrontendService.Query",
    ]);
    const missingIndex = kendraIndex("missing-");
    const missing = await failure(runFlow(await kendraFlow({ indexId: missingIndex }), makeCtx(`q ${marker()}`, { runtime: runtime() })));
    expect(missing.status).toBe(502);
    expect(missing.message).toContain(`ResourceNotFoundException: Index ${missingIndex} not found`);
    expect((await failure(runFlow(await kendraFlow({}), makeCtx("q", { runtime: runtime() })))).status).toBe(400);
  });

  it("an Index ID Kendra would refuse (not its 36 characters) is a 400 naming it, before any call", async () => {
    const m = marker();
    const err = await failure(runFlow(await kendraFlow({ indexId: `index-${m}` }), makeCtx(`q ${m}`, { runtime: runtime() })));
    expect(err.status).toBe(400);
    expect(err.message).toContain(`Kendra Index ID must be the index's 36-character ID, got index-${m}`);
    expect(await received(aws(), m)).toHaveLength(0);
  });
});

describe("through the API: s3Directory → kendra, POST /vector/upsert then POST /prediction", () => {
  it("upserts the bucket's objects into the Kendra index and answers from what Retrieve finds", async () => {
    const cred = await credential("awsApi", KEY);
    const openai = await credential("openAIApi", { openAIApiKey: "sk-aws-api" });
    const index = kendraIndex("api-");
    const flowData = flow([
      ["s3_0", "s3Directory", "Document Loaders", { bucketName: "edgeflow-docs", prefix: "notes/", region: "eu-west-1", credential: cred }],
      [
        "kendra_0",
        "kendra",
        "Vector Stores",
        { document: [ref("s3_0")], indexId: index, region: "eu-west-1", credential: cred },
        { output: "retriever" },
      ],
      standinModel("model_0", openai),
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("kendra_0") }],
    ]);
    const restore = setVars({ AWS_S3_BASE_URL: aws(), AWS_KENDRA_BASE_URL: aws() });
    try {
      const id = (await json("POST", "/chatflows", { body: { name: "s3 to kendra", flowData } })).id;
      const upserted = await json("POST", `/vector/upsert/${id}`, { body: {} });
      // alpha.txt, beta.md, a document per CSV row (2), one per JSON string (2)
      expect(upserted.numAdded).toBe(6);
      const puts = (await received(aws(), index)).filter((r) => r.headers["x-amz-target"] === "AWSKendraFrontendService.BatchPutDocument");
      const titles = puts.flatMap((p) => JSON.parse(p.body).Documents.map((d: { Title: string }) => d.Title));
      expect(titles).toContain("s3://edgeflow-docs/notes/alpha.txt");
      const m = marker();
      const answer = await json("POST", `/prediction/${id}`, { body: { question: `when does the ferry leave ${m}` } });
      expect(answer.text).toContain("echo:");
      const chat = (await requestsWith(m)).find((r) => r.path?.endsWith("/chat/completions"))!;
      expect(JSON.stringify(chat.body.messages)).toContain("Alpha notes: the ferry leaves at nine.");
    } finally {
      restore();
    }
  });
});
