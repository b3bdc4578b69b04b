// A public chatflow as anyone may read it (GET /public-chatflows/{id}: the studio's full-page chatbot,
// /chatbot/{id}, reads its id, type, chatbotConfig and apikeyid). Its flowData loses what would let a
// reader act as its owner, as Flowise 3.1.4 strips it: each node's credential reference, its inputs
// of type password, file or folder, and authorization headers. Text that does not parse is no flow.
import { isObject } from "../lib/inputs";

const SECRET_HEADERS = new Set(["authorization", "x-api-key", "x-auth-token", "cookie"]);
const SECRET_INPUT_TYPES = new Set(["password", "file", "folder"]);
const EMPTY_FLOW = JSON.stringify({ nodes: [], edges: [] });

type Json = Record<string, unknown>;

/** Headers without credentials: [{key, value}] rows, an object, or that object as JSON text; undefined when unreadable. */
function publicHeaders(headers: unknown): unknown {
  if (Array.isArray(headers))
    return headers.filter((h) => !(isObject(h) && typeof h.key === "string" && SECRET_HEADERS.has(h.key.toLowerCase())));
  let parsed: unknown = headers;
  if (typeof headers === "string") {
    try {
      parsed = JSON.parse(headers);
    } catch {
      return undefined;
    }
  }
  if (!isObject(parsed)) return undefined;
  const kept = Object.fromEntries(Object.entries(parsed).filter(([k]) => !SECRET_HEADERS.has(k.toLowerCase())));
  return typeof headers === "string" ? JSON.stringify(kept) : kept;
}

function publicInputs(inputs: Json, params: unknown): Json {
  const secret = new Set(
    (Array.isArray(params) ? params : [])
      .filter((p): p is Json => isObject(p) && typeof p.name === "string" && SECRET_INPUT_TYPES.has(String(p.type)))
      .map((p) => p.name as string),
  );
  const kept: Json = {};
  for (const [key, value] of Object.entries(inputs)) {
    if (secret.has(key)) continue;
    if (key === "headers" && value) {
      const headers = publicHeaders(value);
      if (headers !== undefined) kept[key] = headers;
      continue;
    }
    kept[key] = value;
  }
  return kept;
}

/** flowData as a public endpoint may show it. */
export function publicFlowData(flowData: string): string {
  if (!flowData) return flowData;
  let flow: unknown;
  try {
    flow = JSON.parse(flowData);
  } catch {
    return EMPTY_FLOW;
  }
  if (!isObject(flow) || !Array.isArray(flow.nodes)) return flowData;
  for (const node of flow.nodes) {
    const data = isObject(node) ? node.data : undefined;
    if (!isObject(data)) continue;
    delete data.credential;
    if (isObject(data.inputs)) data.inputs = publicInputs(data.inputs, data.inputParams);
  }
  return JSON.stringify(flow);
}
