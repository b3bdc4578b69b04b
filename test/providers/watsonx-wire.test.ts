// chatIBMWatsonx's wire format against the watsonx.ai stand-in (test/standin/watsonx.mjs), which refuses what
// /ml/v1/text/chat refuses with its 400 json_validation_error: the stand-in's rules themselves, then what our
// flows hand the model (a turn that only calls tools, in a Tool Agent chatflow too; tool calls and results cut
// apart; history opening with a greeting, two system messages, memory whose last answer failed; structured
// output's forced call), each checked to reach the service as a request it accepts.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { callOf, toolAgentFlow } from "../engine/agents-flows";
import { credential, db, makeCtx, marker, runFlow, runtimeWith } from "../engine/helpers";
import { askStatus, awkwardHistory, cutToolConversation, cutToolWire, twoCallsAnswered, weather } from "./wire-conversations";

const wxUrl = () => inject("watsonxUrl");
const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, IBM_IAM_BASE_URL: wxUrl() },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Message = Record<string, unknown> & { role: string };
type Body = Record<string, unknown> & { messages: Message[] };
/** The body of the last chat request the stand-in received with `m` in it. */
const sent = async (m: string): Promise<Body> =>
  ((await (await fetch(`${wxUrl()}/requests?contains=${encodeURIComponent(m)}`)).json()) as Array<{ path: string; body: Body }>)
    .filter((r) => r.path.startsWith("/ml/v1/text/chat"))
    .at(-1)!.body;

/** A bearer-token credential (no IAM exchange), as a chatIBMWatsonx node's credential id. */
const bearer = () =>
  credential("ibmWatsonx", {
    version: "2024-05-31",
    serviceUrl: wxUrl(),
    projectId: "proj-wire",
    watsonxAIAuthType: "bearertoken",
    watsonxAIBearerToken: "ibm-bearer-wire",
  });

const build = async () => buildChatModel("chatIBMWatsonx", { credential: await bearer(), modelName: "ibm/granite-3-8b-instruct" }, deps());

const raw = (body: Record<string, unknown>) =>
  fetch(`${wxUrl()}/ml/v1/text/chat?version=2024-05-31`, {
    method: "POST",
    headers: { authorization: "Bearer ibm-bearer-raw", "content-type": "application/json" },
    body: JSON.stringify({ model_id: "ibm/granite", project_id: "p", ...body }),
  });

describe("chatIBMWatsonx: what our flows send is a request watsonx.ai accepts", () => {
  it("the stand-in answers watsonx's 400 for content types, missing fields, roles and the two tool choices", async () => {
    const user = { role: "user", content: "q" };
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [user, { role: "assistant", content: null, tool_calls: [call] }] }, "an assistant message's content must be a string"],
      [{ messages: [user, { role: "assistant" }] }, "content is required unless tool_calls is specified"],
      [{ messages: [{ role: "system", content: [{ type: "text", text: "s" }] }, user] }, "a system message's content must be a string"],
      [{ messages: [user, { role: "assistant", tool_calls: [call] }, { role: "tool", content: "ok" }] }, "tool_call_id is required"],
      [{ messages: [{ role: "User", content: "q" }] }, "must be one of system, user, assistant, tool, control"],
      [
        { messages: [user], tool_choice_option: "required", tool_choice: { type: "function", function: { name: "f" } } },
        "Only one of 'tool_choice_option' or 'tool_choice' must be present",
      ],
      [{ messages: [user], tool_choice_option: "any" }, "tool_choice_option: must be one of none, auto, required"],
      [{ messages: [user], model_id: undefined }, "Missing required field 'model_id'"],
    ];
    for (const [body, message] of cases) {
      const res = await raw(body);
      expect(res.status, message).toBe(400);
      expect(await res.json()).toMatchObject({
        errors: [{ code: "json_validation_error", message: expect.stringContaining(message) }],
        status_code: 400,
      });
    }
    // A turn of tool calls without content, answered by a tool message, is what the API takes.
    const ok = await raw({
      messages: [user, { role: "assistant", tool_calls: [call] }, { role: "tool", content: "ok", tool_call_id: "c1" }],
    });
    expect(ok.status).toBe(200);
  });

  it("a turn that only calls tools goes without content (watsonx refuses content: null)", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const reply = await model.invoke(twoCallsAnswered(m));
    expect(reply.content).toBe(`echo: and tomorrow? ${m}`);
    const { messages } = await sent(m);
    expect(messages[1]).toEqual({
      role: "assistant",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        { id: "c2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
      ],
    });
    expect(messages.slice(2, 4)).toEqual([
      { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
      { role: "tool", content: "rainy in Rome", tool_call_id: "c2" },
    ]);
  });

  it("runs Flowise's Tool Agent chatflow: the calculator's call turn, its result, the answer (streamed too)", async () => {
    const flow = JSON.parse(toolAgentFlow());
    const node = flow.nodes.find((n: { id: string }) => n.id === "chatOpenAI_0");
    node.data.name = "chatIBMWatsonx";
    node.data.inputs = { modelName: "ibm/granite-3-8b-instruct" };
    node.data.credential = await bearer();
    const runtime = runtimeWith({ IBM_IAM_BASE_URL: wxUrl() });
    const m = marker();
    const result = await runFlow(JSON.stringify(flow), makeCtx(`6 times 7? ${callOf("calculator", { input: "6*7" })} ${m}`, { runtime }));
    expect(result.text).toBe("tools said: 42");
    expect((await sent(m)).messages.find((x) => x.tool_calls)).not.toHaveProperty("content");
    const streamed = await runFlow(
      JSON.stringify(flow),
      makeCtx(`6 times 8? ${callOf("calculator", { input: "6*8" })} ${marker()}`, { runtime }),
    );
    expect(streamed.text).toBe("tools said: 48");
  });

  it("a tool result cut from its call goes as user text; a call cut from its result goes without it", async () => {
    const model = await build();
    const m = marker();
    expect((await model.invoke(cutToolConversation(m))).content).toBe(`echo: and? ${m}`);
    expect((await sent(m)).messages).toEqual(cutToolWire(m));
  });

  it("history opening with a greeting, memory whose last answer failed, two system messages: a request the API takes", async () => {
    const model = await build();
    const m = marker();
    const reply = await model.invoke(awkwardHistory(m));
    expect(reply.content).toBe(`echo: asked again ${m}`);
    expect((await sent(m)).messages.map((x) => x.role)).toEqual(["system", "assistant", "user", "user", "system"]);
  });

  it("structured output forces its tool with tool_choice, not tool_choice_option", async () => {
    const model = await build();
    const m = marker();
    expect(await askStatus(model, m)).toEqual({ status: "open" });
    const body = await sent(m);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: expect.any(String) } });
    expect(body).not.toHaveProperty("tool_choice_option");
  });
});
