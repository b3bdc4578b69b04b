// githubMCP and slackMCP as a user runs them: a saved chatflow whose Tool Agent has the node, asked
// through POST /prediction (the scripted model calls the tools), and the canvas's Available Actions.
// githubMCP reaches GitHub's hosted MCP server (Flowise 3.1.4 does; stand-in: test/standin/mcp.mjs);
// slackMCP reaches Slack's hosted one with a slackOAuth2 credential, and runs server-slack's tools
// natively over the Web API with a slackApi credential (stand-in: test/standin/slack.mjs).
import { afterEach, describe, expect, inject, it } from "vitest";
import { enterpriseMcpUrl } from "../../src/engine/tools/mcp/presets";
import { run } from "../agentflow/helpers";
import { runnable } from "../agentflow/templates";
import { call, json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, marker, runtimeWith } from "./helpers";

const mcpUrl = () => inject("mcpUrl");
const slackUrl = () => inject("slackUrl");
const oauth = () => inject("oauth2Url");
const FUTURE = () => new Date(Date.now() + 3600_000).toISOString();

type McpCall = { path: string; tool: string; args: Record<string, unknown>; authorization: string | null };
const mcpCalls = async (m: string): Promise<McpCall[]> => (await fetch(`${mcpUrl()}/calls?contains=${encodeURIComponent(m)}`)).json();
type SlackReq = { method: string; path: string; headers: Record<string, string>; body?: Record<string, unknown> };
const slackRequests = async (m: string): Promise<SlackReq[]> =>
  ((await (await fetch(`${slackUrl()}/requests`)).json()) as SlackReq[]).filter((r) => JSON.stringify(r).includes(m));

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});
const vars = (v: Record<string, string>) => {
  restore?.();
  restore = setVars(v);
};

/** A Tool Agent with one MCP node, saved; answers its id. */
async function saveAgent(name: string, inputs: Record<string, unknown>, credentialId?: string): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-mcp-gh-slack" });
  const flow = JSON.parse(
    toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [{ id: `${name}_0`, name, inputs }] }),
  );
  if (credentialId) flow.nodes.find((n: { id: string }) => n.id === `${name}_0`).data.credential = credentialId;
  return (await json("POST", "/chatflows", { body: { name: `mcp ${name}`, flowData: JSON.stringify(flow) } })).id;
}
const predict = (id: string, question: string) => call("POST", `/prediction/${id}`, { body: { question } });
const answer = async (id: string, question: string) => {
  const res = await predict(id, question);
  expect(res.status).toBe(200);
  return ((await res.json()) as { text: string }).text;
};
const listActions = async (node: string, cred: string | undefined, inputs: Record<string, unknown> = {}) => {
  const res = await call("POST", `/node-load-method/${node}`, { body: { loadMethod: "listActions", credential: cred, inputs } });
  expect(res.status).toBe(200);
  return (await res.json()) as { label: string; name: string; description: string }[];
};

describe("githubMCP", () => {
  it("reaches GitHub's MCP server (GITHUB_MCP_BASE_URL, used as it is) with the access token as a bearer", async () => {
    vars({ GITHUB_MCP_BASE_URL: `${mcpUrl()}/secure/mcp` });
    const cred = await credential("githubApi", { accessToken: "mcp-secret" });
    const id = await saveAgent("githubMCP", { mcpActions: '["echo","add"]' }, cred);
    const m = marker();
    expect(await answer(id, `${callOf("echo", { text: m })} ${m}`)).toBe(`tools said: mcp echo: ${m}`);
    expect(await mcpCalls(m)).toEqual([{ path: "/secure/mcp", tool: "echo", args: { text: m }, authorization: "Bearer mcp-secret" }]);
  });

  it("Available Actions: the server's tools, sorted, labels upper-case; no credential: Flowise's error option", async () => {
    vars({ GITHUB_MCP_BASE_URL: `${mcpUrl()}/secure/mcp` });
    const options = await listActions("githubMCP", await credential("githubApi", { accessToken: "mcp-secret" }));
    expect(options.map((o) => o.name)).toEqual(["add", "big", "echo", "fail"]);
    expect(options[2]).toEqual({ label: "ECHO", name: "echo", description: "Echoes the text back" });
    expect(await listActions("githubMCP", undefined)).toEqual([
      { label: "No Available Actions", name: "error", description: expect.stringMatching(/needs a githubApi credential with accessToken/) },
    ]);
  });

  it("a token the server refuses: 502 without it; a private GITHUB_MCP_BASE_URL: 400 naming the var", async () => {
    vars({ GITHUB_MCP_BASE_URL: `${mcpUrl()}/secure/mcp` });
    const wrong = await saveAgent(
      "githubMCP",
      { mcpActions: '["echo"]' },
      await credential("githubApi", { accessToken: "ghp-leaked-123" }),
    );
    const denied = await predict(wrong, "hi");
    expect(denied.status).toBe(502);
    expect(await denied.text()).not.toContain("ghp-leaked-123");
    vars({ GITHUB_MCP_BASE_URL: "http://10.9.8.7/mcp/" });
    const res = await predict(wrong, "hi");
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/GITHUB_MCP_BASE_URL refused by the outbound policy/);
  });

  it("GitHub Enterprise: Flowise's copilot-api.<host>/mcp", () => {
    expect(enterpriseMcpUrl(" https://octocorp.ghe.com/ ")).toBe("https://copilot-api.octocorp.ghe.com/mcp");
    expect(enterpriseMcpUrl("https://ghe.example.com:8443/x")).toBe("https://copilot-api.ghe.example.com:8443/mcp");
  });
});

describe("slackMCP with a Bot Token (server-slack's tools, native)", () => {
  const botCredential = (botToken = "xoxb-stand-in-token") => credential("slackApi", { botToken, teamId: "T0TEAM" });
  const ALL = [
    "slack_add_reaction",
    "slack_get_channel_history",
    "slack_get_thread_replies",
    "slack_get_user_profile",
    "slack_get_users",
    "slack_list_channels",
    "slack_post_message",
    "slack_reply_to_thread",
  ];

  it("each tool calls Slack's Web API with the bot token and answers Slack's JSON as the server does", async () => {
    vars({ SLACK_API_BASE_URL: `${slackUrl()}/api` });
    const id = await saveAgent("slackMCP", { mcpActions: JSON.stringify(ALL) }, await botCredential());
    const m = marker();
    const ch = `C${m}`;
    const calls = [
      callOf("slack_post_message", { channel_id: ch, text: `hello ${m}` }),
      callOf("slack_reply_to_thread", { channel_id: ch, thread_ts: "1700000000.000100", text: "a reply" }),
      callOf("slack_add_reaction", { channel_id: ch, timestamp: "1700000000.000100", reaction: "thumbsup" }),
      callOf("slack_get_channel_history", { channel_id: ch }),
      callOf("slack_get_thread_replies", { channel_id: ch, thread_ts: "1700000000.000100" }),
      callOf("slack_get_user_profile", { user_id: `U${m}` }),
      callOf("slack_list_channels", { limit: 500, cursor: `cur-${m}` }),
      callOf("slack_get_users", { cursor: `usr-${m}` }),
    ];
    const text = await answer(id, calls.join(" "));
    const results = text.replace(/^tools said: /, "").split(" | ");
    expect(results[0]).toBe(
      JSON.stringify({
        ok: true,
        channel: ch,
        ts: "1700000000.000200",
        message: { type: "message", text: `hello ${m}`, ts: "1700000000.000200" },
      }),
    );
    expect(results[2]).toBe('{"ok":true}');
    expect(JSON.parse(results[3]).messages[0].text).toBe(`hello from ${ch}`);
    expect(JSON.parse(results[5])).toEqual({ ok: true, profile: { real_name: `Profile of U${m}`, title: "Rainmaker" } });
    const sent = await slackRequests(m);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/chat.postMessage",
      "POST /api/chat.postMessage",
      "POST /api/reactions.add",
      `GET /api/conversations.history?channel=${ch}&limit=10`,
      `GET /api/conversations.replies?channel=${ch}&ts=1700000000.000100`,
      `GET /api/users.profile.get?user=U${m}&include_labels=true`,
      `GET /api/conversations.list?types=public_channel&exclude_archived=true&limit=200&team_id=T0TEAM&cursor=cur-${m}`,
      `GET /api/users.list?limit=100&team_id=T0TEAM&cursor=usr-${m}`,
    ]);
    expect(sent.map((r) => r.body)).toEqual([
      { channel: ch, text: `hello ${m}` },
      { channel: ch, thread_ts: "1700000000.000100", text: "a reply" },
      { channel: ch, timestamp: "1700000000.000100", name: "thumbsup" },
      ...Array(5).fill(undefined),
    ]);
    for (const r of sent)
      expect(r.headers).toMatchObject({ authorization: "Bearer xoxb-stand-in-token", "content-type": "application/json" });
  });

  it("Slack's errors reach the model as tool errors with the server's text (ok:false, {error}), never the token", async () => {
    vars({ SLACK_API_BASE_URL: `${slackUrl()}/api` });
    const m = marker();
    const id = await saveAgent("slackMCP", { mcpActions: '["slack_post_message"]' }, await botCredential());
    const missing = callOf("slack_post_message", { channel_id: "C-missing", text: m });
    const empty = callOf("slack_post_message", { channel_id: `C${m}`, text: "" });
    expect(await answer(id, `${missing} ${empty}`)).toBe(
      'tools said: Error: {"ok":false,"error":"channel_not_found"} | Error: {"error":"Missing required arguments: channel_id and text"}',
    );
    const wrong = await saveAgent("slackMCP", { mcpActions: '["slack_post_message"]' }, await botCredential("xoxb-leaked-999"));
    expect(await answer(wrong, `${callOf("slack_post_message", { channel_id: `C${m}`, text: "x" })}`)).toBe(
      'tools said: Error: {"ok":false,"error":"invalid_auth"}',
    );
    vars({ SLACK_API_BASE_URL: `${slackUrl()}/down/api` });
    const down = await answer(wrong, `${callOf("slack_post_message", { channel_id: `C${m}`, text: "x" })}`);
    expect(JSON.parse(down.replace(/^tools said: Error: /, ""))).toEqual({
      error: expect.stringMatching(/^Slack answered 500 .*slack is down/),
    });
    expect(down).not.toContain("xoxb-leaked-999");
  });

  it("limits are sent within Slack's ranges; a short history page is followed by its cursor up to the limit", async () => {
    vars({ SLACK_API_BASE_URL: `${slackUrl()}/api` });
    const id = await saveAgent("slackMCP", { mcpActions: '["slack_get_channel_history","slack_get_users"]' }, await botCredential());
    const m = marker();
    const calls = [
      callOf("slack_get_channel_history", { channel_id: `C${m}`, limit: 5000 }),
      callOf("slack_get_channel_history", { channel_id: `C${m}`, limit: -3 }),
      callOf("slack_get_users", { limit: 0, cursor: `u-${m}` }),
      callOf("slack_get_channel_history", { channel_id: `Cshort-many-40-${m}`, limit: 35 }),
    ];
    const results = (await answer(id, calls.join(" "))).replace(/^tools said: /, "").split(" | ");
    const paths = (await slackRequests(m)).map((r) => r.path);
    expect(paths).toEqual([
      `/api/conversations.history?channel=C${m}&limit=999`,
      `/api/conversations.history?channel=C${m}&limit=1`,
      `/api/users.list?limit=1&team_id=T0TEAM&cursor=u-${m}`,
      `/api/conversations.history?channel=Cshort-many-40-${m}&limit=35`,
      `/api/conversations.history?channel=Cshort-many-40-${m}&limit=20&cursor=next%3A15`,
      `/api/conversations.history?channel=Cshort-many-40-${m}&limit=5&cursor=next%3A30`,
    ]);
    const history = JSON.parse(results[3]);
    expect(history.messages).toHaveLength(35);
    expect(history.messages.at(-1).text).toBe(`message 35 in Cshort-many-40-${m}`);
    expect(history).toMatchObject({ ok: true, has_more: true, response_metadata: { next_cursor: "next:35" } });
  });

  it("a rate-limited call (HTTP 429, ok:false ratelimited) is a tool error with Slack's text", async () => {
    vars({ SLACK_API_BASE_URL: `${slackUrl()}/api` });
    const id = await saveAgent("slackMCP", { mcpActions: '["slack_post_message"]' }, await botCredential());
    const m = marker();
    const limited = callOf("slack_post_message", { channel_id: `Cratelimited-${m}`, text: "hi" });
    expect(await answer(id, limited)).toBe('tools said: Error: {"ok":false,"error":"ratelimited"}');
    expect((await slackRequests(m)).map((r) => r.body)).toEqual([{ channel: `Cratelimited-${m}`, text: "hi" }]);
  });

  it("a private SLACK_API_BASE_URL and a credential without Team ID are 400s", async () => {
    vars({ SLACK_API_BASE_URL: "http://192.168.1.9/api" });
    const id = await saveAgent("slackMCP", { mcpActions: '["slack_post_message"]' }, await botCredential());
    const res = await predict(id, "hi");
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/SLACK_API_BASE_URL refused by the outbound policy/);
    const noTeam = await saveAgent("slackMCP", { mcpActions: "[]" }, await credential("slackApi", { botToken: "xoxb-1" }));
    const bad = await predict(noTeam, "hi");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/Missing Slack credentials/);
  });

  it("Available Actions: the server's eight tools with its descriptions, no call to Slack", async () => {
    const before = ((await (await fetch(`${slackUrl()}/requests`)).json()) as unknown[]).length;
    const options = await listActions("slackMCP", await botCredential());
    expect(options.map((o) => o.name)).toEqual(ALL);
    expect(options.find((o) => o.name === "slack_post_message")).toEqual({
      label: "SLACK_POST_MESSAGE",
      name: "slack_post_message",
      description: "Post a new message to a Slack channel",
    });
    expect(((await (await fetch(`${slackUrl()}/requests`)).json()) as unknown[]).length).toBe(before);
  });
});

describe("Flowise's Workplace Chat template with a slackApi credential", () => {
  it("its Tool node posts the agent's answer with slack_post_message; the reply is Slack's JSON", async () => {
    const cred = await credential("slackApi", { botToken: "xoxb-stand-in-token", teamId: "T0TEAM" });
    const g = runnable("Workplace Chat", {
      patch: (n) => {
        Object.assign((n.get("toolAgentflow_0")!.data.inputs!.toolAgentflowSelectedToolConfig as object) ?? {}, {
          FLOWISE_CREDENTIAL_ID: cred,
        });
        Object.assign(n.get("toolAgentflow_1")!.data.inputs!, {
          toolAgentflowSelectedTool: "currentDateTime",
          toolAgentflowSelectedToolConfig: {},
        });
      },
    });
    const m = marker();
    const out = await run(
      g,
      { question: `standup notes ${m}` },
      { ctx: { runtime: runtimeWith({ SLACK_API_BASE_URL: `${slackUrl()}/api` }) } },
    );
    expect(out.state).toBe("FINISHED");
    const [posted] = await slackRequests(m);
    expect(posted).toMatchObject({
      method: "POST",
      path: "/api/chat.postMessage",
      headers: { authorization: "Bearer xoxb-stand-in-token" },
    });
    expect(posted.body).toEqual({ channel: "ABCDEFG", text: expect.stringContaining(m) });
    const slackOut = JSON.stringify(out.executedData?.find((e) => e.nodeId === "toolAgentflow_0")?.data.output);
    expect(slackOut).toContain('\\"ok\\":true');
  });
});

describe("slackMCP with a slackOAuth2 credential (Slack's hosted MCP server)", () => {
  it("the user token as a bearer at SLACK_MCP_BASE_URL", async () => {
    vars({ SLACK_MCP_BASE_URL: `${mcpUrl()}/secure/mcp` });
    const cred = await credential("slackOAuth2", { access_token: "mcp-secret", expires_at: FUTURE() });
    const id = await saveAgent("slackMCP", { mcpActions: '["echo"]' }, cred);
    const m = marker();
    expect(await answer(id, `${callOf("echo", { text: m })} ${m}`)).toBe(`tools said: mcp echo: ${m}`);
    expect(await mcpCalls(m)).toEqual([{ path: "/secure/mcp", tool: "echo", args: { text: m }, authorization: "Bearer mcp-secret" }]);
    expect((await listActions("slackMCP", cred)).map((o) => o.name)).toEqual(["add", "big", "echo", "fail"]);
  });

  it("an expired token is refreshed at the credential's token endpoint first", async () => {
    vars({ SLACK_MCP_BASE_URL: `${mcpUrl()}/mcp` });
    const m = marker();
    const plainDataObj = {
      clientId: "oauth-client",
      clientSecret: "oauth-secret",
      accessTokenUrl: `${oauth()}/token`,
      access_token: `at-old-${m}`,
      refresh_token: `rt-${m}`,
      expires_at: new Date(Date.now() - 60_000).toISOString(),
    };
    const cred = (await json("POST", "/credentials", { body: { name: `slack ${m}`, credentialName: "slackOAuth2", plainDataObj } })).id;
    const id = await saveAgent("slackMCP", { mcpActions: '["echo"]' }, cred);
    expect(await answer(id, `${callOf("echo", { text: m })} ${m}`)).toBe(`tools said: mcp echo: ${m}`);
    const [sent] = await mcpCalls(m);
    expect(sent.authorization).toMatch(/^Bearer at-refreshed-\d+$/);
  });
});
