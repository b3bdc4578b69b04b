// Shared by the engine tests: fixtures as flowData, a RunContext on the test D1, the stand-in.
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { createDb } from "../../src/db";
import { chatMessage } from "../../src/db/schema";
import { createCredential, getCredentialData } from "../../src/services/credentials";
import type { ChatTurn, FlowNode, RunContext, StreamSink } from "../../src/engine/types";

export const standinUrl = () => inject("standinUrl");
export const closedUrl = () => inject("closedUrl");

export interface Fixture {
  nodes: FlowNode[];
  edges: Array<Record<string, unknown>>;
}

/** flowData the way a chatflow stores it, after `patch` edits a deep copy of the nodes. */
export function flowDataOf(fixture: Fixture, patch?: (nodes: Map<string, FlowNode>) => void): string {
  const copy = structuredClone({ nodes: fixture.nodes, edges: fixture.edges }) as Fixture;
  patch?.(new Map(copy.nodes.map((n) => [n.id, n])));
  return JSON.stringify(copy);
}

/** Points a chat model node at the stand-in (its own endpoint input) and gives it a credential. */
export function pointAtStandin(node: FlowNode, credentialId?: string, base = `${standinUrl()}/v1`): void {
  const input = node.data.name === "chatMistralAI" ? "overrideEndpoint" : node.data.name === "chatOllama" ? "baseUrl" : "basepath";
  node.data.inputs = { ...node.data.inputs, [input]: base };
  if (credentialId) node.data.credential = credentialId;
}

export const db = () => createDb(env.DB);

export async function credential(credentialName: string, plainDataObj: Record<string, unknown>): Promise<string> {
  const row = await createCredential(db(), env.CREDENTIAL_ENCRYPTION_KEY, { name: `test ${credentialName}`, credentialName, plainDataObj });
  return row.id;
}

/** Stores a finished exchange the way the prediction layer does. */
export async function storeTurns(chatflowid: string, sessionId: string, turns: ChatTurn[]): Promise<void> {
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  for (const [i, t] of turns.entries()) {
    await db().insert(chatMessage).values({
      id: crypto.randomUUID(),
      role: t.role,
      chatflowid,
      content: t.content,
      chatType: "EXTERNAL",
      chatId: sessionId,
      sessionId,
      createdDate: new Date(base + i * 1000).toISOString(),
    });
  }
}

export function makeCtx(question: string, over: Partial<RunContext> = {}): RunContext {
  const chatflowid = over.chatflowid ?? crypto.randomUUID();
  const sessionId = over.sessionId ?? crypto.randomUUID();
  const history = over.history ?? [];
  const d = db();
  return {
    env: env as unknown as RunContext["env"],
    db: d,
    chatflowid,
    chatId: sessionId,
    sessionId,
    question,
    history,
    nodeOverrides: {},
    vars: {},
    signal: new AbortController().signal,
    getCredential: (id) => getCredentialData(d, env.CREDENTIAL_ENCRYPTION_KEY, id),
    async loadMemory(limit) {
      const rows = await d
        .select({ role: chatMessage.role, content: chatMessage.content })
        .from(chatMessage)
        .where(and(eq(chatMessage.chatflowid, chatflowid), eq(chatMessage.sessionId, sessionId)))
        .orderBy(asc(chatMessage.createdDate))
        .all();
      const turns = [...history, ...(rows as ChatTurn[])];
      return limit ? turns.slice(-limit) : turns;
    },
    ...over,
  };
}

export interface Recorded {
  path: string;
  headers: { authorization: string | null; "api-key": string | null; [name: string]: string | null };
  body: { model?: string; stream?: boolean; temperature?: number; max_tokens?: number; messages: Array<{ role: string; content: string }> };
}

/** Requests the stand-in received whose body contains `marker`, oldest first. */
export async function requestsWith(marker: string): Promise<Recorded[]> {
  const res = await fetch(`${standinUrl()}/requests?contains=${encodeURIComponent(marker)}`);
  return res.json();
}

/** A sink that records tokens with the time they arrived. */
export function recordingSink() {
  const tokens: Array<{ text: string; at: number }> = [];
  const sink: StreamSink = {
    token: (text) => tokens.push({ text, at: Date.now() }),
    sourceDocuments: () => {},
    usedTools: () => {},
  };
  return { sink, tokens, text: () => tokens.map((t) => t.text).join("") };
}

export const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;
