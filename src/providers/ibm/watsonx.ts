// Flowise's ibmWatsonx credential (version, serviceUrl, projectId, watsonxAIAuthType and its API key
// or bearer token) → where watsonx.ai's calls go ({serviceUrl}/ml/v1/text/…?version=…, the service
// URL under the outbound policy) and their Authorization. With IAM (the default), the API key is
// exchanged at IBM Cloud IAM (POST {IBM_IAM_BASE_URL or https://iam.cloud.ibm.com}/identity/token,
// grant type apikey) for a bearer token cached per isolate until shortly before it expires.
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { type EndpointPolicy, checkEndpoint } from "../../lib/outbound";
import type { Deadline } from "../../lib/run-control";
import { credentialOf, firstSet } from "../config";
import { cachedToken, tokenKey, tokenRequest } from "../token-cache";
import type { ProviderDeps } from "../types";

export const WATSONX_PROVIDER = "IBM watsonx.ai";

/** An http(s) URL without trailing slashes, or a 400 naming where it came from. */
function httpUrl(value: string, field: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw fail("INVALID_FLOW", `${field} must be an http(s) URL: ${value}`);
  return value.replace(/\/+$/, "");
}

export interface WatsonxTarget {
  /** {serviceUrl}/ml/v1/text */
  textUrl: string;
  version: string;
  projectId: string;
  policy: EndpointPolicy;
  auth: (deadline: Deadline) => Promise<Record<string, string>>;
}

/** `{textUrl}/{path}?version=…` */
export const watsonxUrl = (t: WatsonxTarget, path: string): string => `${t.textUrl}/${path}?version=${encodeURIComponent(t.version)}`;

function iamAuth(apiKey: string, deps: ProviderDeps): WatsonxTarget["auth"] {
  const base = firstSet([deps.env.IBM_IAM_BASE_URL, "IBM_IAM_BASE_URL"]) ?? {
    value: "https://iam.cloud.ibm.com",
    field: "IBM Cloud IAM endpoint",
  };
  const url = `${httpUrl(base.value, base.field)}/identity/token`;
  const policy = checkEndpoint(url, base.field, deps.env);
  return async (deadline) => {
    const token = await cachedToken(await tokenKey("ibm-iam", url, apiKey), async () => {
      const form = { grant_type: "urn:ibm:params:oauth:grant-type:apikey", apikey: apiKey };
      const answer = await tokenRequest(url, form, { provider: "IBM Cloud IAM", policy, secrets: [apiKey] }, deadline);
      const access = str(answer.access_token);
      if (!access) throw fail("MODEL_FAILED", "IBM Cloud IAM answered without an access_token");
      return { token: access, expiresInSeconds: typeof answer.expires_in === "number" ? answer.expires_in : 3600 };
    });
    return { authorization: `Bearer ${token}` };
  };
}

/** The node's credential → its watsonx.ai target; 400 naming what is missing. */
export async function watsonxTarget(config: Record<string, unknown>, node: string, deps: ProviderDeps): Promise<WatsonxTarget> {
  const credential = await credentialOf(config, deps);
  const need = (field: string, hint: string) => {
    const v = str(credential[field]);
    if (!v) throw fail("INVALID_FLOW", `${node} needs an ibmWatsonx credential with its ${field} (${hint})`);
    return v;
  };
  const version = need("version", "the API version date, YYYY-MM-DD");
  const serviceUrl = httpUrl(need("serviceUrl", "e.g. https://us-south.ml.cloud.ibm.com"), "ibmWatsonx serviceUrl");
  const projectId = need("projectId", "the watsonx.ai project's id");
  const textUrl = `${serviceUrl}/ml/v1/text`;
  const policy = checkEndpoint(textUrl, "ibmWatsonx serviceUrl", deps.env);
  const type = str(credential.watsonxAIAuthType) ?? "iam";
  let auth: WatsonxTarget["auth"];
  if (type === "iam") auth = iamAuth(need("watsonxAIApikey", "its IAM API key"), deps);
  else if (type === "bearertoken") {
    const header = { authorization: `Bearer ${need("watsonxAIBearerToken", "its bearer token")}` };
    auth = async () => header;
  } else throw fail("INVALID_FLOW", `${node}: ibmWatsonx watsonxAIAuthType "${type}" is not supported (iam or bearertoken)`);
  return { textUrl, version, projectId, policy, auth };
}
