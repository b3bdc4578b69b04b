// Follow-up prompts (Configuration → Follow-up Prompts): after the answer, the selected provider's
// model (here chatOpenAI through an openAIApi credential whose basePath is the stand-in) is asked for
// {questions} by a forced function call; the questions are stored on the API message, answered in
// the JSON (Flowise's double-encoded text) and in the stream's metadata frame (the stored text).
// Off: no call, nothing. A failing provider: the answer stands, without them.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Frame, afEdge, llm, messagesOf, openAICredential, readStream, saveAgentflowOf, start } from "../agentflow-api/flows";
import { credential, marker, requestsWith, standinUrl } from "../engine/helpers";
import { setVars } from "../security/helpers";
import { call, json, uuid } from "../helpers";
import { standinFlow } from "../latency/helpers";
import { signedIn, studio } from "../studio/helpers";
import { DEFAULT_FOLLOW_UP_PROMPT } from "../../src/services/runs/follow-up-prompts";

const QUESTIONS = ["What is A?", "How does B work?", "Why C?"];
const FOLLOW_UP_KEY = "sk-follow-up-standin";

/** An openAIApi credential at the stand-in, as the dialog's Connect Credential stores its id. */
const followUpCredential = async () =>
  (
    await json("POST", "/credentials", {
      body: {
        name: "follow-ups",
        credentialName: "openAIApi",
        plainDataObj: { openAIApiKey: FOLLOW_UP_KEY, basePath: `${standinUrl()}/v1` },
      },
    })
  ).id as string;

/** What the studio's dialog saves: the column, and chatbotConfig.followUpPrompts.status for the widget. */
async function withFollowUps(
  flowId: string,
  settings: Record<string, unknown>,
  status = true,
  provider = "chatOpenAI",
  credentialId: string | undefined = undefined,
) {
  credentialId ??= await followUpCredential();
  await json("PUT", `/chatflows/${flowId}`, {
    body: {
      followUpPrompts: JSON.stringify({
        status,
        selectedProvider: provider,
        [provider]: { credentialId, modelName: "gpt-follow-up", temperature: 0.9, status, ...settings },
      }),
      chatbotConfig: JSON.stringify({ followUpPrompts: { status } }),
    },
  });
}

/** The prompt's `[so {json}]` makes the stand-in answer the forced call with exactly those arguments. */
const scripted = (questions = QUESTIONS) => `[so ${JSON.stringify({ questions })}] Suggest questions after: {history}`;

/** The stand-in's record of the follow-up calls (a forced function call) whose prompt holds marker `m`. */
const followUpRequests = async (m: string): Promise<any[]> =>
  (await requestsWith(m)).filter((r: any) => r.body.tool_choice?.type === "function");
const lastAnswer = async (flowId: string) => (await messagesOf(flowId)).filter((x) => x.role === "apiMessage").at(-1);

describe("follow-up prompts of a chatflow", () => {
  it("JSON: the questions in the answer (Flowise's encoding), on the stored message; the model got the exchange", async () => {
    const flowId = await standinFlow();
    await withFollowUps(flowId, { prompt: scripted() });
    const m = marker();
    const answer = await json("POST", `/prediction/${flowId}`, { body: { question: `${m} tell me about letters` } });
    expect(answer.text).toContain(`${m} tell me about letters`); // the llm chain's prompt, echoed
    expect(typeof answer.followUpPrompts).toBe("string");
    expect(JSON.parse(JSON.parse(answer.followUpPrompts))).toEqual(QUESTIONS);

    const stored = await json("GET", `/chatmessage/${flowId}?chatId=${answer.chatId}`);
    const apiMessage = stored.find((x: any) => x.role === "apiMessage");
    expect(apiMessage.id).toBe(answer.chatMessageId);
    expect(apiMessage.followUpPrompts).toEqual(QUESTIONS);
    expect(stored.find((x: any) => x.role === "userMessage").followUpPrompts).toBeNull();

    const [asked] = await followUpRequests(m);
    expect(asked.body.model).toBe("gpt-follow-up");
    expect(asked.body.temperature).toBe(0.9);
    expect(asked.headers.authorization).toBe(`Bearer ${FOLLOW_UP_KEY}`);
    expect(asked.body.tool_choice.function.name).toBe(asked.body.tools[0].function.name);
    expect(asked.body.tools[0].function.parameters.properties.questions).toMatchObject({ type: "array", items: { type: "string" } });
    const prompt = asked.body.messages.at(-1).content;
    expect(prompt).toBe(
      `[so ${JSON.stringify({ questions: QUESTIONS })}] Suggest questions after: Human: ${m} tell me about letters\nAI: ${answer.text}`,
    );
  });

  it("streamed: tokens, then the metadata frame carrying them (the stored JSON text), then end; the default prompt", async () => {
    const flowId = await standinFlow();
    await withFollowUps(flowId, {});
    const m = marker();
    const res = await call("POST", `/prediction/${flowId}`, { body: { question: `${m} stream it`, streaming: true } });
    expect(res.status).toBe(200);
    const { frames } = await readStream(res);
    const events = frames.map((f) => f.event);
    expect(events.at(-1)).toBe("end");
    expect(events.at(-2)).toBe("metadata");
    expect(events.indexOf("token")).toBeLessThan(events.indexOf("metadata"));
    const metadata = frames.find((f) => f.event === "metadata") as Frame;
    expect(typeof metadata.data.followUpPrompts).toBe("string");
    const questions = JSON.parse(metadata.data.followUpPrompts);
    // No `[so …]`: the stand-in makes the one question up from the schema, echoing the prompt's start.
    expect(questions).toEqual([expect.stringMatching(/^echo: Given the following conversations: Human: /)]);

    const [asked] = await followUpRequests(m);
    const text = frames
      .filter((f) => f.event === "token")
      .map((f) => f.data)
      .join("");
    expect(text).toContain(`${m} stream it`);
    const history = `Human: ${m} stream it\nAI: ${text}`;
    expect(asked.body.messages.at(-1).content).toBe(DEFAULT_FOLLOW_UP_PROMPT.replace("{history}", history));
    expect((await lastAnswer(flowId)).followUpPrompts).toEqual(questions);
    expect((await lastAnswer(flowId)).id).toBe(metadata.data.chatMessageId);
  });

  it("off (status false): no follow-up call, nothing in the answer, the stream or the stored message", async () => {
    const flowId = await standinFlow();
    await withFollowUps(flowId, { prompt: scripted() }, false);
    const m = marker();
    const answer = await json("POST", `/prediction/${flowId}`, { body: { question: `${m} quiet` } });
    expect(answer).not.toHaveProperty("followUpPrompts");
    const res = await call("POST", `/prediction/${flowId}`, { body: { question: `${m} quiet stream`, streaming: true } });
    const metadata = (await readStream(res)).frames.find((f) => f.event === "metadata") as Frame;
    expect(metadata.data).not.toHaveProperty("followUpPrompts");
    expect(await requestsWith(m)).toHaveLength(2); // the two answers only
    expect((await messagesOf(flowId)).every((x) => x.followUpPrompts === null)).toBe(true);
  });

  it("a provider that fails: the answer still 200, without follow-ups; a provider we lack is none too", async () => {
    const flowId = await standinFlow();
    await withFollowUps(flowId, { prompt: "[bad-request] {history}" });
    const m = marker();
    const answer = await json("POST", `/prediction/${flowId}`, { body: { question: `${m} still answered` } });
    expect(answer.text).toContain(`${m} still answered`);
    expect(answer).not.toHaveProperty("followUpPrompts");
    expect(await followUpRequests(m)).toHaveLength(1); // asked, refused with a 400
    expect((await lastAnswer(flowId)).followUpPrompts).toBeNull();

    const res = await call("POST", `/prediction/${flowId}`, { body: { question: `${m} streamed anyway`, streaming: true } });
    const { frames } = await readStream(res);
    expect(frames.map((f) => f.event)).not.toContain("error");
    expect(frames.find((f) => f.event === "metadata")?.data).not.toHaveProperty("followUpPrompts");

    const other = await standinFlow();
    await withFollowUps(other, { prompt: scripted() }, true, "someoneElse");
    const m2 = marker();
    expect(await json("POST", `/prediction/${other}`, { body: { question: `${m2} hi` } })).not.toHaveProperty("followUpPrompts");
    expect(await requestsWith(m2)).toHaveLength(1);
  });

  it("a short provider name (openAI) is read as chatOpenAI", async () => {
    const flowId = await standinFlow();
    await withFollowUps(flowId, { prompt: scripted(["Short?"]) }, true, "openAI");
    const answer = await json("POST", `/prediction/${flowId}`, { body: { question: `${marker()} short` } });
    expect(JSON.parse(JSON.parse(answer.followUpPrompts))).toEqual(["Short?"]);
  });

  it("the studio's test chat: its history answers them as Flowise's JSON text", async () => {
    const { cookie } = await signedIn();
    const flowId = await standinFlow();
    await withFollowUps(flowId, { prompt: scripted() });
    const chatId = uuid();
    const res = await studio("POST", `/internal-prediction/${flowId}`, { cookie, body: { question: `${marker()} studio`, chatId } });
    expect(res.status).toBe(200);
    expect(JSON.parse(JSON.parse(((await res.json()) as any).followUpPrompts))).toEqual(QUESTIONS);
    const history = (await (await studio("GET", `/internal-chatmessage/${flowId}?chatId=${chatId}`, { cookie })).json()) as any[];
    const apiMessage = history.find((x) => x.role === "apiMessage");
    expect(apiMessage.followUpPrompts).toBe(JSON.stringify(QUESTIONS));
  });
});

describe("follow-up prompts of an agentflow", () => {
  it("a finished run: in the JSON answer, the stored message and the stream's metadata", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    await withFollowUps(id, { prompt: scripted() });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${m} agent` } });
    expect(JSON.parse(JSON.parse(answer.followUpPrompts))).toEqual(QUESTIONS);
    const stored = await lastAnswer(id);
    expect(stored.id).toBe(answer.chatMessageId);
    expect(stored.followUpPrompts).toEqual(QUESTIONS);
    const prompt = (await followUpRequests(m))[0].body.messages.at(-1).content;
    expect(prompt).toContain(`Human: ${m} agent\nAI: ${answer.text}`);

    const res = await call("POST", `/prediction/${id}`, { body: { question: `${marker()} agent stream`, streaming: true } });
    const { frames } = await readStream(res);
    expect(frames.map((f) => f.event).slice(-2)).toEqual(["metadata", "end"]);
    expect(JSON.parse(frames.find((f) => f.event === "metadata")?.data.followUpPrompts)).toEqual(QUESTIONS);
  });
});

// The dialog's other providers, each over its own API: the forced call in the service's form (the
// stand-ins refuse another provider's tool_choice, as the services do), the questions read back.
const nativeProviders = [
  {
    provider: "chatAnthropic",
    credential: () => credential("anthropicApi", { anthropicApiKey: "sk-ant-follow" }),
    base: () => inject("anthropicUrl"),
    forced: (body: any) => expect(body.tool_choice).toEqual({ type: "tool", name: body.tools[0].name }),
    prompt: (body: any) => body.messages.at(-1).content[0].text,
  },
  {
    provider: "chatGoogleGenerativeAI",
    credential: () => credential("googleGenerativeAI", { googleGenerativeAPIKey: "AIza-follow" }),
    base: () => inject("geminiUrl"),
    forced: (body: any) =>
      expect(body.toolConfig.functionCallingConfig).toEqual({
        mode: "ANY",
        allowedFunctionNames: [body.tools[0].functionDeclarations[0].name],
      }),
    prompt: (body: any) => body.contents.at(-1).parts[0].text,
  },
];

describe.each(nativeProviders)("follow-up prompts through $provider", (p) => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ ANTHROPIC_BASE_URL: inject("anthropicUrl"), GOOGLE_GENERATIVE_AI_BASE_URL: inject("geminiUrl") });
  });
  afterAll(() => restore());

  it("asks the provider's API with a forced call in its own form; the questions come back", async () => {
    const flowId = await standinFlow();
    await withFollowUps(flowId, { prompt: scripted(["Native?"]) }, true, p.provider, await p.credential());
    const m = marker();
    const answer = await json("POST", `/prediction/${flowId}`, { body: { question: `${m} native` } });
    expect(JSON.parse(JSON.parse(answer.followUpPrompts))).toEqual(["Native?"]);
    const [asked] = (await (await fetch(`${p.base()}/requests?contains=${encodeURIComponent(m)}`)).json()) as any[];
    expect(asked.body.model ?? asked.path).toContain("gpt-follow-up");
    p.forced(asked.body);
    expect(p.prompt(asked.body)).toContain(`Human: ${m} native\nAI: ${answer.text}`);
  });
});

describe("follow-up prompts through Ollama", () => {
  it("the dialog's base URL is where the model is asked (its OpenAI-compatible API)", async () => {
    const flowId = await standinFlow();
    await withFollowUps(flowId, { prompt: scripted(["Local?"]), baseUrl: standinUrl() }, true, "ollama", "");
    const m = marker();
    const answer = await json("POST", `/prediction/${flowId}`, { body: { question: `${m} local` } });
    expect(JSON.parse(JSON.parse(answer.followUpPrompts))).toEqual(["Local?"]);
    const [asked] = await followUpRequests(m);
    expect(asked.path).toBe("/v1/chat/completions");
    expect(asked.body.temperature).toBe(0.9);
    expect(asked.headers.authorization).toBeFalsy(); // Ollama takes no key
  });
});
