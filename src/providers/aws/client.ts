// One signed call to an AWS service other than Bedrock Runtime (Bedrock Agent Runtime, SNS, DynamoDB,
// S3, Kendra), as Flowise's AWS nodes make them through the SDK: the host built from the region
// (https://<prefix>.<region>.amazonaws.com), or the service's <SERVICE>_BASE_URL var (tests, a VPC
// endpoint), under the outbound policy's endpoint rule; SigV4 with the service's signing name;
// one deadline, one retry on a network failure or a 5xx; the service's own error (JSON `message` /
// `__type`, XML <Code>/<Message>) as a 502 that never holds the secret; silence a 504.
import { ApiError, fail } from "../../errors";
import type { ProviderVar } from "../../env";
import { type EndpointPolicy, checkEndpoint, endpointFetch } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { Deadline, RetryableProviderError, withOneRetry } from "../../lib/run-control";
import type { ProviderEnv } from "../types";
import { type AwsCredentials, signRequest, uriEncode } from "./sigv4";

export interface AwsService {
  /** SigV4 signing name (the credential scope's service). */
  signing: string;
  /** Host prefix: https://<prefix>.<region>.amazonaws.com */
  prefix: string;
  /** The deployment var that replaces that base URL. */
  envVar: ProviderVar;
  /** How messages name the service. */
  label: string;
}

export const AWS_SERVICES = {
  bedrockAgent: {
    signing: "bedrock",
    prefix: "bedrock-agent-runtime",
    envVar: "AWS_BEDROCK_AGENT_BASE_URL",
    label: "AWS Bedrock Agent Runtime",
  },
  sns: { signing: "sns", prefix: "sns", envVar: "AWS_SNS_BASE_URL", label: "AWS SNS" },
  dynamodb: { signing: "dynamodb", prefix: "dynamodb", envVar: "AWS_DYNAMODB_BASE_URL", label: "AWS DynamoDB" },
  s3: { signing: "s3", prefix: "s3", envVar: "AWS_S3_BASE_URL", label: "AWS S3" },
  kendra: { signing: "kendra", prefix: "kendra", envVar: "AWS_KENDRA_BASE_URL", label: "AWS Kendra" },
} satisfies Record<string, AwsService>;

const TIMEOUT_MS = 30_000;

export interface AwsClient {
  service: AwsService;
  region: string;
  /** Base URL, no trailing slash. */
  base: string;
  policy: EndpointPolicy;
  credentials: AwsCredentials;
  timeoutMs: number;
  /** The run's abort signal. */
  signal?: AbortSignal;
}

/** A client for `service` in `region`; the base URL under the endpoint rule (a refusal is a 400 naming the var). */
export function awsClient(
  service: AwsService,
  region: string,
  credentials: AwsCredentials,
  env: ProviderEnv,
  opts: { signal?: AbortSignal; timeoutMs?: number; base?: { value: string; field: string } } = {},
): AwsClient {
  const configured = env[service.envVar]?.trim();
  const chosen = opts.base ?? (configured ? { value: configured, field: service.envVar } : undefined);
  const base = (chosen?.value ?? `https://${service.prefix}.${region}.amazonaws.com`).replace(/\/+$/, "");
  const field = chosen?.field ?? `${service.label} endpoint`;
  if (!/^https?:\/\/[^/]/i.test(base)) throw fail("INVALID_FLOW", `${field} is not a valid http(s) URL: ${base}`);
  const policy = checkEndpoint(base, field, env);
  return { service, region, base, policy, credentials, timeoutMs: opts.timeoutMs ?? TIMEOUT_MS, signal: opts.signal };
}

export interface AwsRequest {
  method: string;
  /** Path segments, each URI-encoded here (S3 keys keep their slashes as separate segments). */
  path: string[];
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}

export interface AwsAnswer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text(): string;
}

/** The service's error text from a failed answer: JSON's message and type, or XML's Code and Message. */
function awsErrorOf(res: Response, text: string): string {
  let type = res.headers.get("x-amzn-errortype")?.split(":")[0];
  let message: string | undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    message = String(body.message ?? body.Message ?? "") || undefined;
    type ??= typeof body.__type === "string" ? body.__type.split("#").pop() : undefined;
  } catch {
    const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
    message = tag("Message");
    type ??= tag("Code");
  }
  return [type, message].filter(Boolean).join(": ") || res.statusText || "no details";
}

/** The URL of a request: base, each path segment encoded, the query. */
export function awsUrl(client: AwsClient, req: Pick<AwsRequest, "path" | "query">): string {
  const path = req.path.map(uriEncode).join("/");
  // RFC 3986 as SigV4 signs it: AWS reads a "+" in the query as "+", so URLSearchParams' "+" for a
  // space (an S3 prefix "my docs/") no longer matched the signed %20: SignatureDoesNotMatch.
  const query = Object.entries(req.query ?? {})
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .join("&");
  return `${client.base}/${path}${query ? `?${query}` : ""}`;
}

/** Sends one signed request; a 2xx answer read whole, else the failures above. */
export function awsSend(client: AwsClient, req: AwsRequest, maxBytes = 64 * 1024 * 1024): Promise<AwsAnswer> {
  const { label } = client.service;
  const secrets = [client.credentials.secretAccessKey, ...(client.credentials.sessionToken ? [client.credentials.sessionToken] : [])];
  const url = awsUrl(client, req);
  const attempt = async (): Promise<AwsAnswer> => {
    const deadline = new Deadline(client.timeoutMs, client.signal);
    try {
      const headers = { ...(req.headers ?? {}) };
      const signed = await signRequest({
        method: req.method,
        url,
        headers,
        body: req.body,
        region: client.region,
        service: client.service.signing,
        credentials: client.credentials,
        s3: client.service.signing === "s3",
      });
      const init = { method: req.method, headers: { ...headers, ...signed }, body: req.body, signal: deadline.signal };
      const res = await endpointFetch(url, init, client.policy);
      const length = Number(res.headers.get("content-length"));
      if (Number.isFinite(length) && length > maxBytes) throw fail("UPSTREAM_FAILED", `${label} answered more than ${maxBytes} bytes`);
      const bytes = new Uint8Array(await deadline.race(res.arrayBuffer()));
      if (bytes.length > maxBytes) throw fail("UPSTREAM_FAILED", `${label} answered more than ${maxBytes} bytes`);
      const text = () => new TextDecoder().decode(bytes);
      if (!res.ok) {
        const message = redact(`${label} answered ${res.status}: ${awsErrorOf(res, text()).slice(0, 300)}`, secrets);
        if (res.status >= 500) throw new RetryableProviderError(message);
        throw fail("UPSTREAM_FAILED", message);
      }
      return { status: res.status, headers: res.headers, bytes, text };
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const failure = deadline.failure(err, label);
      if (failure instanceof ApiError && failure.code === "MODEL_TIMEOUT") throw fail("TIMEOUT", failure.message);
      throw failure instanceof ApiError ? new RetryableProviderError(redact(failure.message, secrets)) : failure;
    } finally {
      deadline.done();
    }
  };
  return withOneRetry(attempt, () => false, client.signal).catch((err) => {
    // A 5xx after its retry is the service failing: 502 with its message.
    if (err instanceof RetryableProviderError) throw fail("UPSTREAM_FAILED", err.message);
    throw err;
  });
}

/** A JSON 1.0 / 1.1 call (DynamoDB, Kendra): POST / with X-Amz-Target; the answer's JSON. */
export async function awsJsonTarget(client: AwsClient, target: string, body: unknown, version = "1.0"): Promise<Record<string, unknown>> {
  const answer = await awsSend(client, {
    method: "POST",
    path: [""],
    headers: { "content-type": `application/x-amz-json-${version}`, "x-amz-target": target },
    body: JSON.stringify(body),
  });
  return parseJson(client, answer);
}

/** A REST JSON call (Bedrock Agent Runtime): the answer's JSON. */
export async function awsRestJson(client: AwsClient, path: string[], body: unknown): Promise<Record<string, unknown>> {
  const answer = await awsSend(client, {
    method: "POST",
    path,
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  return parseJson(client, answer);
}

function parseJson(client: AwsClient, answer: AwsAnswer): Record<string, unknown> {
  try {
    const text = answer.text();
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw fail("UPSTREAM_FAILED", `${client.service.label} answered something that is not JSON`);
  }
}
