// chatCohere's wire format against the Cohere Chat v2 stand-in (test/standin/cohere-chat.mjs), which refuses
// what /v2/chat refuses (400 invalid request, 422 unknown field): the stand-in's rules themselves, then what our
// flows hand the model (a turn that only calls tools, tool calls and results cut apart, history opening with a
// greeting, two system messages, memory whose last answer failed, structured output's forced call), each
// checked to reach the service as a request it accepts.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { credential, db, marker } from "../engine/helpers";
import { askStatus, awkwardHistory, cutToolConversation, cutToolWire, twoCallsAnswered, weather } from "./wire-conversations";

const cohereUrl = () => inject("cohereChatUrl");
const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, COHERE_CHAT_BASE_URL: cohereUrl() },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Message = Record<string, unknown> & { role: string };
type Body = Record<string, unknown> & { messages: Message[] };
/** The body of the last request the stand-in received with `m` in it. */
const sent = async (m: string): Promise<Body> =>
  ((await (await fetch(`${cohereUrl()}/requests?contains=${encodeURIComponent(m)}`)).json()) as Array<{ body: Body }>).at(-1)!.body;

const build = async () =>
  buildChatModel(
    "chatCohere",
    { modelName: "command-a-03-2025", credential: await credential("cohereApi", { cohereApiKey: "co-wire" }) },
    deps(),
  );

const raw = (body: Record<string, unknown>) =>
  fetch(`${cohereUrl()}/v2/chat`, {
    method: "POST",
    headers: { authorization: "Bearer co-raw", "content-type": "application/json" },
    body: JSON.stringify({ model: "command-a-03-2025", ...body }),
  });

describe("chatCohere: what our flows send is a request Cohere's Chat API v2 accepts", () => {
  it("the stand-in answers Cohere's 400 (or 422) for fields, roles, tool turns, tools, tool_choice and ranges", async () => {
    const user = { role: "user", content: "q" };
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    const fn = { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } };
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ messages: [user], tool_config: {} }, 422, "unknown field: parameter 'tool_config' is not a valid field"],
      [{ messages: [{ ...user, name: "me" }] }, 422, "unknown field: parameter 'name' is not a valid field"],
      [{ messages: [{ role: "developer", content: "s" }, user] }, 400, "role must be one of user, assistant, system, tool"],
      [{ messages: [user, { role: "assistant", content: null, tool_calls: [call] }] }, 400, "messages[1].content must be a string"],
      [{ messages: [user, { role: "assistant", tool_calls: [call] }, { role: "tool", content: "ok" }] }, 400, "tool_call_id is required"],
      [
        { messages: [user, { role: "assistant", tool_calls: [call] }, { role: "user", content: "and?" }] },
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'",
      ],
      [{ messages: [user], tools: [{ type: "function", function: { name: "f" } }] }, 400, "tools[0].function.parameters is required"],
      [{ messages: [user], tools: [fn], tool_choice: "ANY" }, 400, "tool_choice must be one of REQUIRED, NONE"],
      [{ messages: [user], tool_choice: "REQUIRED" }, 400, "tool_choice REQUIRED needs tools"],
      [{ messages: [user], temperature: 1.5 }, 400, "temperature must be between 0 and 1"],
      [{ messages: [user], p: 1 }, 400, "p must be between 0.01 and 0.99"],
      [{ messages: [user], stop_sequences: ["a", "b", "c", "d", "e", "f"] }, 400, "up to 5 strings"],
    ];
    for (const [body, status, message] of cases) {
      const res = await raw(body);
      expect(res.status, message).toBe(status);
      expect(await res.json()).toEqual({ message: expect.stringContaining(message) });
    }
    // A turn of tool calls without content, answered by a tool message, is what the API takes.
    const ok = await raw({
      messages: [user, { role: "assistant", tool_calls: [call] }, { role: "tool", content: "ok", tool_call_id: "c1" }],
    });
    expect(ok.status).toBe(200);
  });

  it("a turn that only calls tools goes without content, each call answered by its tool message", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const reply = await model.invoke(twoCallsAnswered(m));
    expect(reply.content).toBe(`echo: and tomorrow? ${m}`);
    expect((await sent(m)).messages.slice(1, 4)).toEqual([
      {
        role: "assistant",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
          { id: "c2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
      { role: "tool", content: "rainy in Rome", tool_call_id: "c2" },
    ]);
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

  it("structured output forces its one tool with tool_choice REQUIRED", async () => {
    const model = await build();
    const m = marker();
    expect(await askStatus(model, m)).toEqual({ status: "open" });
    const body = await sent(m);
    expect(body.tool_choice).toBe("REQUIRED");
    expect(body.tools).toHaveLength(1);
  });
});
