// mem0's platform API over fetch (no SDK), as mem0ai's MemoryClient calls it: POST /v1/memories/search/
// {query, user_id, …options} → the memories relevant to the question, and POST /v1/memories/
// {messages, user_id, …options} to add an exchange; `Authorization: Token <key>`. The host is
// MEM0_BASE_URL, else https://api.mem0.ai. (The SDK's GET /v1/ping/ — telemetry, and the
// organisation and project ids it fills in when the node gives none — is not called.) Failures as
// the vector stores' serviceCall says: 502, 504 naming mem0, never the key.
import { fail } from "../../errors";
import { type EndpointEnv, checkEndpoint } from "../../lib/outbound";
import { httpUrl } from "../chat/endpoints";
import { firstSet } from "../config";
import { serviceCall } from "../vectorstores/remote";

export const MEM0_DEFAULT = "https://api.mem0.ai";

export interface Mem0Memory {
  id?: string;
  memory?: string;
}

export interface Mem0Client {
  search(query: string, options: Record<string, unknown>): Promise<Mem0Memory[]>;
  add(messages: Array<{ role: string; content: string }>, options: Record<string, unknown>): Promise<void>;
}

export function mem0Client(o: { env: EndpointEnv & { MEM0_BASE_URL?: string }; apiKey?: string; signal?: AbortSignal }): Mem0Client {
  if (!o.apiKey) throw fail("MISSING_CREDENTIAL", "mem0 is not configured: connect a mem0MemoryApi credential with its apiKey");
  const at = firstSet([o.env.MEM0_BASE_URL, "MEM0_BASE_URL"]) ?? { value: MEM0_DEFAULT, field: "mem0's API" };
  const base = httpUrl(at.value, at.field);
  const policy = checkEndpoint(base, at.field, o.env);
  const service = {
    service: "mem0",
    apiKey: o.apiKey,
    headers: { Authorization: `Token ${o.apiKey}` },
    signal: o.signal,
    notFoundHint: "check MEM0_BASE_URL",
    refusedHint: "check the mem0MemoryApi credential",
  };
  const post = <T>(what: string, path: string, body: unknown) =>
    serviceCall<T>(service, what, `${base}${path}`, { method: "POST", body: JSON.stringify(body) }, policy);
  return {
    async search(query, options) {
      const found = await post<Mem0Memory[] | { results?: Mem0Memory[] }>("memory search", "/v1/memories/search/", { query, ...options });
      return (Array.isArray(found) ? found : found?.results) ?? [];
    },
    async add(messages, options) {
      await post("memory add", "/v1/memories/", { messages, ...options });
    },
  };
}
