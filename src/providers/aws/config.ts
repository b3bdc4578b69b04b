// What Flowise's AWS Bedrock nodes (awsChatBedrock, AWSBedrockEmbeddings) share: the awsApi
// credential's keys, the region, and where calls go — the node's Custom Endpoint Host, else
// AWS_BEDROCK_BASE_URL, else https://bedrock-runtime.<region>.amazonaws.com (the caller puts it under
// the outbound policy). Without a credential Flowise falls back to the AWS SDK's default chain, which
// a Worker does not have: a 400 asks for one. A Role ARN (STS AssumeRole) is not supported (400).
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { credentialOf, firstSet } from "../config";
import type { ProviderDeps } from "../types";
import type { AwsCredentials } from "./sigv4";

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

export async function awsCredentials(config: Record<string, unknown>, deps: ProviderDeps, node: string): Promise<AwsCredentials> {
  const c = await credentialOf(config, deps);
  if (str(c.roleArn))
    throw fail("INVALID_FLOW", `${node}: the awsApi credential's Role ARN (STS AssumeRole) is not supported; use access keys`);
  const accessKeyId = str(c.awsKey);
  const secretAccessKey = str(c.awsSecret);
  if (!accessKeyId || !secretAccessKey)
    throw fail("MISSING_CREDENTIAL", `${node} needs an awsApi credential with an AWS Access Key and Secret Access Key`);
  return { accessKeyId, secretAccessKey, sessionToken: str(c.awsSession) };
}

/** The node's region (Flowise's default us-east-1); 400 for anything not shaped like one (it becomes a host name). */
export function regionOf(config: Record<string, unknown>, node: string): string {
  const region = str(config.region) ?? "us-east-1";
  if (!REGION.test(region)) throw fail("INVALID_FLOW", `${node} region is not an AWS region: ${region}`);
  return region;
}

/** The Bedrock Runtime base URL (no trailing slash) and where it came from (named in a refusal). */
export function bedrockBase(config: Record<string, unknown>, region: string, node: string, deps: ProviderDeps) {
  const host = str(config.endpointHost);
  const base = firstSet(
    [host ? (/^https?:\/\//i.test(host) ? host : `https://${host}`) : undefined, `${node} endpointHost`],
    [deps.env.AWS_BEDROCK_BASE_URL, "AWS_BEDROCK_BASE_URL"],
  ) ?? { value: `https://bedrock-runtime.${region}.amazonaws.com`, field: `${node} endpoint` };
  let url: URL | undefined;
  try {
    url = new URL(base.value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw fail("INVALID_FLOW", `${base.field} is not a valid http(s) URL: ${base.value}`);
  return { value: base.value.replace(/\/+$/, ""), field: base.field };
}
