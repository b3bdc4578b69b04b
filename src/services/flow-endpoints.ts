// The endpoints a flow's nodes name (a model's basepath, an Ollama baseUrl, a Pinecone host, a Qdrant server, …),
// checked at save time under the outbound policy's endpoint rule (src/lib/outbound/): a refused
// one is said in the saved record's `warning`, since every prediction would answer 400 for it.
// Only literal http(s) URLs in node inputs (Agentflow's nested model configs included); variables
// ({{$vars.url}}) and credentials are read at run time, where the rule applies again.
import { type EndpointEnv, OutboundRefused, assertEndpointAllowed } from "../lib/outbound";

/** Node input names that hold an endpoint URL in Flowise's nodes. */
const ENDPOINT_INPUTS = new Set([
  "basepath",
  "basePath",
  "baseUrl",
  "baseURL",
  "overrideEndpoint",
  "endpoint",
  "pineconeIndexHost",
  "qdrantServerUrl",
  "milvusServerUrl",
  "chromaURL",
  "supabaseProjUrl",
  "weaviateHost",
  "host",
]);
const MAX_DEPTH = 4;

type Refusals = string[];

function walk(value: unknown, owner: string, env: EndpointEnv, out: Refusals, depth: number): void {
  if (!value || typeof value !== "object" || depth > MAX_DEPTH) return;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === "string" && ENDPOINT_INPUTS.has(key) && /^https?:\/\//i.test(v.trim()) && !v.includes("{{")) {
      try {
        assertEndpointAllowed(v.trim(), { field: `${owner} ${key}`, env });
      } catch (err) {
        if (!(err instanceof OutboundRefused)) throw err;
        out.push(err.message);
      }
    } else if (v && typeof v === "object") walk(v, owner, env, out, depth + 1);
  }
}

/** What the endpoint rule refuses among the flow's literal endpoint inputs, one message each ([] when none, or flowData unreadable). */
export function endpointRefusals(flowData: string, env: EndpointEnv): string[] {
  let graph: unknown;
  try {
    graph = JSON.parse(flowData);
  } catch {
    return []; // the save warning's other check reports unreadable flowData
  }
  const nodes = (graph as { nodes?: unknown })?.nodes;
  if (!Array.isArray(nodes)) return [];
  const out: Refusals = [];
  for (const node of nodes as Array<{ id?: unknown; data?: { id?: unknown; inputs?: unknown } }>) {
    const owner = String(node?.data?.id ?? node?.id ?? "a node");
    walk(node?.data?.inputs, owner, env, out, 0);
  }
  return out;
}
