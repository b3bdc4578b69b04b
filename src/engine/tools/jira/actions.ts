// Flowise's Jira operations (its tools/Jira/core): per Type (issues, comments, users) the options of
// the node's actions input, each one structured tool with Flowise's name, description and argument
// schema, and the REST call it makes under {jiraHost}/rest/api/{3|2}/. `inputs` names the node inputs
// that fix an argument (see jira.ts).
import { z } from "zod";
import type { JiraCall } from "./client";

// biome-ignore lint/suspicious/noExplicitAny: the arguments are the action's zod schema's, checked by the tool.
export type Args = Record<string, any>;

export interface JiraAction {
  option: string;
  name: string;
  description: string;
  schema: z.ZodObject<z.ZodRawShape>;
  /** Node inputs that fix an argument when filled: argument → input name. */
  inputs?: Record<string, string>;
  /** Flowise's words for failures: "Error listing issues: …". */
  doing: string;
  /** What the model reads when Jira answers an empty body (204). */
  done?: string;
  run(args: Args, jira: JiraCall): Promise<string>;
}

const seg = (value: unknown): string => encodeURIComponent(String(value ?? ""));
const issueKey = () => z.string().describe("Issue key (e.g., PROJ-123)");
const paging = {
  maxResults: z.number().optional().default(50).describe("Maximum number of results to return"),
  startAt: z.number().optional().default(0).describe("Index of the first result to return"),
};
/** Paging as Flowise sends it: only values that are set and not 0. */
const pageQuery = (a: Args) => ({ maxResults: a.maxResults || undefined, startAt: a.startAt || undefined });

/** Pages read at most on Jira Cloud (its search has no offset; a page holds at most 100 issues with fields). */
const CLOUD_SEARCH_PAGES = 10;

/**
 * Jira Cloud's issue search: GET /search/jql (Atlassian removed GET /search, which answers 410 —
 * CHANGE-2046). It answers only ids unless `fields` asks for more, pages by nextPageToken instead of
 * startAt, and answers fewer issues than `maxResults` asks for (100 with fields: Jira caps the page).
 * So pages are read (at most CLOUD_SEARCH_PAGES) until startAt + maxResults issues are in, the first startAt skipped.
 */
async function searchCloud(jira: JiraCall, jql: string, maxResults: number, startAt: number): Promise<string> {
  const want = startAt + maxResults;
  const issues: unknown[] = [];
  let nextPageToken: string | undefined;
  for (let page = 0; page < CLOUD_SEARCH_PAGES; page++) {
    const query = { jql: jql || undefined, fields: "*navigable", maxResults: want - issues.length, nextPageToken };
    const text = await jira.call("GET", "search/jql", { query });
    const answer = JSON.parse(text) as { issues?: unknown[]; nextPageToken?: string };
    // One page holding all that was asked for: Jira's answer as it is.
    if (page === 0 && !startAt && (!answer.nextPageToken || (answer.issues?.length ?? 0) >= want)) return text;
    issues.push(...(answer.issues ?? []));
    nextPageToken = answer.nextPageToken;
    if (!nextPageToken || issues.length >= want) break;
  }
  return JSON.stringify({ issues: issues.slice(startAt, want), ...(nextPageToken ? { nextPageToken } : {}) });
}

/** Issue fields from the arguments: summary, description (rich text), priority, assignee. */
function issueFields(a: Args, jira: JiraCall): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (a.summary) fields.summary = a.summary;
  if (a.description) fields.description = jira.text(a.description);
  if (a.priority) fields.priority = { name: a.priority };
  if (a.assigneeAccountId) fields.assignee = { accountId: a.assigneeAccountId };
  return fields;
}

const issueInputs = { projectKey: "projectKey", issueType: "issueType", summary: "issueSummary", description: "issueDescription" };

export const issueActions: JiraAction[] = [
  {
    option: "listIssues",
    name: "list_issues",
    description: "List issues from Jira using JQL query",
    doing: "listing issues",
    schema: z.object({
      projectKey: z.string().optional().describe("Project key to filter issues"),
      jql: z.string().optional().describe("JQL query for filtering issues"),
      ...paging,
    }),
    inputs: { projectKey: "projectKey", jql: "jqlQuery", maxResults: "issueMaxResults" },
    run: (a, jira) => {
      let jql = String(a.jql ?? "");
      if (a.projectKey && !jql.includes("project")) jql = jql ? `project = ${a.projectKey} AND (${jql})` : `project = ${a.projectKey}`;
      if (jira.cloud) return searchCloud(jira, jql, a.maxResults || 50, a.startAt || 0);
      return jira.call("GET", "search", { query: { jql: jql || undefined, ...pageQuery(a) } });
    },
  },
  {
    option: "createIssue",
    name: "create_issue",
    description: "Create a new issue in Jira",
    doing: "creating issue",
    schema: z.object({
      projectKey: z.string().describe("Project key where the issue will be created"),
      issueType: z.string().describe("Type of issue (Bug, Task, Story, etc.)"),
      summary: z.string().describe("Issue summary/title"),
      description: z.string().optional().describe("Issue description"),
      priority: z.string().optional().describe("Issue priority (Highest, High, Medium, Low, Lowest)"),
      assigneeAccountId: z.string().optional().describe("Account ID of the assignee"),
      labels: z.array(z.string()).optional().describe("Labels to add to the issue"),
    }),
    inputs: { ...issueInputs, priority: "issuePriority", assigneeAccountId: "assigneeAccountId" },
    run: (a, jira) => {
      const fields = { project: { key: a.projectKey }, issuetype: { name: a.issueType }, ...issueFields(a, jira) };
      return jira.call("POST", "issue", { body: { fields: a.labels ? { ...fields, labels: a.labels } : fields } });
    },
  },
  {
    option: "getIssue",
    name: "get_issue",
    description: "Get a specific issue from Jira",
    doing: "getting issue",
    schema: z.object({ issueKey: issueKey() }),
    inputs: { issueKey: "issueKey" },
    run: (a, jira) => jira.call("GET", `issue/${seg(a.issueKey)}`),
  },
  {
    option: "updateIssue",
    name: "update_issue",
    description: "Update an existing issue in Jira",
    doing: "updating issue",
    done: "Issue updated successfully",
    schema: z.object({
      issueKey: issueKey(),
      summary: z.string().optional().describe("Updated issue summary/title"),
      description: z.string().optional().describe("Updated issue description"),
      priority: z.string().optional().describe("Updated issue priority"),
      assigneeAccountId: z.string().optional().describe("Account ID of the new assignee"),
    }),
    inputs: {
      issueKey: "issueKey",
      summary: "issueSummary",
      description: "issueDescription",
      priority: "issuePriority",
      assigneeAccountId: "assigneeAccountId",
    },
    run: (a, jira) => jira.call("PUT", `issue/${seg(a.issueKey)}`, { body: { fields: issueFields(a, jira) } }),
  },
  {
    option: "deleteIssue",
    name: "delete_issue",
    description: "Delete an issue from Jira",
    doing: "deleting issue",
    done: "Issue deleted successfully",
    schema: z.object({ issueKey: issueKey() }),
    inputs: { issueKey: "issueKey" },
    run: (a, jira) => jira.call("DELETE", `issue/${seg(a.issueKey)}`),
  },
  {
    option: "assignIssue",
    name: "assign_issue",
    description: "Assign an issue to a user in Jira",
    doing: "assigning issue",
    done: "Issue assigned successfully",
    schema: z.object({ issueKey: issueKey(), assigneeAccountId: z.string().describe("Account ID of the user to assign") }),
    inputs: { issueKey: "issueKey", assigneeAccountId: "assigneeAccountId" },
    run: (a, jira) => jira.call("PUT", `issue/${seg(a.issueKey)}/assignee`, { body: { accountId: a.assigneeAccountId } }),
  },
  {
    option: "transitionIssue",
    name: "transition_issue",
    description: "Transition an issue to a different status in Jira",
    doing: "transitioning issue",
    done: "Issue transitioned successfully",
    schema: z.object({ issueKey: issueKey(), transitionId: z.string().describe("ID of the transition to execute") }),
    inputs: { issueKey: "issueKey", transitionId: "transitionId" },
    run: (a, jira) => jira.call("POST", `issue/${seg(a.issueKey)}/transitions`, { body: { transition: { id: a.transitionId } } }),
  },
];

const commentPath = (a: Args) => `issue/${seg(a.issueKey)}/comment/${seg(a.commentId)}`;

export const commentActions: JiraAction[] = [
  {
    option: "listComments",
    name: "list_comments",
    description: "List comments for a Jira issue",
    doing: "listing comments",
    schema: z.object({ issueKey: z.string().describe("Issue key to get comments for"), ...paging }),
    inputs: { issueKey: "commentIssueKey" },
    run: (a, jira) => jira.call("GET", `issue/${seg(a.issueKey)}/comment`, { query: pageQuery(a) }),
  },
  {
    option: "createComment",
    name: "create_comment",
    description: "Create a comment on a Jira issue",
    doing: "creating comment",
    schema: z.object({
      issueKey: z.string().describe("Issue key to add comment to"),
      text: z.string().describe("Comment text content"),
      visibility: z
        .object({ type: z.string().optional(), value: z.string().optional() })
        .optional()
        .describe("Comment visibility settings"),
    }),
    inputs: { issueKey: "commentIssueKey", text: "commentText" },
    run: (a, jira) => {
      const body: Args = { body: jira.text(a.text) };
      if (a.visibility) body.visibility = a.visibility;
      return jira.call("POST", `issue/${seg(a.issueKey)}/comment`, { body });
    },
  },
  {
    option: "getComment",
    name: "get_comment",
    description: "Get a specific comment from a Jira issue",
    doing: "getting comment",
    schema: z.object({ issueKey: z.string().describe("Issue key"), commentId: z.string().describe("Comment ID") }),
    inputs: { issueKey: "commentIssueKey", commentId: "commentId" },
    run: (a, jira) => jira.call("GET", commentPath(a)),
  },
  {
    option: "updateComment",
    name: "update_comment",
    description: "Update a comment on a Jira issue",
    doing: "updating comment",
    done: "Comment updated successfully",
    schema: z.object({
      issueKey: z.string().describe("Issue key"),
      commentId: z.string().describe("Comment ID"),
      text: z.string().describe("Updated comment text"),
    }),
    inputs: { issueKey: "commentIssueKey", commentId: "commentId", text: "commentText" },
    run: (a, jira) => jira.call("PUT", commentPath(a), { body: { body: jira.text(a.text) } }),
  },
  {
    option: "deleteComment",
    name: "delete_comment",
    description: "Delete a comment from a Jira issue",
    doing: "deleting comment",
    done: "Comment deleted successfully",
    schema: z.object({ issueKey: z.string().describe("Issue key"), commentId: z.string().describe("Comment ID to delete") }),
    inputs: { issueKey: "commentIssueKey", commentId: "commentId" },
    run: (a, jira) => jira.call("DELETE", commentPath(a)),
  },
];

const accountId = (description: string) => z.object({ accountId: z.string().describe(description) });

export const userActions: JiraAction[] = [
  {
    option: "searchUsers",
    name: "search_users",
    description: "Search for users in Jira",
    doing: "searching users",
    schema: z.object({ query: z.string().describe("Query string for user search"), ...paging }),
    inputs: { query: "userQuery", maxResults: "userMaxResults" },
    run: (a, jira) => jira.call("GET", "user/search", { query: { query: a.query || undefined, ...pageQuery(a) } }),
  },
  {
    option: "getUser",
    name: "get_user",
    description: "Get a specific user from Jira",
    doing: "getting user",
    schema: accountId("Account ID of the user"),
    inputs: { accountId: "userAccountId" },
    run: (a, jira) => jira.call("GET", "user", { query: { accountId: a.accountId } }),
  },
  {
    option: "createUser",
    name: "create_user",
    description: "Create a new user in Jira",
    doing: "creating user",
    schema: z.object({
      emailAddress: z.string().describe("Email address of the user"),
      displayName: z.string().describe("Display name of the user"),
      username: z.string().optional().describe("Username (deprecated in newer versions)"),
    }),
    inputs: { emailAddress: "userEmail", displayName: "userDisplayName" },
    run: (a, jira) => {
      const body: Args = { emailAddress: a.emailAddress, displayName: a.displayName };
      if (a.username) body.username = a.username;
      return jira.call("POST", "user", { body });
    },
  },
  {
    option: "updateUser",
    name: "update_user",
    description: "Update an existing user in Jira",
    doing: "updating user",
    done: "User updated successfully",
    schema: z.object({
      accountId: z.string().describe("Account ID of the user"),
      emailAddress: z.string().optional().describe("Updated email address"),
      displayName: z.string().optional().describe("Updated display name"),
    }),
    inputs: { accountId: "userAccountId", emailAddress: "userEmail", displayName: "userDisplayName" },
    run: (a, jira) => {
      const body: Args = {};
      if (a.emailAddress) body.emailAddress = a.emailAddress;
      if (a.displayName) body.displayName = a.displayName;
      return jira.call("PUT", "user", { query: { accountId: a.accountId }, body });
    },
  },
  {
    option: "deleteUser",
    name: "delete_user",
    description: "Delete a user from Jira",
    doing: "deleting user",
    done: "User deleted successfully",
    schema: accountId("Account ID of the user to delete"),
    inputs: { accountId: "userAccountId" },
    run: (a, jira) => jira.call("DELETE", "user", { query: { accountId: a.accountId } }),
  },
];

/** Flowise's jiraType values and the input listing each one's actions. */
export const JIRA_GROUPS: Record<string, { input: string; actions: JiraAction[] }> = {
  issues: { input: "issueActions", actions: issueActions },
  comments: { input: "commentActions", actions: commentActions },
  users: { input: "userActions", actions: userActions },
};
