// Baidu Qianfan's ERNIE (wenxinworkshop) API as @baiducloud/qianfan calls it with the IAM keys of
// Flowise's baiduQianfanApi credential (qianfanAccessKey / qianfanSecretKey): POST
// {base}/rpc/2.0/ai_custom/v1/wenxinworkshop/{chat|embeddings}/{endpoint}, signed with Baidu's
// bce-auth-v1 (HMAC-SHA256 over the method, path, query and the signed headers; we sign host and
// x-bce-date, which the scheme allows). The endpoint is the model's: the SDK's table where a model's
// differs from its lower-cased name, else that name (the SDK asks the console's service list first:
// we skip that round trip). BAIDU_QIANFAN_BASE_URL, else https://aip.baidubce.com.
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { type EndpointPolicy, checkEndpoint } from "../../lib/outbound";
import { httpUrl } from "./endpoints";
import { credentialOf, firstSet } from "../config";
import type { ProviderDeps } from "../types";

const PATH = "/rpc/2.0/ai_custom/v1/wenxinworkshop";

// Where the SDK's model table (DynamicModelEndpoint/utils.ts) names an endpoint other than the model.
const ENDPOINTS: Record<"chat" | "embeddings", Record<string, string>> = {
  chat: {
    "ernie-4.0-8k": "completions_pro",
    "ernie-bot-4": "completions_pro",
    "ernie-4.0-8k-preemptible": "completions_pro_preemptible",
    "ernie-3.5-8k": "completions",
    "ernie-bot": "completions",
    "ernie-3.5-8k-preemptible": "completions_preemptible",
    "ernie-speed-8k": "ernie_speed",
    "ernie-speed": "ernie_speed",
    "ernie-lite-8k-0922": "eb-instant",
    "ernie-lite-8k-0308": "ernie-lite-8k",
    "ernie-character-8k": "ernie-char-8k",
    "ernie-character-8k-0321": "ernie-char-8k",
    "ernie-character-fiction-8k": "ernie-char-fiction-8k",
    "ernie-functions-8k": "ernie-func-8k",
    "ernie-bot-8k": "ernie_bot_8k",
    "ernie-speed-appbuilder": "ai_apaas",
    "ernie-bot-turbo-ai": "ai_apaas",
    "eb-turbo-appbuilder": "ai_apaas",
    "ernie-lite-appbuilder-8k-0614": "ai_apaas_lite",
    "gemma-7b-it": "gemma_7b_it",
    "yi-34b-chat": "yi_34b_chat",
    "bloomz-7b": "bloomz_7b1",
    "mixtral-8x7b-instruct": "mixtral_8x7b_instruct",
    "llama-2-7b-chat": "llama_2_7b",
    "llama-2-13b-chat": "llama_2_13b",
    "llama-2-70b-chat": "llama_2_70b",
    "meta-llama-3-8b-instruct": "llama_3_8b",
    "meta-llama-3-70b-instruct": "llama_3_70b",
    "chatglm2-6b-32k": "chatglm2_6b_32k",
    "xuanyuan-70b-chat-4bit": "xuanyuan_70b_chat",
    "aquilachat-7b": "aquilachat_7b",
  },
  embeddings: { "bge-large-zh": "bge_large_zh", "bge-large-en": "bge_large_en", "tao-8k": "tao_8k" },
};

/** The model's endpoint name on the wenxinworkshop API. */
export const qianfanEndpoint = (kind: "chat" | "embeddings", model: string): string => {
  const key = model.toLowerCase();
  return ENDPOINTS[kind][key] ?? key;
};

export interface QianfanKeys {
  accessKey: string;
  secretKey: string;
}

export interface QianfanTarget {
  url: string;
  policy: EndpointPolicy;
  keys: QianfanKeys;
}

/** The model's URL under the outbound policy and the credential's keys (400 / missing credential otherwise). */
export async function qianfanTarget(
  node: string,
  kind: "chat" | "embeddings",
  model: string,
  config: Record<string, unknown>,
  deps: ProviderDeps,
): Promise<QianfanTarget> {
  const base = firstSet([deps.env.BAIDU_QIANFAN_BASE_URL, "BAIDU_QIANFAN_BASE_URL"]) ?? {
    value: "https://aip.baidubce.com",
    field: `${node} endpoint`,
  };
  const url = `${httpUrl(base.value, base.field)}${PATH}/${kind}/${encodeURIComponent(qianfanEndpoint(kind, model))}`;
  const policy = checkEndpoint(url, base.field, deps.env);
  const credential = await credentialOf(config, deps);
  const accessKey = str(credential.qianfanAccessKey);
  const secretKey = str(credential.qianfanSecretKey);
  if (!accessKey || !secretKey)
    throw fail("MISSING_CREDENTIAL", `${node} needs a baiduQianfanApi credential (its qianfanAccessKey and qianfanSecretKey)`);
  return { url, policy, keys: { accessKey, secretKey } };
}

const encoder = new TextEncoder();

async function hmacHex(key: string, data: string): Promise<string> {
  const k = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const sig = await crypto.subtle.sign("HMAC", k, encoder.encode(data));
  return [...new Uint8Array(sig)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Baidu's URI encoding: RFC 3986 (unreserved characters kept). */
const bceEncode = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The headers that sign a POST to `url` (bce-auth-v1, valid 30 minutes): x-bce-date and authorization. */
export async function bceSign(url: string, keys: QianfanKeys, now = new Date()): Promise<Record<string, string>> {
  const u = new URL(url);
  const date = now.toISOString().replace(/\.\d+Z$/, "Z");
  const prefix = `bce-auth-v1/${keys.accessKey}/${date}/1800`;
  const signingKey = await hmacHex(keys.secretKey, prefix);
  const path = u.pathname
    .split("/")
    .map((s) => bceEncode(decodeURIComponent(s)))
    .join("/");
  const query = [...u.searchParams]
    .map(([k, v]) => `${bceEncode(k)}=${bceEncode(v)}`)
    .sort()
    .join("&");
  const headers = `host:${bceEncode(u.host)}\nx-bce-date:${bceEncode(date)}`;
  const signature = await hmacHex(signingKey, `POST\n${path}\n${query}\n${headers}`);
  return { "x-bce-date": date, authorization: `${prefix}/host;x-bce-date/${signature}` };
}

/** An error Qianfan put in a 2xx answer ({error_code, error_msg}), as a 502 message; undefined when none. */
export function qianfanError(json: Record<string, unknown>): string | undefined {
  if (json.error_code === undefined || json.error_code === null || json.error_code === 0) return undefined;
  return `Baidu Qianfan: ${String(json.error_code)} ${str(json.error_msg) ?? ""}`.trim();
}
