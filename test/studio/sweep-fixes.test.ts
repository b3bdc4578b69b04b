// What an exploratory sweep of Flowise's UI against edgeflow found broken, call by call as the
// pages make them: View Messages' Source filter (its "Evaluations" option), and the chat Flowise's UI
// embeds in the custom assistant's page (flowise-embed: the cookie, no `x-request-from` header, and
// a Tool Agent whose model and tools are saved as `{{<nodeId>}}`).
import { beforeAll, describe, expect, it } from "vitest";
import { standinUrl } from "../engine/helpers";
import { call, json, uuid } from "../helpers";
import { openAICredential, saveChain } from "../security/helpers";
import { ORIGIN, signedIn, studio } from "./helpers";

let cookie = "";
let credential = "";
beforeAll(async () => {
  cookie = (await signedIn()).cookie;
  credential = await openAICredential("sk-sweep");
});

/** A call as the embedded chat makes it: the cookie, the browser's Sec-Fetch-Site, no UI header. */
function embedded(method: string, path: string, init: { body?: unknown; site?: string; origin?: string; cookie?: string } = {}) {
  const headers: Record<string, string> = { cookie: init.cookie ?? cookie };
  if (init.site !== "") headers["sec-fetch-site"] = init.site ?? "same-origin";
  if (init.origin) headers.origin = init.origin;
  return call(method, path, { token: null, body: init.body, headers });
}

describe("View Messages' Source filter with Evaluations (chatType[]=EVALUATION)", () => {
  it("is accepted by /chatmessage and /stats; alone it matches no message", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential });
    await json("POST", `/prediction/${id}`, { body: { question: "sweep eval", chatId: "c1" } });
    const all = ["INTERNAL", "EXTERNAL", "MCP", "SCHEDULED", "WEBHOOK", "EVALUATION"].map((t) => `chatType%5B%5D=${t}`).join("&");
    const listed = await studio("GET", `/chatmessage/${id}?order=DESC&feedback=true&${all}&page=1&limit=10`, { cookie });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as any[]).map((m) => m.content)).toEqual(["echo: sweep eval", "sweep eval"]);
    const stats = await studio("GET", `/stats/${id}?${all}`, { cookie });
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({ totalMessages: 2, totalSessions: 1 });

    const none = await studio("GET", `/chatmessage/${id}?chatType%5B%5D=EVALUATION`, { cookie });
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual([]);
    const noStats = await studio("GET", `/stats/${id}?chatType%5B%5D=EVALUATION`, { cookie });
    expect(await noStats.json()).toMatchObject({ totalMessages: 0 });
    // Deleting with the same filter deletes no message.
    const deleted = await studio("DELETE", `/chatmessage/${id}?chatType%5B%5D=EVALUATION`, { cookie });
    expect(deleted.status).toBe(200);
    expect(await json("GET", `/chatmessage/${id}`)).toHaveLength(2);
    // Still a clear 400 for a value Flowise does not have.
    expect((await studio("GET", `/chatmessage/${id}?chatType%5B%5D=NOPE`, { cookie })).status).toBe(400);
  });
});

describe("the session cookie on a request from one of this origin's pages (Sec-Fetch-Site: same-origin)", () => {
  it("reads a private flow's chatbot config; not from another site, nor without the browser's header", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential });
    const own = await embedded("GET", `/public-chatbotConfig/${id}`);
    expect(own.status).toBe(200);
    expect(await own.json()).toHaveProperty("uploads");
    expect((await embedded("GET", `/public-chatbotConfig/${id}`, { site: "cross-site" })).status).toBe(401);
    expect((await embedded("GET", `/public-chatbotConfig/${id}`, { site: "same-site" })).status).toBe(401);
    expect((await embedded("GET", `/public-chatbotConfig/${id}`, { site: "" })).status).toBe(401);
    expect((await embedded("GET", `/public-chatbotConfig/${id}`, { cookie: "edgeflow_session=not-a-session" })).status).toBe(401);
    // The signed-in person's other reads too, as from the studio's own header.
    expect((await embedded("GET", "/chatflows")).status).toBe(200);
  });

  it("runs a private flow from /prediction (stored EXTERNAL); a write from another Origin is 403", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential });
    const question = `embedded ${uuid().slice(0, 8)}`;
    const res = await embedded("POST", `/prediction/${id}`, { body: { question, chatId: "emb" }, origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).text).toBe(`echo: ${question}`);
    const stored = await json("GET", `/chatmessage/${id}`);
    expect(stored.map((m: any) => [m.role, m.chatType])).toEqual([
      ["userMessage", "EXTERNAL"],
      ["apiMessage", "EXTERNAL"],
    ]);
    const forged = await embedded("POST", `/prediction/${id}`, { body: { question: "x" }, origin: "https://elsewhere.example" });
    expect(forged.status).toBe(403);
    const anonymous = await embedded("POST", `/prediction/${id}`, { body: { question: "x" }, site: "cross-site" });
    expect(anonymous.status).toBe(401);
  });
});

describe("a custom assistant saved by Flowise's UI (Tool Agent with `{{chatOpenAI_0}}`, `{{<toolNodeId>}}`)", () => {
  it("runs: the bare node references are that node's instance, as in Flowise", async () => {
    const tool = await json("POST", "/tools", {
      body: {
        name: "sweep_upper",
        description: "Upper-cases its input",
        schema: JSON.stringify([{ id: 1, property: "input", type: "string", description: "text", required: true }]),
        func: "return String($input).toUpperCase();",
      },
    });
    const node = (id: string, name: string, category: string, inputs: Record<string, unknown>, extra = {}) => ({
      id,
      type: "customNode",
      position: { x: 0, y: 0 },
      data: { id, name, label: name, category, inputs, ...extra },
    });
    const flowData = JSON.stringify({
      nodes: [
        node("bufferMemory_0", "bufferMemory", "Memory", { sessionId: "", memoryKey: "chat_history" }),
        node("chatOpenAI_0", "chatOpenAI", "Chat Models", { modelName: "gpt-4o-mini", basepath: `${standinUrl()}/v1` }, { credential }),
        node("customTool_0", "customTool", "Tools", { selectedTool: tool.id, returnDirect: false }),
        node("toolAgent_0", "toolAgent", "Agents", {
          tools: ["{{customTool_0}}"],
          memory: "{{bufferMemory_0.data.instance}}",
          model: "{{chatOpenAI_0}}",
          systemMessage: "You are a sweep assistant",
        }),
      ],
      edges: [
        { source: "bufferMemory_0", target: "toolAgent_0", sourceHandle: "a", targetHandle: "toolAgent_0-input-memory-BaseChatMemory" },
        { source: "chatOpenAI_0", target: "toolAgent_0", sourceHandle: "b", targetHandle: "toolAgent_0-input-model-BaseChatModel" },
        { source: "customTool_0", target: "toolAgent_0", sourceHandle: "c", targetHandle: "toolAgent_0-input-tools-Tool" },
      ],
    });
    const flow = await json("POST", "/chatflows", { body: { name: "Sweep assistant", type: "ASSISTANT", flowData } });
    const question = `[call sweep_upper {"input":"shout"}] ${uuid().slice(0, 8)}`;
    const answer = await json("POST", `/prediction/${flow.id}`, { body: { question } });
    expect(answer.text).toBe("tools said: SHOUT");
  });
});
