// Issue 30, item 4: the studio's test chat is one more trigger of the run door. POST
// /internal-prediction/{id} answers exactly what POST /prediction answers (JSON, and the event stream
// byte for byte but for the run's own ids), stores its messages as chatType INTERNAL, resumes an
// agentflow's human input as the chat and the Executions page send it, and admits only someone —
// the signed-in person or a bearer with the prediction's rights — from the studio's own origin.
import { beforeAll, describe, expect, it } from "vitest";
import { approvalFlow, messagesOf, saveAgentflowOf } from "../agentflow-api/flows";
import { call, expectError, json, uuid } from "../helpers";
import { openAICredential, saveChain, standinRequests } from "../security/helpers";
import { signedIn, studio } from "./helpers";

let cookie = "";
let credential = "";
beforeAll(async () => {
  cookie = (await signedIn()).cookie;
  credential = await openAICredential("sk-test");
});

const marker = () => `tc ${uuid().slice(0, 8)}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** The run's own ids (message, chat, execution) made alike: what must be the same is everything else. */
const sameBut = (text: string, chatId: string) => text.replaceAll(chatId, "<chat>").replace(UUID, "<id>");

const viaPrediction = (id: string, body: unknown) => call("POST", `/prediction/${id}`, { body });
const viaStudio = (id: string, body: unknown, init: { origin?: string | null; token?: string | null; cookie?: string } = {}) =>
  studio("POST", `/internal-prediction/${id}`, { cookie, ...init, body });

describe("the test chat answers as POST /prediction does", () => {
  it("JSON: the same answer; the messages stored as INTERNAL (the prediction's as EXTERNAL)", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential });
    const question = marker();
    const external = await viaPrediction(id, { question, chatId: "ext-chat" });
    const internal = await viaStudio(id, { question, chatId: "int-chat" });
    expect(internal.status).toBe(200);
    expect(internal.headers.get("content-type")).toBe(external.headers.get("content-type"));
    const [a, b] = [await external.text(), await internal.text()];
    expect(JSON.parse(b).text).toBe(`echo: ${question}`);
    expect(sameBut(b, "int-chat")).toBe(sameBut(a, "ext-chat"));
    expect(await standinRequests(question)).toHaveLength(2);

    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.chatId, m.role, m.chatType])).toEqual([
      ["ext-chat", "userMessage", "EXTERNAL"],
      ["ext-chat", "apiMessage", "EXTERNAL"],
      ["int-chat", "userMessage", "INTERNAL"],
      ["int-chat", "apiMessage", "INTERNAL"],
    ]);
    // The test chat's history: its own messages only.
    const history = await studio("GET", `/internal-chatmessage/${id}?feedback=true`, { cookie });
    expect(history.status).toBe(200);
    expect(((await history.json()) as any[]).map((m) => [m.chatId, m.content])).toEqual([
      ["int-chat", question],
      ["int-chat", `echo: ${question}`],
    ]);
  });

  it("the event stream: the same frames, byte for byte but for the run's ids", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential });
    const question = marker();
    const external = await viaPrediction(id, { question, chatId: "ext-stream", streaming: true });
    const internal = await viaStudio(id, { question, chatId: "int-stream", streaming: true });
    expect(internal.status).toBe(200);
    expect(internal.headers.get("content-type")).toBe("text/event-stream");
    const [a, b] = [await external.text(), await internal.text()];
    expect(b).toContain('"event":"token"');
    expect(b).toContain(`"chatId":"int-stream"`);
    expect(sameBut(b, "int-stream")).toBe(sameBut(a, "ext-stream"));
    expect((await messagesOf(id)).filter((m) => m.chatId === "int-stream").map((m) => m.chatType)).toEqual(["INTERNAL", "INTERNAL"]);
  });
});

describe("an agentflow's human input in the test chat", () => {
  it("pauses with its buttons, is resumed by the chat's proceed (found by session), and shows on the Executions page", async () => {
    const flow = approvalFlow("Ship it?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const chatId = `hi-${uuid().slice(0, 8)}`;
    const paused = await viaStudio(id, { question: "draft", chatId, streaming: true });
    const frames = await paused.text();
    expect(frames).toContain('"event":"action"');
    expect(frames).toContain("Ship it?");

    // As the chat's Proceed button sends it (usePrompt: humanInput with the node, no executionId).
    const resumed = await viaStudio(id, {
      question: "Proceed",
      chatId,
      streaming: true,
      humanInput: { type: "proceed", startNodeId: "humanInputAgentflow_0", feedback: "" },
    });
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toContain("approved");

    const executions = await studio("GET", `/executions?agentflowId=${id}`, { cookie });
    const listed = (await executions.json()) as { data: any[] };
    expect(listed.data.map((e) => [e.state, e.sessionId])).toEqual([["FINISHED", chatId]]);
    expect((await messagesOf(id)).map((m) => [m.role, m.content, m.chatType])).toEqual([
      ["userMessage", "draft", "INTERNAL"],
      ["apiMessage", expect.stringContaining("Ship it?"), "INTERNAL"],
      ["userMessage", "Proceed", "INTERNAL"],
      ["apiMessage", "approved", "INTERNAL"],
    ]);
  });

  it("the Executions page's Reject (JSON, chatId = the execution's session) resumes it too", async () => {
    const flow = approvalFlow("Ship it?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const first = await (await viaStudio(id, { question: "draft", chatId: `ex-${uuid()}` })).json<any>();
    expect(first.action).toBeTruthy();
    const rejected = await viaStudio(id, {
      question: "Reject",
      chatId: first.chatId,
      humanInput: { type: "reject", startNodeId: "humanInputAgentflow_0", feedback: "" },
    });
    expect(rejected.status).toBe(200);
    expect(await rejected.json()).toMatchObject({ text: "rejected", executionId: first.executionId });
  });
});

describe("who may use the test chat", () => {
  it("nobody anonymous, even on a public flow (401), and nothing runs", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential, extra: { isPublic: true } });
    const question = marker();
    await expectError(await viaStudio(id, { question }, { cookie: "" }), 401);
    // The cookie without the studio's header is not read.
    await expectError(await call("POST", `/internal-prediction/${id}`, { token: null, body: { question }, headers: { cookie } }), 401);
    await expectError(await call("GET", `/internal-chatmessage/${id}`, { token: null }), 401);
    expect(await standinRequests(question)).toHaveLength(0);
    expect(await messagesOf(id)).toEqual([]);
  });

  it("another origin is refused (403), with a session or a bearer, and nothing runs", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential });
    const question = marker();
    await expectError(await viaStudio(id, { question }, { origin: "https://evil.example" }), 403);
    await expectError(await viaStudio(id, { question }, { cookie: "", token: "test-admin-key", origin: "https://evil.example" }), 403);
    await expectError(await studio("GET", `/internal-chatmessage/${id}`, { cookie, origin: "https://evil.example" }), 403);
    expect(await standinRequests(question)).toHaveLength(0);
    expect(await messagesOf(id)).toEqual([]);
  });

  it("a signed-in person runs any flow, one bound to an API key too; /prediction reads the session too (not from elsewhere)", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: `tc-${uuid()}` } });
    const id = await saveChain({ model: "chatOpenAI", credential, extra: { apikeyid: key.id } });
    const question = marker();
    expect((await viaStudio(id, { question })).status).toBe(200);
    // The chat Flowise's UI embeds in the custom assistant's page calls /prediction with the cookie
    // (sweep-fixes.test.ts): the session counts there as on every route, EXTERNAL as any /prediction.
    expect((await studio("POST", `/prediction/${id}`, { cookie, body: { question } })).status).toBe(200);
    await expectError(await studio("POST", `/prediction/${id}`, { cookie, body: { question }, origin: "https://elsewhere.example" }), 403);
    await expectError(await studio("POST", `/prediction/${id}`, { cookie, body: { question }, internal: false }), 401);
  });

  it("a bearer needs the prediction's rights: the bound key runs it, another key is 401, a key for other flows 403", async () => {
    const bound = await json("POST", "/apikey", { body: { keyName: `tc-${uuid()}` } });
    const other = await json("POST", "/apikey", { body: { keyName: `tc-${uuid()}` } });
    const id = await saveChain({ model: "chatOpenAI", credential, extra: { apikeyid: bound.id } });
    const question = marker();
    const ran = await viaStudio(id, { question, chatId: "by-key" }, { cookie: "", token: bound.apiKey, origin: null });
    expect(ran.status).toBe(200);
    await expectError(await viaStudio(id, { question }, { cookie: "", token: other.apiKey, origin: null }), 401);
    const open = await saveChain({ model: "chatOpenAI", credential });
    const scoped = await json("POST", "/apikey", { body: { keyName: `tc-${uuid()}`, chatflows: [id] } });
    await expectError(await viaStudio(open, { question }, { cookie: "", token: scoped.apiKey, origin: null }), 403);
    expect((await messagesOf(id)).map((m) => [m.chatId, m.chatType])).toEqual([
      ["by-key", "INTERNAL"],
      ["by-key", "INTERNAL"],
    ]);
  });

  it("an unknown flow is 404; async is not offered (400)", async () => {
    await expectError(await viaStudio(uuid(), { question: "x" }), 404);
    const id = await saveChain({ model: "chatOpenAI", credential });
    await expectError(await viaStudio(id, { question: "x", async: true }), 400);
  });
});
