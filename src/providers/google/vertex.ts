// Where Flowise's Google Vertex AI nodes (chatGoogleVertexAI, googlevertexai, googlevertexaiEmbeddings)
// send their calls: https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}
// /publishers/google/models/{model}:{method} (aiplatform.googleapis.com for the `global` region), or
// GOOGLE_VERTEX_BASE_URL's host instead (a proxy, a test's stand-in); every call with a bearer token
// from the googleVertexAuth credential's service account (service-account.ts).
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { type EndpointPolicy, checkEndpoint } from "../../lib/outbound";
import type { Deadline } from "../../lib/run-control";
import { credentialOf, firstSet } from "../config";
import type { ProviderDeps } from "../types";
import { googleAccessToken, vertexAuthOf } from "./service-account";

export const VERTEX_PROVIDER = "Google Vertex AI";
const DEFAULT_REGION = "us-central1";

export interface VertexTarget {
  /** …/publishers/google/models (the model and method follow). */
  modelsUrl: string;
  policy: EndpointPolicy;
  /** The Authorization header for one attempt (a cached token, or a new one under the attempt's deadline). */
  auth: (deadline: Deadline) => Promise<Record<string, string>>;
}

/** The node's region, project and credential → where its calls go and how they are signed in; 400 when unusable. */
export async function vertexTarget(config: Record<string, unknown>, node: string, deps: ProviderDeps): Promise<VertexTarget> {
  const credential = await credentialOf(config, deps);
  const { account, projectId } = vertexAuthOf(credential, node, deps.env);
  const region = str(config.region) ?? DEFAULT_REGION;
  if (!/^[a-z0-9-]{2,40}$/.test(region))
    throw fail("INVALID_FLOW", `${node} region "${region}" is not a Google Cloud region (e.g. us-central1)`);
  const host = region === "global" ? "https://aiplatform.googleapis.com" : `https://${region}-aiplatform.googleapis.com`;
  const base = firstSet([deps.env.GOOGLE_VERTEX_BASE_URL, "GOOGLE_VERTEX_BASE_URL"]) ?? { value: host, field: `${node} region` };
  let origin: string;
  try {
    origin = new URL(base.value).origin;
  } catch {
    throw fail("INVALID_FLOW", `${base.field} is not a valid URL: ${base.value}`);
  }
  const modelsUrl = `${origin}/v1/projects/${encodeURIComponent(projectId)}/locations/${region}/publishers/google/models`;
  return {
    modelsUrl,
    policy: checkEndpoint(modelsUrl, base.field, deps.env),
    auth: async (deadline) => ({ authorization: `Bearer ${await googleAccessToken(account, deadline)}` }),
  };
}
