// jiraTool in a Tool Agent through POST /prediction, the OpenAI-compatible stand-in model calling its
// tools (`[call NAME {json}]`) against the Jira stand-in (test/standin/jira.mjs): Jira Cloud with a
// jiraApi credential (Basic, API v3, rich text as Atlassian Document Format) and Server/Data Center
// with a jiraApiBearerToken one (Bearer, API v2, plain text); the REST calls each action makes, node
// inputs fixing arguments, and the failures: Jira's errors as tool errors without the token, a
// private host, a missing type, credential or action as 400s.
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, marker } from "./helpers";

const jira = () => inject("jiraUrl");
const CLOUD = { username: "jira-user@example.com", accessToken: "jira-token-1234567" };
const PAT = "jira-pat-7654321";
const BASIC = `Basic ${btoa(`${CLOUD.username}:${CLOUD.accessToken}`)}`;

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

type Received = { method: string; path: string; query: Record<string, string>; headers: Record<string, string | null>; body: any };
const received = async (contains: string): Promise<Received[]> =>
  (await fetch(`${jira()}/requests?contains=${encodeURIComponent(contains)}`)).json();

const adf = (text: string) => ({ type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] });

/** A Tool Agent chatflow with one jiraTool node (these inputs, this credential), saved; answers its id. */
async function saveJira(inputs: Record<string, unknown>, credentialId?: string): Promise<string> {
  restore ??= setVars({ OUTBOUND_ALLOW: new URL(jira()).host });
  const openai = await credential("openAIApi", { openAIApiKey: "sk-jira-tool" });
  const node = { id: "jiraTool_0", name: "jiraTool", label: "Jira", inputs: { jiraHost: jira(), ...inputs } };
  const flow = JSON.parse(toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [node] }));
  if (credentialId) flow.nodes.find((n: { id: string }) => n.id === node.id).data.credential = credentialId;
  return (await json("POST", "/chatflows", { body: { name: "jira tool", flowData: JSON.stringify(flow) } })).id;
}

const cloud = () => credential("jiraApi", CLOUD);
const server = () => credential("jiraApiBearerToken", { bearerToken: PAT });
const predict = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });
const ALL_ISSUES = ["listIssues", "createIssue", "getIssue", "updateIssue", "deleteIssue", "assignIssue", "transitionIssue"];

describe("jiraTool: issues on Jira Cloud (jiraApi, API v3)", () => {
  it("create, get, update, assign, transition, list and delete: the REST calls, Basic auth, ADF descriptions; Jira's JSON reaches the model", async () => {
    const id = await saveJira({ jiraType: "issues", issueActions: JSON.stringify(ALL_ISSUES) }, await cloud());
    const m = marker();
    const project = `P${m.toUpperCase()}`;
    const key = `${project}-1`;
    const calls = [
      callOf("create_issue", { projectKey: project, issueType: "Bug", summary: `Broken ${m}`, description: "It fails", priority: "High" }),
      callOf("get_issue", { issueKey: key }),
      callOf("update_issue", { issueKey: key, summary: `Fixed ${m}`, description: "Now it works" }),
      callOf("assign_issue", { issueKey: key, assigneeAccountId: "acc-1" }),
      callOf("transition_issue", { issueKey: key, transitionId: "31" }),
      callOf("list_issues", { projectKey: project, jql: "status = Done", maxResults: 5 }),
      callOf("delete_issue", { issueKey: key }),
    ];
    const answer = await predict(id, `Jira ${m} ${calls.join(" ")}`);
    const outputs = answer.usedTools.map((t: { tool: string; toolOutput: string }) => [t.tool, t.toolOutput]);
    expect(outputs.map(([tool]: string[]) => tool)).toEqual([
      "create_issue",
      "get_issue",
      "update_issue",
      "assign_issue",
      "transition_issue",
      "list_issues",
      "delete_issue",
    ]);
    expect(JSON.parse(outputs[0][1])).toMatchObject({ key });
    expect(JSON.parse(outputs[1][1])).toMatchObject({ key, fields: { summary: `Broken ${m}`, priority: { name: "High" } } });
    expect(outputs.slice(2, 5).map((o: string[]) => o[1])).toEqual([
      "Issue updated successfully",
      "Issue assigned successfully",
      "Issue transitioned successfully",
    ]);
    const listed = JSON.parse(outputs[5][1]);
    expect(listed.issues[0]).toMatchObject({
      key,
      fields: { summary: `Fixed ${m}`, status: { name: "Done" }, assignee: { accountId: "acc-1" } },
    });
    expect(outputs[6][1]).toBe("Issue deleted successfully");
    expect(answer.text).toContain("Issue deleted successfully");

    const reqs = await received(project);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /rest/api/3/issue",
      `GET /rest/api/3/issue/${key}`,
      `PUT /rest/api/3/issue/${key}`,
      `PUT /rest/api/3/issue/${key}/assignee`,
      `POST /rest/api/3/issue/${key}/transitions`,
      "GET /rest/api/3/search/jql",
      `DELETE /rest/api/3/issue/${key}`,
    ]);
    for (const r of reqs) expect(r.headers.authorization).toBe(BASIC);
    expect(reqs[0].body).toEqual({
      fields: {
        project: { key: project },
        issuetype: { name: "Bug" },
        summary: `Broken ${m}`,
        description: adf("It fails"),
        priority: { name: "High" },
      },
    });
    expect(reqs[2].body).toEqual({ fields: { summary: `Fixed ${m}`, description: adf("Now it works") } });
    expect(reqs[3].body).toEqual({ accountId: "acc-1" });
    expect(reqs[4].body).toEqual({ transition: { id: "31" } });
    expect(reqs[5].query).toEqual({ jql: `project = ${project} AND (status = Done)`, maxResults: "5", fields: "*navigable" });
  });

  it("node inputs fix arguments: the node's value wins over the model's, and the argument is optional for the model", async () => {
    const m = marker();
    const project = `N${m.toUpperCase()}`;
    const inputs = {
      jiraType: "issues",
      issueActions: '["createIssue","listIssues"]',
      projectKey: project,
      issueType: "Task",
      issueSummary: `Node summary ${m}`,
      jqlQuery: "status = 'To Do'",
      issueMaxResults: "7",
    };
    const id = await saveJira(inputs, await cloud());
    const answer = await predict(
      id,
      `Jira ${m} ${callOf("create_issue", { projectKey: "OTHER", summary: "model summary" })} ${callOf("list_issues", {})}`,
    );
    expect(answer.usedTools.map((t: { tool: string }) => t.tool)).toEqual(["create_issue", "list_issues"]);
    const [create, list] = await received(project);
    expect(create.body.fields).toEqual({ project: { key: project }, issuetype: { name: "Task" }, summary: `Node summary ${m}` });
    expect(list.query).toEqual({ jql: `project = ${project} AND (status = 'To Do')`, maxResults: "7", fields: "*navigable" });
  });

  it("listing on Jira Cloud uses /search/jql (GET /search answers 410 there): fields asked for, a startAt reached by skipping", async () => {
    const id = await saveJira({ jiraType: "issues", issueActions: JSON.stringify(ALL_ISSUES) }, await cloud());
    const m = marker();
    const project = `S${m.toUpperCase()}`;
    const made = [1, 2, 3].map((n) => callOf("create_issue", { projectKey: project, issueType: "Task", summary: `Task ${n} ${m}` }));
    const answer = await predict(
      id,
      `Jira ${m} ${made.join(" ")} ${callOf("list_issues", { projectKey: project, maxResults: 1, startAt: 1 })}`,
    );
    const listed = JSON.parse(answer.usedTools.at(-1).toolOutput);
    expect(listed.issues.map((i: { key: string; fields: { summary: string } }) => [i.key, i.fields.summary])).toEqual([
      [`${project}-2`, `Task 2 ${m}`],
    ]);
    const searches = (await received(project)).filter((r) => r.path.startsWith("/rest/api/3/search"));
    // Its search has no offset: the first startAt + maxResults are asked for, and the first startAt skipped.
    expect(searches.map((r) => [r.path, r.query])).toEqual([
      ["/rest/api/3/search/jql", { jql: `project = ${project}`, fields: "*navigable", maxResults: "2" }],
    ]);
  });

  it("listing past Jira Cloud's page cap (100 issues with fields) follows nextPageToken until maxResults are in", async () => {
    const id = await saveJira({ jiraType: "issues", issueActions: "listIssues" }, await cloud());
    const m = marker();
    const project = `BULK130${m.toUpperCase()}`;
    const answer = await predict(id, `Jira ${m} ${callOf("list_issues", { projectKey: project, maxResults: 120 })}`);
    const listed = JSON.parse(answer.usedTools.at(-1).toolOutput);
    expect(listed.issues).toHaveLength(120);
    expect([listed.issues[0].key, listed.issues[119].key]).toEqual([`${project}-1`, `${project}-120`]);
    expect(listed.nextPageToken).toEqual(expect.any(String));
    const searches = (await received(project)).filter((r) => r.path === "/rest/api/3/search/jql");
    // The second page asks only for what is missing, from the first page's token.
    expect(searches.map((r) => [r.query.maxResults, r.query.nextPageToken ?? null])).toEqual([
      ["120", null],
      ["20", expect.any(String)],
    ]);
  });

  it("Jira's errors are the tool's answer (Flowise's words, Jira's message), never the token", async () => {
    const id = await saveJira({ jiraType: "issues", issueActions: "getIssue" }, await cloud());
    const m = marker();
    const missing = await predict(id, `Jira ${m} ${callOf("get_issue", { issueKey: `NOPE${m}-9` })}`);
    expect(missing.text).toBe(
      "tools said: Error: Error getting issue: Jira API Error 404: Issue does not exist or you do not have permission to see it.",
    );
    const wrong = await credential("jiraApi", { username: CLOUD.username, accessToken: "jira-wrong-token-999" });
    const badId = await saveJira({ jiraType: "issues", issueActions: "getIssue" }, wrong);
    const denied = await predict(badId, `Jira ${m} ${callOf("get_issue", { issueKey: `AUTH${m}-1` })}`);
    expect(denied.text).toMatch(/^tools said: Error: Error getting issue: Jira API Error 401: You are not authenticated/);
    expect(JSON.stringify(denied)).not.toContain("jira-wrong-token-999");
  });
});

describe("jiraTool: comments on Server/Data Center (jiraApiBearerToken, API v2)", () => {
  it("create, list, get, update and delete comments: Bearer auth, /rest/api/2, plain-text bodies", async () => {
    const m = marker();
    const project = `C${m.toUpperCase()}`;
    const key = `${project}-1`;
    const pat = await server();
    // An issue to comment on, created straight at the stand-in (v2 takes a plain description).
    const created = await fetch(`${jira()}/rest/api/2/issue`, {
      method: "POST",
      headers: { Authorization: `Bearer ${PAT}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        fields: { project: { key: project }, issuetype: { name: "Task" }, summary: "commented", description: "plain" },
      }),
    });
    expect(created.status).toBe(201);
    const actions = ["listComments", "createComment", "getComment", "updateComment", "deleteComment"];
    const id = await saveJira({ jiraType: "comments", commentActions: actions.join(","), commentIssueKey: key }, pat);
    const first = await predict(id, `Comment ${m} ${callOf("create_comment", { text: `Looks good ${m}` })} ${callOf("list_comments", {})}`);
    const comment = JSON.parse(first.usedTools[0].toolOutput);
    expect(comment).toMatchObject({ body: `Looks good ${m}` });
    expect(JSON.parse(first.usedTools[1].toolOutput)).toMatchObject({ total: 1, comments: [{ id: comment.id }] });
    const cid = comment.id;
    const second = await predict(
      id,
      `Comment ${m} ${callOf("update_comment", { commentId: cid, text: `Edited ${m}` })} ${callOf("get_comment", { commentId: cid })} ` +
        callOf("delete_comment", { commentId: cid }),
    );
    expect(second.usedTools.map((t: { toolOutput: string }) => t.toolOutput)).toEqual([
      expect.stringContaining(`"body":"Edited ${m}"`),
      expect.stringContaining(`"body":"Edited ${m}"`),
      "Comment deleted successfully",
    ]);
    const reqs = (await received(project)).slice(1);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /rest/api/2/issue/${key}/comment`,
      `GET /rest/api/2/issue/${key}/comment`,
      `PUT /rest/api/2/issue/${key}/comment/${cid}`,
      `GET /rest/api/2/issue/${key}/comment/${cid}`,
      `DELETE /rest/api/2/issue/${key}/comment/${cid}`,
    ]);
    for (const r of reqs) expect(r.headers.authorization).toBe(`Bearer ${PAT}`);
    expect(reqs[0].body).toEqual({ body: `Looks good ${m}` });
    expect(reqs[1].query).toEqual({ maxResults: "50" });
  });
});

describe("jiraTool: users", () => {
  it("search, create, get, update and delete users: query strings and bodies as Jira takes them", async () => {
    const m = marker();
    const actions = ["searchUsers", "getUser", "createUser", "updateUser", "deleteUser"];
    const id = await saveJira({ jiraType: "users", userActions: actions }, await cloud());
    const made = await predict(
      id,
      `Users ${m} ${callOf("create_user", { emailAddress: `${m}@example.com`, displayName: `User ${m}` })} ` +
        callOf("search_users", { query: m, maxResults: 3 }),
    );
    const user = JSON.parse(made.usedTools[0].toolOutput);
    expect(user).toMatchObject({ emailAddress: `${m}@example.com`, displayName: `User ${m}` });
    expect(JSON.parse(made.usedTools[1].toolOutput)).toEqual([user]);
    const acc = user.accountId as string;
    const rest = await predict(
      id,
      `Users ${m} ${callOf("update_user", { accountId: acc, displayName: `Renamed ${m}` })} ${callOf("get_user", { accountId: acc })} ` +
        callOf("delete_user", { accountId: acc }),
    );
    expect(JSON.parse(rest.usedTools[1].toolOutput)).toMatchObject({ accountId: acc, displayName: `Renamed ${m}` });
    expect(rest.usedTools[2].toolOutput).toBe("User deleted successfully");
    const reqs = [
      ...(await received(`${m}@example.com`)),
      ...(await received(m)).filter((r) => r.method !== "POST" && r.query.query !== m),
    ];
    expect(reqs[0]).toMatchObject({
      method: "POST",
      path: "/rest/api/3/user",
      body: { emailAddress: `${m}@example.com`, displayName: `User ${m}` },
    });
    const byAccount = (await fetch(`${jira()}/requests?contains=${encodeURIComponent(`"accountId":"${acc}"`)}`).then((r) =>
      r.json(),
    )) as Received[];
    expect(byAccount.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PUT /rest/api/3/user",
      "GET /rest/api/3/user",
      "DELETE /rest/api/3/user",
    ]);
    expect(byAccount[0].body).toEqual({ displayName: `Renamed ${m}` });
    const search = (await received(m)).find((r) => r.path === "/rest/api/3/user/search");
    expect(search?.query).toEqual({ query: m, maxResults: "3" });
  });
});

describe("jiraTool: bad configuration", () => {
  const prediction = async (inputs: Record<string, unknown>, cred?: string) =>
    expectError(await call("POST", `/prediction/${await saveJira(inputs, cred)}`, { body: { question: "hi" } }), 400);

  it("a private host, a missing type or action, an unknown action, no credential, a custom CA: 400s saying what to fix", async () => {
    const cred = await cloud();
    const priv = await prediction({ jiraHost: "http://10.1.2.3", jiraType: "issues", issueActions: "getIssue" }, cred);
    expect(priv.message).toMatch(/^Outbound request refused: 10\.1\.2\.3 is a private address/);
    expect((await prediction({ issueActions: "getIssue" }, cred)).message).toContain("set jiraType to one of issues, comments, users");
    expect((await prediction({ jiraType: "users" }, cred)).message).toContain("choose at least one action in userActions");
    expect((await prediction({ jiraType: "users", userActions: "getIssue" }, cred)).message).toContain(
      "userActions has unknown actions getIssue",
    );
    expect((await prediction({ jiraType: "issues", issueActions: "getIssue" })).message).toContain(
      "needs a jiraApi credential (username and accessToken) or a jiraApiBearerToken credential",
    );
    const ca = await prediction(
      { jiraType: "issues", issueActions: "getIssue", enableSSL: true, caFile: "data:application/x-pem;base64,AAAA" },
      cred,
    );
    expect(ca.message).toContain("custom SSL certificate (caFile) cannot be trusted on Workers");
  });
});
