// jira (credential jiraApi: username, accessToken — Basic auth): a project's issues through Jira's
// enhanced JQL search (GET {host}/rest/api/2/search/jql?jql=project=KEY[ AND created>=DATE]&maxResults
// &fields=*navigable&nextPageToken), following nextPageToken until the last page, as LangChain's
// JiraProjectLoader reads them: one document per issue in its text layout, metadata {id, title, host,
// projectKey}. Jira Cloud removed the older /rest/api/2/search (CHANGE-2046: a 410) that LangChain
// still calls; a server without /search/jql (Jira Data Center answers 404) is read through
// /rest/api/2/search with startAt. `host` is the flow's choice: under the outbound request rule.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedCall } from "./call";

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const o = (v: unknown): Obj => (isObject(v) ? v : {});
const name = (v: unknown) => o(v).name;
const json = (text: string): Obj => {
  try {
    return o(JSON.parse(text));
  } catch {
    throw fail("UPSTREAM_FAILED", "Jira answered something that is not JSON");
  }
};

const mainInfo = (issue: Obj, host: string) => `${issue.key} (ID ${issue.id}) - ${o(issue.fields).summary} (${host}/browse/${issue.key})`;

/** The issue as LangChain's JiraDocumentConverter writes it. */
function issueText(issue: Obj, host: string): string {
  const f = o(issue.fields);
  const project = o(f.project);
  let text = `Issue: ${mainInfo(issue, host)}\n`;
  text += `Project: ${project.name} (${project.key}, ID ${project.id})\n`;
  text += `Status: ${name(f.status)}\nPriority: ${name(f.priority)}\nType: ${name(f.issuetype)}\n`;
  text += `Creator: ${o(f.creator).displayName}\n`;
  if (Array.isArray(f.labels) && f.labels.length) text += `Labels: ${f.labels.join(", ")}\n`;
  text += `Created: ${f.created}\nUpdated: ${f.updated}\n`;
  if (f.reporter) text += `Reporter: ${o(f.reporter).displayName}\n`;
  text += `Assignee: ${o(f.assignee).displayName ?? "Unassigned"}\n`;
  if (f.duedate) text += `Due Date: ${f.duedate}\n`;
  if (f.timeestimate) text += `Time Estimate: ${f.timeestimate}\n`;
  if (f.timespent) text += `Time Spent: ${f.timespent}\n`;
  if (f.resolutiondate) text += `Resolution Date: ${f.resolutiondate}\n`;
  if (f.description) text += `Description: ${f.description}\n`;
  if (o(f.progress).percent) text += `Progress: ${o(f.progress).percent}%\n`;
  if (isObject(f.parent)) text += `Parent Issue: ${mainInfo(f.parent, host)}\n`;
  const subtasks = Array.isArray(f.subtasks) ? f.subtasks.filter(isObject) : [];
  if (subtasks.length) text += `Subtasks:\n${subtasks.map((s) => `  - ${mainInfo(s, host)}\n`).join("")}`;
  const links = Array.isArray(f.issuelinks) ? f.issuelinks.filter(isObject) : [];
  if (links.length) {
    text += "Issue Links:\n";
    for (const link of links) {
      text += `  - ${name(link.type)}\n`;
      if (isObject(link.inwardIssue)) text += `    - ${mainInfo(link.inwardIssue, host)}\n`;
      if (isObject(link.outwardIssue)) text += `    - ${mainInfo(link.outwardIssue, host)}\n`;
    }
  }
  return text;
}

async function loadJira(input: LoaderInput): Promise<Document[]> {
  const { config, limits } = input;
  const host = (typeof config.host === "string" ? config.host.trim() : "").replace(/\/+$/, "");
  if (!host) throw fail("INVALID_INPUT", "jira needs its host (https://your-domain.atlassian.net)");
  const projectKey = typeof config.projectKey === "string" && config.projectKey.trim() ? config.projectKey.trim() : "main";
  const limit = Number.parseInt(String(config.limitPerRequest ?? ""), 10) || 100;
  if (limit < 1) throw fail("INVALID_INPUT", "jira limitPerRequest must be at least 1");
  const createdAfter = typeof config.createdAfter === "string" ? config.createdAfter.trim() : "";
  if (createdAfter && Number.isNaN(Date.parse(createdAfter))) throw fail("INVALID_INPUT", "jira createdAfter must be a date (2024-01-01)");
  const cred = input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {};
  const { username, accessToken } = cred as Obj;
  if (typeof username !== "string" || typeof accessToken !== "string" || !username || !accessToken)
    throw fail("INVALID_INPUT", "jira needs a jiraApi credential with username and accessToken");
  const auth = `Basic ${btoa(`${username}:${accessToken}`)}`;
  const jql = [`project=${projectKey}`, ...(createdAfter ? [`created>=${new Date(createdAfter).toISOString().slice(0, 10)}`] : [])];
  const headers = { Authorization: auth, Accept: "application/json" };
  const get = (path: string, query: Record<string, string>, allowStatus?: number[]) =>
    hostedCall(input, {
      service: "Jira",
      url: `${host}/rest/api/2/${path}?${new URLSearchParams(query)}`,
      init: { headers },
      secrets: [accessToken, auth.slice(6)],
      allowStatus,
    });
  const base = { jql: jql.join(" AND "), maxResults: String(limit) };
  const issues: Obj[] = [];
  const add = (data: Obj) => {
    const page = Array.isArray(data.issues) ? data.issues.filter(isObject) : [];
    issues.push(...page);
    if (issues.length > limits.chunks) throw overLimit(limits, "chunks", `Jira project ${projectKey}`, issues.length);
    return page.length;
  };
  // The enhanced search returns only ids unless `fields` names more; *navigable is what /search gave.
  let answer = await get("search/jql", { ...base, fields: "*navigable" }, [404]);
  if (answer.status !== 404) {
    for (;;) {
      const data = json(answer.text);
      // A page may hold fewer than maxResults (Jira caps it); only a missing nextPageToken ends the list.
      const token = typeof data.nextPageToken === "string" ? data.nextPageToken : "";
      if (!add(data) || !token) break;
      answer = await get("search/jql", { ...base, fields: "*navigable", nextPageToken: token });
    }
  } else {
    // Data Center: startAt moves by what came back — maxResults over the server's cap returns fewer.
    for (let startAt = 0; ; ) {
      const data = json((await get("search", { ...base, startAt: String(startAt) })).text);
      const n = add(data);
      startAt += n;
      if (!n || (typeof data.total === "number" && startAt >= data.total)) break;
    }
  }
  return issues.map(
    (issue) =>
      new Document({ pageContent: issueText(issue, host), metadata: { id: issue.id, title: o(issue.fields).summary, host, projectKey } }),
  );
}

export const jiraLoader: LoaderDefinition = { name: "jira", label: "Jira", load: loadJira };
