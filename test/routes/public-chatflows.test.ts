// GET /public-chatflows/{id}: what the studio's full-page chatbot (/chatbot/{id}) reads. A public
// chatflow answers anyone, without what would let a reader act as its owner; a private one answers
// only who may GET /chatflows/{id}.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { signedIn, studio } from "../studio/helpers";

const node = (id: string, data: Record<string, unknown>) => ({ id, type: "customNode", position: { x: 0, y: 0 }, data: { id, ...data } });

const FLOW = {
  nodes: [
    node("chatOpenAI_0", {
      name: "chatOpenAI",
      credential: "cred-123",
      inputParams: [
        { name: "modelName", type: "asyncOptions" },
        { name: "apiKeyOverride", type: "password" },
        { name: "caFile", type: "file" },
        { name: "cacheDir", type: "folder" },
      ],
      inputs: { modelName: "gpt-4o-mini", apiKeyOverride: "sk-secret", caFile: "data:...", cacheDir: "/x", temperature: 0.2 },
    }),
    node("http_0", {
      name: "httpAgentflow",
      inputs: {
        headers: [
          { key: "Authorization", value: "Bearer secret" },
          { key: "X-Trace", value: "t1" },
          { key: "cookie", value: "s=1" },
        ],
      },
    }),
    node("requestsGet_0", { name: "requestsGet", inputs: { headers: JSON.stringify({ "X-API-Key": "k", Accept: "json" }) } }),
    node("requestsPost_0", { name: "requestsPost", inputs: { headers: { "x-auth-token": "t", "Content-Type": "json" } } }),
    node("broken_0", { name: "x", inputs: { headers: "{not json" } }),
  ],
  edges: [],
};

async function saveFlow(extra: Record<string, unknown>) {
  return (await json("POST", "/chatflows", { body: { name: "public page", flowData: JSON.stringify(FLOW), ...extra } })).id as string;
}

describe("GET /public-chatflows/{id}", () => {
  it("a public chatflow answers anyone, its flowData without credentials, secret inputs or authorization headers", async () => {
    const chatbotConfig = JSON.stringify({ welcomeMessage: "hi" });
    const id = await saveFlow({ isPublic: true, chatbotConfig });
    const res = await call("GET", `/public-chatflows/${id}`, { token: null });
    expect(res.status).toBe(200);
    const flow = await res.json<any>();
    expect(flow).toMatchObject({ id, name: "public page", isPublic: true, chatbotConfig, type: "CHATFLOW", apikeyid: null });
    const [model, http, get, post, broken] = JSON.parse(flow.flowData).nodes.map((n: any) => n.data);
    expect(model.credential).toBeUndefined();
    expect(model.inputs).toEqual({ modelName: "gpt-4o-mini", temperature: 0.2 });
    expect(model.inputParams).toHaveLength(4); // the form's description stays
    expect(http.inputs.headers).toEqual([{ key: "X-Trace", value: "t1" }]);
    expect(JSON.parse(get.inputs.headers)).toEqual({ Accept: "json" });
    expect(post.inputs.headers).toEqual({ "Content-Type": "json" });
    expect(broken.inputs).toEqual({}); // headers it cannot read are left out
    expect(flow.flowData).not.toMatch(/secret|sk-|cred-123|s=1/);
    // The stored flow is unchanged.
    const stored = await json("GET", `/chatflows/${id}`);
    expect(JSON.parse(stored.flowData)).toEqual(FLOW);
  });

  it("flowData that is not JSON is shown as an empty flow", async () => {
    const id = await saveFlow({ isPublic: true });
    await env.DB.prepare("UPDATE chat_flow SET flowData = ? WHERE id = ?").bind("{not json", id).run();
    const flow = await json("GET", `/public-chatflows/${id}`, { token: null });
    expect(JSON.parse(flow.flowData)).toEqual({ nodes: [], edges: [] });
  });

  it("a private chatflow: 401 to anyone, whole to the admin key and the signed-in person, 403 to a key that may not view it", async () => {
    const id = await saveFlow({ isPublic: false });
    const refused = await expectError(await call("GET", `/public-chatflows/${id}`, { token: null }), 401);
    expect(refused.message).toMatch(/^Unauthorized/);
    const whole = await json("GET", `/public-chatflows/${id}`);
    expect(JSON.parse(whole.flowData)).toEqual(FLOW);
    const { cookie } = await signedIn();
    const res = await studio("GET", `/public-chatflows/${id}`, { cookie });
    expect(res.status).toBe(200);
    expect(JSON.parse((await res.json<any>()).flowData)).toEqual(FLOW);
    const other = await saveFlow({});
    const limited = await json("POST", "/apikey", {
      body: { keyName: "public page limited", permissions: ["chatflows:view"], chatflows: [other] },
    });
    await expectError(await call("GET", `/public-chatflows/${id}`, { token: limited.apiKey }), 403);
    expect((await call("GET", `/public-chatflows/${other}`, { token: limited.apiKey })).status).toBe(200);
  });

  it("an unknown chatflow is a 404 (public or not), a malformed id a 400", async () => {
    await expectError(await call("GET", `/public-chatflows/${crypto.randomUUID()}`, { token: null }), 404);
    await expectError(await call("GET", "/public-chatflows/not-a-uuid", { token: null }), 400);
  });
});
