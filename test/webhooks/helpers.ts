// Webhook-triggered agentflows as Flowise 3.1 saves them (a Start node with startInputType
// "webhookTrigger"), the requests a sender makes to /webhook/{id}, and their signatures.
import { afEdge, afNode, directReply, saveAgentflowOf } from "../agentflow-api/flows";
import { BASE, json } from "../helpers";
import { exports } from "cloudflare:workers";

type Inputs = Record<string, unknown>;

export const webhookStart = (inputs: Inputs = {}) => afNode("startAgentflow_0", "Start", { startInputType: "webhookTrigger", ...inputs });

/** Start (webhook) → Direct Reply `reply`; answers the flow id. */
export async function saveWebhookFlow(
  inputs: Inputs = {},
  reply = "got {{ $webhook.body.name }}",
  extra: Record<string, unknown> = {},
): Promise<string> {
  const { id } = await saveAgentflowOf(
    [webhookStart(inputs), directReply("directReplyAgentflow_0", reply)],
    [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    extra,
  );
  return id;
}

export async function newSecret(flowId: string): Promise<string> {
  return (await json("POST", `/chatflows/${flowId}/webhook-secret`)).webhookSecret;
}

export interface Hook {
  method?: string;
  body?: unknown;
  /** Sent as it is (no JSON encoding). */
  raw?: string;
  headers?: Record<string, string>;
  query?: string;
}

/** A sender's request: no Authorization header; a JSON body unless `raw` is given. */
export function hook(flowId: string, init: Hook = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const url = `${BASE}/webhook/${flowId}${init.query ? `?${init.query}` : ""}`;
  return (exports as unknown as { default: Fetcher }).default.fetch(new Request(url, { method: init.method ?? "POST", headers, body }));
}

export async function hmacHex(body: string, secret: string, hash: "SHA-256" | "SHA-1" = "SHA-256"): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}
