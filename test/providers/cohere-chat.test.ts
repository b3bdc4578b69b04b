// chatCohere over Cohere's Chat API v2 against its stand-in (test/standin/cohere-chat.mjs): what the
// service received (Bearer key, model, temperature, messages), answers JSON and streamed, tool calls
// (JSON and streamed), a Tool Agent chatflow, and failures as 502 naming Cohere without the key.
import { env } from "cloudflare:workers";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { callOf, toolAgentFlow } from "../engine/agents-flows";
import { credential, db, makeCtx, marker, recordingSink, runFlow, runtimeWith } from "../engine/helpers";

const cohereUrl = () => inject("cohereChatUrl");

const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, COHERE_CHAT_BASE_URL: cohereUrl() },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Received = { path: string; headers: Record<string, string>; body: Record<string, unknown> };
const received = async (m: string): Promise<Received[]> =>
  (await fetch(`${cohereUrl()}/requests?contains=${encodeURIComponent(m)}`)).json();

const build = async (config: Record<string, unknown> = {}) =>
  buildChatModel(
    "chatCohere",
    { modelName: "command-a-03-2025", credential: await credential("cohereApi", { cohereApiKey: "co-secret-1" }), ...config },
    deps(),
  );

describe("chatCohere", () => {
  it("answers through /v2/chat with the key, model, temperature and system message", async () => {
    const model = await build({ temperature: "0.3" });
    const m = marker();
    const answer = await model.invoke([new SystemMessage("be brief"), new HumanMessage(`hi ${m}`)]);
    expect(answer.content).toBe(`echo: hi ${m}`);
    expect(answer.usage_metadata).toMatchObject({ input_tokens: 4, output_tokens: 6 });
    const [req] = await received(m);
    expect(req.path).toBe("/v2/chat");
    expect(req.headers.authorization).toBe("Bearer co-secret-1");
    expect(req.body).toMatchObject({
      model: "command-a-03-2025",
      temperature: 0.3,
      stream: false,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: `hi ${m}` },
      ],
    });
  });

  it("streams content-delta events token by token", async () => {
    const model = await build();
    const m = marker();
    const tokens: string[] = [];
    for await (const chunk of await model.stream([new HumanMessage(`stream ${m}`)])) if (chunk.content) tokens.push(String(chunk.content));
    expect(tokens.join("")).toBe(`echo: stream ${m}`);
    expect(tokens.length).toBeGreaterThan(1);
  });

  it("offers tools and reads tool calls, JSON and streamed", async () => {
    const weather = tool(async ({ city }) => `sunny in ${city}`, {
      name: "get_weather",
      description: "the weather in a city",
      schema: z.object({ city: z.string() }),
    });
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const answer = await model.invoke([new HumanMessage(`${callOf("get_weather", { city: "Oslo" })} ${m}`)]);
    expect(answer.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Oslo" } })]);
    const [req] = await received(m);
    expect(req.body.tools).toEqual([
      expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "get_weather" }) }),
    ]);
    let whole: { concat(c: unknown): unknown; tool_calls?: unknown[] } | undefined;
    for await (const chunk of await model.stream([new HumanMessage(`${callOf("get_weather", { city: "Rome" })} ${marker()}`)]))
      whole = (whole ? whole.concat(chunk) : chunk) as typeof whole;
    expect(whole?.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Rome" } })]);
  });

  it("runs Flowise's Tool Agent chatflow: calculator call, result, answer (streamed too)", async () => {
    const flow = JSON.parse(toolAgentFlow());
    const node = flow.nodes.find((n: { id: string }) => n.id === "chatOpenAI_0");
    node.data.name = "chatCohere";
    node.data.inputs = { modelName: "command-r-08-2024" };
    node.data.credential = await credential("cohereApi", { cohereApiKey: "co-secret-2" });
    const runtime = runtimeWith({ COHERE_CHAT_BASE_URL: cohereUrl() });
    const result = await runFlow(
      JSON.stringify(flow),
      makeCtx(`6 times 7? ${callOf("calculator", { input: "6*7" })} ${marker()}`, { runtime }),
    );
    expect(result.text).toBe("tools said: 42");
    const rec = recordingSink();
    const ctx = makeCtx(`6 times 8? ${callOf("calculator", { input: "6*8" })} ${marker()}`, { runtime });
    const streamed = await runFlow(JSON.stringify(flow), ctx, rec.sink);
    expect(streamed.text).toBe("tools said: 48");
    expect(rec.tokens.length).toBeGreaterThan(1);
  });

  it("failures are 502 naming Cohere and its message, never the key", async () => {
    const model = await build();
    const bad = await model.invoke([new HumanMessage(`[bad-request] ${marker()}`)]).catch((e) => e);
    expect(bad).toMatchObject({ status: 502, message: expect.stringMatching(/^Cohere answered 400: stand-in refuses this request/) });
    const echo = await model.invoke([new HumanMessage(`[echo-auth] ${marker()}`)]).catch((e) => e);
    expect(echo).toMatchObject({ status: 502, message: expect.stringContaining("Cohere answered 401") });
    expect(String(echo.message)).not.toContain("co-secret-1");
  });
});
