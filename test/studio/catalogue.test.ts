// The studio's node catalogue: GET /nodes (ETag, 304), /nodes/{name}, icons, credential types, and
// the catalogue held one-to-one to the engine's registries.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runnableNodeNames } from "../../src/engine/node-names";
import { call, expectError, json } from "../helpers";

type Param = { name: string; type: string; options?: { name: string }[]; loadMethod?: string; array?: Param[] };
type Node = {
  name: string;
  label: string;
  category: string;
  version: number;
  baseClasses: string[];
  inputs: Param[];
  credential?: { credentialNames: string[] };
};

async function manifest(): Promise<{ nodes: string[]; listed: string[]; credentials: string[] }> {
  const res = await (env as unknown as { ASSETS: Fetcher }).ASSETS.fetch("https://assets.local/_edgeflow/catalogue/manifest.json");
  return res.json();
}

describe("the node catalogue", () => {
  it("describes exactly the nodes the engine runs: every registered node has a descriptor and every descriptor a node", async () => {
    const { nodes } = await manifest();
    const runnable = runnableNodeNames();
    expect(nodes.filter((n) => !runnable.includes(n))).toEqual([]);
    expect(runnable.filter((n) => !nodes.includes(n))).toEqual([]);
    // Flowise's MCP presets run here (githubMCP: GitHub's hosted server; slackMCP: Slack's, or server-slack's tools natively).
    expect(nodes).toEqual(expect.arrayContaining(["githubMCP", "slackMCP"]));
  });

  it("offers Flowise 3.1.4's spellings of renamed nodes; the older spellings still run but are not listed", async () => {
    const listed = ((await json("GET", "/nodes")) as Node[]).map((n) => n.name);
    const runnable = runnableNodeNames();
    for (const [flowise, older] of [
      ["ollamaEmbedding", "ollamaEmbeddings"],
      ["upstashRedisBackedChatMemory", "UpstashRedisBackedChatMemory"],
      ["MySQLRecordManager", "mySQLRecordManager"],
    ]) {
      expect(listed).toContain(flowise);
      expect(listed).not.toContain(older);
      expect(runnable).toEqual(expect.arrayContaining([flowise, older]));
      expect((await call("GET", `/nodes/${older}`)).status).toBe(200);
    }
    expect(runnable).toContain("simpleStoreLlamaIndex");
  });

  it("GET /nodes lists the offered nodes in Flowise's shape, with an ETag; a repeat load is a 304", async () => {
    const res = await call("GET", "/nodes");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const etag = res.headers.get("etag");
    expect(etag).toBeTruthy();
    const nodes = (await res.json()) as Node[];
    const { listed } = await manifest();
    expect(nodes.map((n) => n.name).sort()).toEqual([...listed].sort());
    const openai = nodes.find((n) => n.name === "chatOpenAI")!;
    expect(openai).toMatchObject({ label: "OpenAI", category: "Chat Models", type: "ChatOpenAI" });
    expect(openai.baseClasses).toContain("BaseChatModel");
    expect(openai.credential?.credentialNames).toEqual(["openAIApi"]);
    expect(openai.inputs.find((i) => i.name === "modelName")).toMatchObject({ type: "asyncOptions", loadMethod: "listModels" });
    expect(openai).not.toHaveProperty("icon");

    const again = await call("GET", "/nodes", { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    const stale = await call("GET", "/nodes", { headers: { "If-None-Match": '"not-the-etag"' } });
    expect(stale.status).toBe(200);
  });

  it("?client= leaves out the inputs and options meant for other clients, as Flowise's filter does", async () => {
    const start = (nodes: Node[]) => nodes.find((n) => n.name === "startAgentflow")!.inputs.find((i) => i.name === "startInputType")!;
    const v2 = start(await json("GET", "/nodes?client=agentflowv2"));
    const sdk = start(await json("GET", "/nodes?client=agentflowsdk"));
    expect(v2.options!.map((o) => o.name)).toContain("formInput");
    expect(sdk.options!.map((o) => o.name)).toEqual(["chatInput"]);
    const agent = (await json<Node>("GET", "/nodes/agentAgentflow?client=agentflowsdk")).inputs.map((i) => i.name);
    expect(agent).not.toContain("agentKnowledgeDocumentStores");
    expect((await json<Node>("GET", "/nodes/agentAgentflow")).inputs.map((i) => i.name)).toContain("agentKnowledgeDocumentStores");
  });

  it("GET /nodes/{name}: a node's descriptor; names kept for old flows answer without being listed; unknown is 404", async () => {
    expect(await json<Node>("GET", "/nodes/llmChain")).toMatchObject({ name: "llmChain", category: "Chains" });
    const old = await json<Node>("GET", "/nodes/openAIToolAgent");
    expect(old.name).toBe("openAIToolAgent");
    expect((await json<Node[]>("GET", "/nodes")).map((n) => n.name)).not.toContain("openAIToolAgent");
    expect((await expectError(await call("GET", "/nodes/noSuchNode"), 404)).message).toContain("noSuchNode");
    await expectError(await call("GET", "/nodes/..%2Fmanifest"), 404);
  });

  it("needs a token for the descriptors, not for the icons", async () => {
    await expectError(await call("GET", "/nodes", { token: null }), 401);
    await expectError(await call("GET", "/nodes/chatOpenAI", { token: null }), 401);
    await expectError(await call("GET", "/components-credentials", { token: null }), 401);
    await expectError(await call("POST", "/node-load-method/chatOpenAI", { token: null, body: { loadMethod: "listModels" } }), 401);
    for (const path of ["/node-icon/chatOpenAI", "/node-icon/llmChain", "/components-credentials-icon/openAIApi"]) {
      const res = await call("GET", path, { token: null });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      expect(res.headers.get("cache-control")).toContain("public");
      expect(await res.text()).toContain("<svg");
    }
    await expectError(await call("GET", "/node-icon/nope", { token: null }), 404);
  });

  it("every node offered has an icon, and every credential type a node names is described", async () => {
    const { nodes, credentials } = await manifest();
    for (const name of nodes) expect((await call("GET", `/node-icon/${name}`, { token: null })).status, name).toBe(200);
    const types = await json<{ name: string; inputs: { name: string }[] }[]>("GET", "/components-credentials");
    expect(types.map((t) => t.name).sort()).toEqual([...credentials].sort());
    const named = (await json<Node[]>("GET", "/nodes")).flatMap((n) => n.credential?.credentialNames ?? []);
    for (const name of named) expect(credentials, name).toContain(name);
    const openai = await json<{ name: string; inputs: { name: string }[] }>("GET", "/components-credentials/openAIApi");
    expect(openai.inputs.map((i) => i.name)).toContain("openAIApiKey");
    await expectError(await call("GET", "/components-credentials/nope"), 404);
  });
});
