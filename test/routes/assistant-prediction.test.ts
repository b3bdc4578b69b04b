import { describe, expect, it } from "vitest";
import { standinUrl } from "../engine/helpers";
import { call, expectError, json } from "../helpers";

async function assistantWith(details: Record<string, unknown>, credentialName = "openAIApi") {
  const credential = await json("POST", "/credentials", {
    body: { name: "assistant model", credentialName, plainDataObj: { openAIApiKey: "sk-test", basePath: `${standinUrl()}/v1` } },
  });
  const assistant = await json("POST", "/assistants", { body: { details, credential: credential.id } });
  return { assistant, credential };
}

const requestsWith = async (marker: string) => (await fetch(`${standinUrl()}/requests?contains=${marker}`)).json<any[]>();

describe("POST /prediction/{assistantId}", () => {
  it("answers with the assistant's instructions, model, temperature and top_p, and stores the exchange", async () => {
    const { assistant } = await assistantWith({
      name: "Pirate",
      model: "pirate-model",
      instructions: "Talk like a pirate.",
      temperature: 0.3,
      top_p: 0.9,
    });
    const marker = crypto.randomUUID();
    const answer = await json("POST", `/prediction/${assistant.id}`, { body: { question: `ahoy ${marker}` } });
    expect(answer.text).toContain(`ahoy ${marker}`);
    expect(answer.memoryType).toBe("Buffer Memory");

    const [sent] = await requestsWith(marker);
    const body = JSON.stringify(sent);
    expect(body).toContain("Talk like a pirate.");
    expect(body).toContain("pirate-model");
    expect(body).toContain("0.3");
    expect(body).toContain("0.9");

    const stored = await json<any[]>("GET", `/chatmessage/${assistant.id}`);
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["userMessage", `ahoy ${marker}`],
      ["apiMessage", answer.text],
    ]);
  });

  it("remembers earlier turns of the same chat", async () => {
    const { assistant } = await assistantWith({ model: "m", instructions: "Be brief." });
    const first = await json("POST", `/prediction/${assistant.id}`, { body: { question: "my favourite colour is teal" } });
    const marker = crypto.randomUUID();
    await json("POST", `/prediction/${assistant.id}`, { body: { question: `what colour? ${marker}`, chatId: first.chatId } });
    expect(JSON.stringify((await requestsWith(marker))[0])).toContain("my favourite colour is teal");
  });

  it("streams like a chatflow", async () => {
    const { assistant } = await assistantWith({ model: "m", instructions: "Stream." });
    const res = await call("POST", `/prediction/${assistant.id}`, { body: { question: "hello", streaming: true } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const text = await res.text();
    expect(text).toContain('"event":"token"');
    expect(text).toContain('"event":"metadata"');
  });

  it("is never public: no token → 401", async () => {
    const { assistant } = await assistantWith({ model: "m" });
    await expectError(await call("POST", `/prediction/${assistant.id}`, { token: null, body: { question: "q" } }), 401);
  });

  it("an assistant whose credential no longer exists → 400 naming it, nothing stored", async () => {
    const { assistant, credential } = await assistantWith({ model: "m" });
    await json("DELETE", `/credentials/${credential.id}`);
    const err = await expectError(await call("POST", `/prediction/${assistant.id}`, { body: { question: "q" } }), 400);
    expect(err.message).toContain(credential.id);
    expect(await json("GET", `/chatmessage/${assistant.id}`)).toEqual([]);
  });

  it("function tools naming a stored Tool that does not exist → 400", async () => {
    const missing = crypto.randomUUID();
    const { assistant } = await assistantWith({ model: "m", tools: ["function"], tool_resources: { function: { tool_ids: [missing] } } });
    expect((await expectError(await call("POST", `/prediction/${assistant.id}`, { body: { question: "q" } }), 400)).message).toContain(
      missing,
    );
  });
});
