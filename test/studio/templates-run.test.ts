// Issue 31 item 3: every template runs here, as served — saved as the canvas saves it and started
// the way it is meant to be (chat, human review, a signed webhook, a cron tick, an MCP client),
// against the stand-ins: the Workers AI binding's (test/providers/standin-worker.mjs: "ai: <the
// last user message>", recording what it was sent) and, for the tool-calling agent, the
// OpenAI-compatible one its chat model is pointed at (basepath), as a user points it at theirs.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { messagesOf, openAICredential, standinUrl } from "../agentflow-api/flows";
import { call, expectError, json, sleep } from "../helpers";
import { enableMcp, mcpClient, textOf } from "../mcp/helpers";
import { newStore, upsert } from "../routes/document-store-helpers";
import { logsOf, statusOf, tick } from "../schedules/helpers";
import { setVars } from "../security/helpers";
import { hmacHex, hook, newSecret } from "../webhooks/helpers";
import { NAMES, nodeOf, saveTemplate, template } from "./templates";

vi.setConfig({ testTimeout: 30_000 });

type Chat = { model: string; messages: { role: string; content: string }[]; stream: boolean };
const ai = env.AI as unknown as { chats(): Promise<Chat[]> };
/** Workers AI chat requests made while `work` ran. */
async function chatsDuring(work: () => Promise<void>): Promise<Chat[]> {
  const before = (await ai.chats()).length;
  await work();
  return (await ai.chats()).slice(before);
}
const said = (chat: Chat) => chat.messages.map((m) => `${m.role}: ${m.content}`).join("\n");

const made: string[] = [];
afterEach(async () => {
  while (made.length) await call("DELETE", `/chatflows/${made.pop()}`);
});

async function save(name: string, change?: (flow: any) => void, extra?: Record<string, unknown>): Promise<string> {
  const { template: t, flow } = await template(name);
  change?.(flow);
  const saved = await saveTemplate(t, flow, extra);
  made.push(saved.id);
  expect(saved.warning).toBeUndefined();
  return saved.id;
}

const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

describe("chatflows", () => {
  it("Voice Assistant: saves with its Workers AI speech settings and chats as text, remembering the conversation", async () => {
    const { template: t } = await template(NAMES.voice);
    expect(JSON.parse(t.speechToText!)).toMatchObject({ cloudflareWorkersAI: { status: true } });
    const id = await save(NAMES.voice, undefined, { speechToText: t.speechToText, textToSpeech: t.textToSpeech });
    expect((await json("GET", `/chatflows/${id}`)).speechToText).toBe(t.speechToText);
    const m = marker();
    let first: any;
    let second: any;
    const chats = await chatsDuring(async () => {
      first = await json("POST", `/prediction/${id}`, { body: { question: `My name is ${m}.`, chatId: m } });
      second = await json("POST", `/prediction/${id}`, { body: { question: "What is my name?", chatId: m } });
    });
    expect(first.text).toBe(`ai: My name is ${m}.`);
    expect(second.text).toBe("ai: What is my name?");
    expect(chats.map((c) => c.model)).toEqual(["@cf/meta/llama-3.1-8b-instruct-fast", "@cf/meta/llama-3.1-8b-instruct-fast"]);
    expect(said(chats[0])).toContain("Your answers are read aloud");
    expect(said(chats[1])).toContain(`user: My name is ${m}.`); // the memory came along
    expect(said(chats[1])).toContain(`assistant: ai: My name is ${m}.`);
  });

  it("Document Store QnA: answers from the chosen store (embedded by Workers AI into Vectorize), with its sources", async () => {
    const m = marker();
    const store = await newStore(`handbook-${m}`);
    await upsert(store.id, {
      loader: { name: "plainText", config: { text: `The ${m} office opens at nine.\n\nParking is behind the ${m} building.` } },
      splitter: { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } },
    });
    const stored = await json("GET", `/document-store/store/${store.id}`);
    expect(JSON.parse(stored.embeddingConfig).name).toBe("cloudflareWorkersAIEmbeddings");
    const id = await save(NAMES.docStore, (flow) => {
      nodeOf(flow, "documentStoreVS_0").data.inputs.selectedStore = store.id;
    });
    expect(await json("GET", `/validation/${id}`)).toEqual([]);
    let answer: any;
    const chats = await chatsDuring(async () => {
      answer = await json("POST", `/prediction/${id}`, { body: { question: `When does the ${m} office open?` } });
    });
    expect(answer.text).toBe(`ai: When does the ${m} office open?`);
    expect(chats).toHaveLength(1);
    expect(said(chats[0])).toContain(`The ${m} office opens at nine.`); // the retrieved chunk reached the model
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toContain(`The ${m} office opens at nine.`);
    await call("DELETE", `/document-store/store/${store.id}`);
  });
});

describe("agentflows", () => {
  it("Agent with Tools: calls the calculator through a tool-calling model and answers with its result", async () => {
    const credential = await openAICredential();
    const id = await save(NAMES.agent, (flow) => {
      const inputs = nodeOf(flow, "agentAgentflow_0").data.inputs;
      Object.assign(inputs.agentModelConfig, { basepath: `${standinUrl()}/v1`, FLOWISE_CREDENTIAL_ID: credential });
    });
    expect(await json("GET", `/validation/${id}`)).toEqual([]);
    const res = await json("POST", `/prediction/${id}`, { body: { question: '[call calculator {"input":"6*7"}]' } });
    expect(res.text).toBe("tools said: 42");
    expect(res.usedTools).toEqual([expect.objectContaining({ tool: "calculator", toolInput: { input: "6*7" }, toolOutput: "42" })]);
  });

  it("Human in the Loop: drafts, pauses for review, redrafts on reject, answers the draft on proceed", async () => {
    const id = await save(NAMES.hitl);
    const chatId = marker();
    let paused: any;
    const drafts = await chatsDuring(async () => {
      paused = await json("POST", `/prediction/${id}`, { body: { question: "Where is my parcel?", chatId } });
    });
    expect(paused.text).toContain("Send this reply to the customer?");
    expect(paused.action.data).toMatchObject({ nodeId: "humanInputAgentflow_0", nodeLabel: "Review" });
    expect(drafts).toHaveLength(1);
    expect(said(drafts[0])).toContain("You are a customer support agent");

    let again: any;
    const redraft = await chatsDuring(async () => {
      again = await json("POST", `/prediction/${id}`, {
        body: { question: "Shorter, please", chatId, humanInput: { type: "reject", feedback: "Shorter, please" } },
      });
    });
    expect(redraft).toHaveLength(1); // looped back to the draft, which ran again, with the reviewer's feedback
    expect(said(redraft[0])).toContain("Shorter, please");
    expect(again.action.data).toMatchObject({ nodeId: "humanInputAgentflow_0" });

    const done = await json("POST", `/prediction/${id}`, { body: { question: "Proceed", chatId, humanInput: { type: "proceed" } } });
    expect(done.action).toBeUndefined();
    expect(done.text).toMatch(/^ai: /);
    expect((await json("GET", `/executions/${done.executionId}`)).state).toBe("FINISHED");
  });

  it("Webhook: a signed GitHub delivery runs the triage on the issue; an unsigned one is refused", async () => {
    const id = await save(NAMES.webhook);
    const secret = await newSecret(id);
    const m = marker();
    const body = JSON.stringify({ action: "opened", issue: { number: 7, title: `Crash ${m}`, body: "It crashes on start." } });
    const signature = `sha256=${await hmacHex(body, secret)}`;
    let res!: Response;
    const chats = await chatsDuring(async () => {
      res = await hook(id, { raw: body, headers: { "content-type": "application/json", "x-hub-signature-256": signature } });
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as any;
    expect(answer.text).toBe(`ai: Issue #7 (opened): Crash ${m}\n\nIt crashes on start.`);
    expect(said(chats[0])).toContain("You triage GitHub issues");
    expect((await messagesOf(id)).map((x: any) => x.chatType)).toEqual(["WEBHOOK", "WEBHOOK"]);
    await expectError(await hook(id, { raw: body, headers: { "content-type": "application/json" } }), 401);
  });

  it("Scheduled Digest: its schedule is on when saved; a Cron tick reads the source and writes the digest", async () => {
    const m = marker();
    // The source is the loopback stand-in here: the outbound policy lets it through only when listed.
    const restore = setVars({ OUTBOUND_ALLOW: new URL(standinUrl()).host });
    onTestFinished(restore);
    const id = await save(NAMES.digest, (flow) => {
      nodeOf(flow, "httpAgentflow_0").data.inputs.url = `${standinUrl()}/echo/front-page?story=${m}`;
    });
    const { enabled, record } = await statusOf(id);
    expect(enabled).toBe(true);
    expect(record).toMatchObject({ cronExpression: "0 8 * * *", timezone: "UTC", defaultInput: "Write this morning's digest." });
    const next = Date.parse(record.nextRunAt);
    expect(new Date(next).getUTCHours()).toBe(8);
    const chats = await chatsDuring(async () => {
      expect(await tick(next)).toMatchObject({ claimed: 1, started: 1 });
      for (let i = 0; i < 400; i++) {
        const { data } = await logsOf(id);
        if (data.length && data[0].status !== "RUNNING") break;
        await sleep(50);
      }
    });
    const [log] = (await logsOf(id)).data;
    expect([log.status, log.error]).toEqual(["SUCCEEDED", null]);
    const execution = await json("GET", `/executions/${log.executionId}`);
    expect(execution.state).toBe("FINISHED");
    expect(execution.result.text).toMatch(/^ai: Write this morning's digest\./);
    const digest = chats.find((c) => said(c).includes("morning digest"));
    expect(digest && said(digest)).toContain(m); // the source's answer reached the model
  });

  it("Translator over MCP: an MCP client sees the form as the tool's arguments and gets the translation", async () => {
    const id = await save(NAMES.mcp);
    const { token } = await enableMcp(id, { toolName: "translate", description: "Translates text" });
    const client = await mcpClient(`/mcp/${id}`, token);
    const [tool] = (await client.listTools()).tools;
    expect(tool.name).toBe("translate");
    expect(tool.inputSchema).toMatchObject({ required: ["form"], properties: { form: { properties: { text: {}, language: {} } } } });
    const m = marker();
    let result: any;
    const chats = await chatsDuring(async () => {
      result = await client.callTool({ name: "translate", arguments: { form: { text: `Good morning ${m}`, language: "French" } } });
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(`ai: Translate into French:\n\nGood morning ${m}`);
    expect(said(chats[0])).toContain("You are a translator");
    await client.close();
  });
});
