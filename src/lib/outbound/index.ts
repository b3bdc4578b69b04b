// The outbound rule: every URL edgeflow fetches for a flow — a request URL (a custom tool's fetch,
// a web page, an HTTP node, a callback) or an endpoint a flow's owner or a deployment var
// configured (a model, embeddings, a vector store, a tracing backend) — is checked by the policy
// (policy.ts, addresses read by addresses.ts) and fetched through outboundFetch or endpointFetch,
// which follow redirects by hand (redirects.ts): each hop checked, at most MAX_REDIRECTS, never
// https → http, and no credential carried to another origin.
export {
  type EndpointEnv,
  type EndpointPolicy,
  type OutboundEnv,
  OutboundRefused,
  assertEndpointAllowed,
  assertEndpointHostAllowed,
  assertOutboundAllowed,
  checkEndpoint,
  isLocalEnvironment,
  isOutboundAllowed,
} from "./policy";
export { CROSS_ORIGIN_HEADERS, MAX_REDIRECTS, RedirectRefused, endpointFetch, outboundFetch } from "./redirects";
