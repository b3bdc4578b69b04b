// promptLangFuse: a text prompt kept in Langfuse, then a promptTemplate. The prompt is read as the
// Langfuse SDK reads it — GET {langFuseEndpoint}/api/public/v2/prompts/{name}, Basic auth
// publicKey:secretKey (a Bearer public key without a secret) — and turned into a LangChain template
// as the SDK's getLangchainPrompt and Flowise do: braces opening a JSON object doubled, {{var}} →
// {var}, then any other {…:…} doubled (literal). The endpoint (the credential's, default Langfuse
// Cloud) is under the outbound policy; a failure is a 502 with Langfuse's message, never the keys.
// Langfuse's chat prompts (a list of messages) are refused with a 400: Flowise's node cannot use them.
import { fail } from "../../../errors";
import { checkEndpoint, endpointFetch } from "../../../lib/outbound";
import { RetryableProviderError } from "../../../lib/run-control";
import { httpUrl } from "../../../providers/chat/endpoints";
import { type EmbeddingsEndpoint, embeddingsCall, jsonOf } from "../../../providers/embeddings/http";
import { credentialOf, str } from "../../core/inputs";
import type { PromptInstance } from "../instances";
import type { NodeDefinition } from "../types";

const CLOUD = "https://cloud.langfuse.com";

/** Braces opening a JSON object (the next non-space character a quote) doubled, with their closing ones; {{ and }} kept. */
export function escapeJsonBraces(text: string): string {
  let out = "";
  const stack: boolean[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if ((ch === "{" || ch === "}") && text[i + 1] === ch) {
      out += ch + ch;
      i++;
    } else if (ch === "{") {
      const json = /^\s*['"]/.test(text.slice(i + 1));
      stack.push(json);
      out += json ? "{{" : "{";
    } else if (ch === "}") out += stack.pop() ? "}}" : "}";
    else out += ch;
  }
  return out;
}

/** A Langfuse text prompt as a LangChain template (the SDK's conversion, then Flowise's transformBracesWithColon). */
export function langfuseTemplate(prompt: string): string {
  const langchain = escapeJsonBraces(prompt).replace(/\{\{(\w+)\}\}/g, "{$1}");
  return langchain.replace(/(?<!\{)\{([^{}]*?)\}(?!\})/g, (match, inner: string) => (inner.includes(":") ? `{{${inner}}}` : match));
}

export const promptLangFuseNode: NodeDefinition = {
  name: "promptLangFuse",
  category: "Prompts",
  async build({ node, inputs, ctx }): Promise<PromptInstance> {
    const label = node.data.label;
    const name = str(inputs.template);
    if (!name) throw fail("INVALID_FLOW", `${label}: give the Prompt Name of a Langfuse prompt`);
    const credential = await credentialOf(node, inputs, ctx);
    const publicKey = str(credential.langFusePublicKey);
    const secretKey = str(credential.langFuseSecretKey);
    if (!publicKey) throw fail("MISSING_CREDENTIAL", `${label} needs a langfuseApi credential with its Public Key (and Secret Key)`);
    const field = "langfuseApi credential langFuseEndpoint";
    const base = httpUrl(str(credential.langFuseEndpoint) ?? CLOUD, field);
    const url = `${base}/api/public/v2/prompts/${encodeURIComponent(name)}`;
    const endpoint: EmbeddingsEndpoint = {
      url,
      policy: checkEndpoint(url, field, ctx.runtime.providers),
      provider: "Langfuse",
      apiKey: secretKey,
    };
    const authorization = secretKey ? `Basic ${btoa(`${publicKey}:${secretKey}`)}` : `Bearer ${publicKey}`;
    const headers = {
      accept: "application/json",
      authorization,
      "x-langfuse-sdk-integration": "Flowise",
      "x-langfuse-public-key": publicKey,
    };
    const answer = (await embeddingsCall(endpoint, async (deadline) => {
      let res: Response;
      try {
        res = await endpointFetch(url, { method: "GET", headers, signal: deadline.signal }, endpoint.policy);
      } catch (err) {
        throw deadline.failure(err, endpoint.provider);
      }
      if (res.ok) return jsonOf(endpoint, deadline, res);
      // Langfuse's error body is {message, error: <class name>}: the message says what went wrong.
      const body = (await deadline.race(res.json()).catch(() => ({}))) as { message?: unknown; error?: unknown };
      const message = `Langfuse answered ${res.status}: ${str(body?.message) ?? str(body?.error) ?? res.statusText}`;
      throw res.status >= 500 ? new RetryableProviderError(message) : fail("MODEL_FAILED", message);
    })) as { type?: unknown; prompt?: unknown } | null;
    if (answer?.type === "chat")
      throw fail("INVALID_FLOW", `${label}: Langfuse prompt "${name}" is a chat prompt; this node takes text prompts`);
    if (typeof answer?.prompt !== "string") throw fail("MODEL_FAILED", `Langfuse answered prompt "${name}" without its text`);
    const values = inputs.promptValues;
    if (values !== undefined && values !== null && values !== "" && (typeof values !== "object" || Array.isArray(values)))
      throw fail("INVALID_FLOW", `${label}: promptValues must be a JSON object`);
    return {
      kind: "prompt",
      type: "string",
      template: langfuseTemplate(answer.prompt),
      promptValues: (values && typeof values === "object" ? values : {}) as Record<string, unknown>,
      label,
    };
  },
};
