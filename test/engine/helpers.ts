// Shared by the engine tests: fixtures as flowData, a RunContext on the test D1, the stand-in.
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { createDb } from "../../src/db";
import { chatMessage } from "../../src/db/schema";
import {
  type ChatTurn,
  type FlowNode,
  type RunContext,
  type RunResult,
  type Runtime,
  type StreamSink,
  canStreamFlow as canStream,
  createRunContext,
  prepareFlow,
} from "../../src/engine";
import type { Env } from "../../src/env";
import { createCredential } from "../../src/services/credentials";
import { createServices } from "../../src/services/container";

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
  const row = await createCredential(
    { db: db(), env: env as unknown as Env },
    { name: `test ${credentialName}`, credentialName, plainDataObj },
  );
  return row.id;
}

/** Stores a finished exchange the way the prediction layer does. */
export async function storeTurns(chatflowid: string, sessionId: string, turns: ChatTurn[]): Promise<void> {
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  for (const [i, t] of turns.entries()) {
    await db()
      .insert(chatMessage)
      .values({
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

/** The ports a request gets (the container's runtime, src/services/runtime) on the test D1, with `env` patched. */
export const runtimeWith = (patch: Partial<Env> = {}): Runtime =>
  createServices({ db: db(), env: { ...(env as unknown as Env), ...patch }, request: { waitUntil: () => undefined } }).runtime;

/** A run's context as the run door makes it, on the real ports. */
export function makeCtx(question: string, over: Partial<RunContext> = {}): RunContext {
  const { runtime = runtimeWith(), ...init } = over;
  return createRunContext(runtime, { chatflowid: crypto.randomUUID(), sessionId: crypto.randomUUID(), question, ...init });
}

/** A chatflow's flowData prepared and run, as POST /prediction does it. */
export const runFlow = async (flowData: string, ctx: RunContext, sink?: StreamSink): Promise<RunResult> => {
  const prepared = prepareFlow("CHATFLOW", flowData);
  if (prepared.kind !== "chatflow") throw new Error("a CHATFLOW prepares as a chatflow");
  return prepared.run(ctx, sink);
};

/** Whether a chatflow streams, as GET /chatflows-streaming answers it. */
export const canStreamFlow = (flowData: string): boolean => canStream("CHATFLOW", flowData);

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
    event: () => {},
  };
  return { sink, tokens, text: () => tokens.map((t) => t.text).join("") };
}

export const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;
