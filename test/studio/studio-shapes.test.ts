// Issue 30, item 5: Flowise's shapes for the studio (middleware/studio-shapes.ts). The signed-in
// person's requests get what Flowise's UI reads; bearer callers keep the contract's answers; writes
// accept both. Each case is checked both ways.
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { rowsOf } from "../seed";
import { openAICredential, saveChain } from "../security/helpers";
import { signedIn, studio } from "./helpers";

let cookie = "";
beforeAll(async () => {
  cookie = (await signedIn()).cookie;
});

const asStudio = async (method: string, path: string, body?: unknown) => {
  const res = await studio(method, path, { cookie, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
};
const byId = (items: any[], id: string) => items.find((i) => i.id === id);

describe("API keys", () => {
  it("the studio gets every key in full (its eye icon) and the flows bound to it; a bearer sees them masked, no chatFlows", async () => {
    const made = await asStudio("POST", "/apikey", { keyName: `studio-${uuid()}` });
    expect(made.apiKey).toMatch(/^[\w-]{40,}$/);
    const byBearer = await json("POST", "/apikey", { body: { keyName: `bearer-${uuid()}` } });
    const flow = await json("POST", "/chatflows", {
      body: { name: `bound-${uuid()}`, flowData: '{"nodes":[],"edges":[]}', apikeyid: made.id, category: "support;sales" },
    });

    const listed = await asStudio("GET", "/apikey");
    expect(byId(listed, made.id)).toMatchObject({
      apiKey: made.apiKey,
      chatFlows: [{ flowName: flow.name, category: "support;sales", updatedDate: flow.updatedDate }],
    });
    // Keys made by a bearer are kept the same way: the person can reveal them too.
    expect(byId(listed, byBearer.id)).toMatchObject({ apiKey: byBearer.apiKey, chatFlows: [] });
    const paged = await asStudio("GET", "/apikey?page=1&limit=100");
    expect(byId(paged.data, made.id).apiKey).toBe(made.apiKey);
    expect((await asStudio("GET", `/apikey/${made.id}`)).apiKey).toBe(made.apiKey);

    const bearer = byId(await json("GET", "/apikey"), made.id);
    expect(bearer.apiKey).toBe(`${made.apiKey.slice(0, 4)}…${made.apiKey.slice(-4)}`);
    expect(bearer).not.toHaveProperty("chatFlows");
    expect(bearer).not.toHaveProperty("keySealed");
    expect((await json("GET", `/apikey/${made.id}`)).apiKey).toBe(bearer.apiKey);
  });

  it("the key is stored sealed, never as it is; a revealed key works as a bearer token", async () => {
    const made = await asStudio("POST", "/apikey", { keyName: `sealed-${uuid()}` });
    const [row] = await rowsOf<{ keySealed: string; keyHash: string }>("SELECT keySealed, keyHash FROM apikey WHERE id = ?", made.id);
    expect(row.keySealed).toBeTruthy();
    expect(JSON.stringify(await rowsOf("SELECT * FROM apikey WHERE id = ?", made.id))).not.toContain(made.apiKey);
    const revealed = byId(await asStudio("GET", "/apikey"), made.id).apiKey;
    expect((await call("GET", "/chatflows", { token: revealed })).status).toBe(200);
  });

  it("a key made before keys were kept stays masked for the studio too", async () => {
    const made = await json("POST", "/apikey", { body: { keyName: `older-${uuid()}` } });
    await rowsOf("UPDATE apikey SET keySealed = NULL WHERE id = ?", made.id);
    expect(byId(await asStudio("GET", "/apikey"), made.id).apiKey).toBe(`${made.apiKey.slice(0, 4)}…${made.apiKey.slice(-4)}`);
  });
});

describe("document stores", () => {
  it("the studio gets loaders and whereUsed as arrays; a bearer as JSON text", async () => {
    const store = await json("POST", "/document-store/store", { body: { name: `shapes-${uuid()}` } });
    const mine = byId(await asStudio("GET", "/document-store/store"), store.id);
    expect(mine).toMatchObject({ loaders: [], whereUsed: [] });
    expect(await asStudio("GET", `/document-store/store/${store.id}`)).toMatchObject({ loaders: [], whereUsed: [] });
    const paged = await asStudio("GET", "/document-store/store?page=1&limit=100");
    expect(byId(paged.data, store.id)).toMatchObject({ loaders: [], whereUsed: [] });

    expect(byId(await json("GET", "/document-store/store"), store.id)).toMatchObject({ loaders: "[]", whereUsed: "[]" });
    expect(await json("GET", `/document-store/store/${store.id}`)).toMatchObject({ loaders: "[]", whereUsed: "[]" });
  });
});

describe("assistants", () => {
  it("the studio sends and reads details as JSON text; its made-up credential on a custom assistant is dropped", async () => {
    const name = `studio-${uuid()}`;
    const made = await asStudio("POST", "/assistants", { details: JSON.stringify({ name }), credential: uuid(), type: "CUSTOM" });
    expect(JSON.parse(made.details)).toEqual({ name });
    expect(made.credential).toBeNull();
    expect(JSON.parse(byId(await asStudio("GET", "/assistants?type=CUSTOM"), made.id).details)).toEqual({ name });
    expect(JSON.parse((await asStudio("GET", `/assistants/${made.id}`)).details)).toEqual({ name });
    const updated = await asStudio("PUT", `/assistants/${made.id}`, { details: JSON.stringify({ name, instruction: "Be brief" }) });
    expect(JSON.parse(updated.details)).toEqual({ name, instruction: "Be brief" });

    // A bearer reads the object, as the contract says.
    expect((await json("GET", `/assistants/${made.id}`)).details).toEqual({ name, instruction: "Be brief" });
  });

  it("a bearer may send details as text too (writes accept both) and gets the object; its credential is still checked", async () => {
    const credential = await openAICredential("sk-test");
    const made = await json("POST", "/assistants", { body: { details: JSON.stringify({ name: "text" }), credential, type: "CUSTOM" } });
    expect(made.details).toEqual({ name: "text" });
    expect(made.credential).toBe(credential);
    const res = await call("POST", "/assistants", { body: { details: { name: "x" }, credential: uuid(), type: "CUSTOM" } });
    expect((await expectError(res, 422)).message).toContain("not found");
    // Text that is not a JSON object is refused as before.
    await expectError(await call("POST", "/assistants", { body: { details: "not json" } }), 422);
  });
});

describe("chat messages with feedback=true", () => {
  it("the studio gets every message, each with its feedback attached (or null); a bearer only the rated ones", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
    const first = await json("POST", `/prediction/${id}`, { body: { question: "one", chatId: "fb-chat" } });
    await json("POST", `/prediction/${id}`, { body: { question: "two", chatId: "fb-chat" } });
    const rating = await json("POST", "/feedback", { body: { messageId: first.chatMessageId, rating: "THUMBS_UP" } });

    const all = await asStudio("GET", `/chatmessage/${id}?feedback=true&chatType[]=EXTERNAL`);
    expect(all.map((m: any) => [m.content, m.feedback?.id ?? null])).toEqual([
      ["one", null],
      [first.text, rating.id],
      ["two", null],
      [expect.stringContaining("two"), null],
    ]);
    const rated = await json("GET", `/chatmessage/${id}?feedback=true`);
    expect(rated.map((m: any) => m.content)).toEqual(["one", first.text]);
    // With a feedbackType the studio filters as the contract does.
    const ups = await asStudio("GET", `/chatmessage/${id}?feedback=true&feedbackType=THUMBS_UP`);
    expect(ups.map((m: any) => m.content)).toEqual(["one", first.text]);
  });

  it("the test chat's history attaches feedback the same way", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
    const asked = await asStudio("POST", `/internal-prediction/${id}`, { question: "hello", chatId: "tc-fb" });
    const rating = await json("POST", "/feedback", { body: { messageId: asked.chatMessageId, rating: "THUMBS_DOWN" } });
    const history = await asStudio("GET", `/internal-chatmessage/${id}?feedback=true`);
    expect(history.map((m: any) => [m.role, m.feedback?.rating ?? null])).toEqual([
      ["userMessage", null],
      ["apiMessage", "THUMBS_DOWN"],
    ]);
    expect(history[1].feedback.id).toBe(rating.id);
  });
});
