// One Jira site for a run: {jiraHost}/rest/api/{version}/… with the credential's auth (Basic
// username:accessToken → Jira Cloud, API v3; a bearerToken, Server/Data Center's personal access
// token → API v2, as Flowise chooses), under the outbound policy's request rule (the host is the
// flow's). Jira's answer goes to the model as its text; a failure is a ToolCallError with Jira's
// own messages ({errorMessages, errors}), never the token.
import { redact } from "../../../lib/redact";
import type { RunContext } from "../../core/ports";
import { ToolCallError, callService } from "../service";

export interface JiraAuth {
  header: string;
  /** "3" (Cloud, Basic) or "2" (Server/DC, bearer). */
  apiVersion: "2" | "3";
  secrets: string[];
}

export interface JiraCall {
  call(method: string, path: string, options?: { query?: Record<string, string | number | undefined>; body?: unknown }): Promise<string>;
  /** Jira Cloud (API v3), whose issue search is /search/jql (the old /search answers 410 there). */
  cloud: boolean;
  /** Text as Jira's API version takes it: v3 Atlassian Document Format, v2 plain text. */
  text(value: string): unknown;
}

/** The auth Flowise picks: a bearer token first, else username + access token. */
export function jiraAuth(credential: Record<string, unknown>): JiraAuth | undefined {
  const value = (k: string) => (typeof credential[k] === "string" ? (credential[k] as string).trim() : "");
  const bearer = value("bearerToken");
  if (bearer) return { header: `Bearer ${bearer}`, apiVersion: "2", secrets: [bearer] };
  const username = value("username");
  const token = value("accessToken");
  if (!username || !token) return undefined;
  const basic = btoa(`${username}:${token}`);
  return { header: `Basic ${basic}`, apiVersion: "3", secrets: [token, basic] };
}

/** Jira's error body as one line: its errorMessages, then its field errors. */
function jiraMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { errorMessages?: unknown; errors?: unknown; message?: unknown };
    const messages = Array.isArray(body.errorMessages) ? body.errorMessages.map(String) : [];
    if (body.errors && typeof body.errors === "object")
      for (const [field, message] of Object.entries(body.errors)) messages.push(`${field}: ${String(message)}`);
    if (typeof body.message === "string") messages.push(body.message);
    if (messages.length) return messages.join("; ");
  } catch {
    // not JSON: the text's start
  }
  return text.slice(0, 300);
}

const paragraph = (text: string) => ({ type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] });

export function jiraClient(host: string, auth: JiraAuth, ctx: RunContext): JiraCall {
  return {
    text: (value) => (auth.apiVersion === "3" ? paragraph(value) : value),
    cloud: auth.apiVersion === "3",
    async call(method, path, options = {}) {
      const url = new URL(`${host}/rest/api/${auth.apiVersion}/${path}`);
      for (const [key, value] of Object.entries(options.query ?? {}))
        if (value !== undefined && value !== "") url.searchParams.set(key, String(value));
      const init: RequestInit = {
        method,
        headers: { Authorization: auth.header, "Content-Type": "application/json", Accept: "application/json" },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      };
      const res = await callService(
        { service: "Jira", url: url.toString(), init, secrets: auth.secrets, policy: ctx.runtime.outbound },
        ctx,
      );
      if (!res.ok) throw new ToolCallError(redact(`Jira API Error ${res.status}: ${jiraMessage(res.text)}`, auth.secrets));
      return res.text;
    },
  };
}
