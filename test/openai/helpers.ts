// Real OpenAI clients pointed at the worker: the official `openai` SDK and the AI SDK's OpenAI
// provider, their fetch routed to the Worker's own fetch handler; flows whose chat model is the
// OpenAI-compatible stand-in (test/standin/server.mjs: "echo: <last user message>").
import { exports } from "cloudflare:workers";
import { createOpenAI } from "@ai-sdk/openai";
import OpenAI from "openai";
import conversationChain from "../engine/fixtures/conversation-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { ADMIN_KEY, BASE, json } from "../helpers";
import { openAICredential, saveChain } from "../security/helpers";

export const OPENAI_BASE = `${BASE}/openai`;

/** fetch for the clients: every request goes to the Worker under test. */
export const workerFetch = ((input: RequestInfo | URL, init?: RequestInit) =>
  (exports as unknown as { default: Fetcher }).default.fetch(new Request(input, init))) as typeof fetch;

/** The official SDK; no retries, so a test sees the first answer (the SDK retries 429/5xx by default). */
export const openaiClient = (apiKey: string = ADMIN_KEY) => new OpenAI({ apiKey, baseURL: OPENAI_BASE, fetch: workerFetch, maxRetries: 0 });

export const aiProvider = (apiKey: string = ADMIN_KEY) => createOpenAI({ apiKey, baseURL: OPENAI_BASE, fetch: workerFetch });

/** A chatflow (llmChain, prompt "{product}" = the question) whose model is the stand-in; answers its id. */
export async function echoFlow(
  extra: Record<string, unknown> = {},
  options: { credential?: string; model?: string } = {},
): Promise<string> {
  const credential = options.credential ?? (await openAICredential("sk-openai-test"));
  return saveChain({ credential, model: options.model, extra: { name: `echo ${crypto.randomUUID().slice(0, 8)}`, ...extra } });
}

/** A conversation chain with buffer memory at the stand-in; answers its id. */
export async function memoryFlow(extra: Record<string, unknown> = {}): Promise<string> {
  const credential = await openAICredential("sk-openai-test");
  const flowData = flowDataOf(conversationChain as unknown as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, credential);
  });
  return (await json("POST", "/chatflows", { body: { name: `memory ${crypto.randomUUID().slice(0, 8)}`, flowData, ...extra } })).id;
}

/** Stored messages of a flow, oldest first. */
export const messagesOf = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}?order=ASC`);

/** Server-sent events of a raw response: `data` lines (and `event` names) in order. */
export async function sseOf(res: Response): Promise<Array<{ event?: string; data: string }>> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((b) => b.trim() && !b.startsWith(":"))
    .map((block) => {
      const lines = block.split("\n");
      return {
        event: lines.find((l) => l.startsWith("event: "))?.slice(7),
        data: lines
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6))
          .join("\n"),
      };
    });
}
