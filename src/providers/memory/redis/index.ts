// Picks how to reach a Redis from Flowise's credentials: redisCacheUrlApi's redisUrl (redis:// or
// rediss:// over TCP; an https:// URL is Upstash's REST API, its password the REST token), or
// redisCacheApi's host, port, user, password and TLS switch; Upstash's own node gives a REST URL
// and upstashRestToken. Every address is under the outbound policy's endpoint rule (`env`): a
// refused one is a 400 naming the credential field or input it came from.
import { fail } from "../../../errors";
import { str } from "../../../lib/inputs";
import { type EndpointEnv, checkEndpoint } from "../../../lib/outbound";
import { RedisTcp, tcpOptionsOfUrl } from "./tcp";
import type { RedisCommands } from "./types";
import { UpstashRest } from "./upstash";

export type { RedisCommands } from "./types";
export { loadRedisHistory, saveRedisExchange } from "./history";

const truthy = (v: unknown) => v === true || v === "true" || v === 1 || v === "1";

export function redisFromCredential(credential: Record<string, unknown>, env: EndpointEnv, timeoutMs?: number): RedisCommands | undefined {
  const url = str(credential.redisUrl);
  if (url) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw fail(
        "MISSING_CREDENTIAL",
        "The Redis credential's redisUrl is not a URL (redis://host:6379, rediss://…, or an Upstash https:// URL)",
      );
    }
    const field = "redisCacheUrlApi credential redisUrl";
    if (parsed.protocol === "redis:" || parsed.protocol === "rediss:")
      return new RedisTcp({ ...tcpOptionsOfUrl(url), policy: { field, env }, timeoutMs });
    if (parsed.protocol === "https:" || parsed.protocol === "http:") {
      const token = decodeURIComponent(parsed.password || parsed.username);
      if (!token)
        throw fail("MISSING_CREDENTIAL", "An Upstash redisUrl needs its REST token as the URL's password (https://default:TOKEN@host)");
      parsed.username = "";
      parsed.password = "";
      return new UpstashRest(parsed.toString(), token, checkEndpoint(parsed.toString(), field, env), timeoutMs);
    }
    throw fail(
      "MISSING_CREDENTIAL",
      `The Redis credential's redisUrl must start with redis://, rediss:// or https:// (got ${parsed.protocol}//)`,
    );
  }
  const host = str(credential.redisCacheHost);
  if (!host) return undefined;
  const port = Number(str(credential.redisCachePort) ?? 6379);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw fail("MISSING_CREDENTIAL", "The Redis credential's redisCachePort is not a port number");
  return new RedisTcp({
    hostname: host,
    port,
    policy: { field: "redisCacheApi credential redisCacheHost", env },
    tls: truthy(credential.redisCacheSslEnabled),
    username: str(credential.redisCacheUser),
    password: str(credential.redisCachePwd),
    timeoutMs,
  });
}

export function upstashFromInputs(
  baseURL: string | undefined,
  credential: Record<string, unknown>,
  env: EndpointEnv,
  timeoutMs?: number,
): RedisCommands {
  if (!baseURL) throw fail("INVALID_FLOW", "UpstashRedisBackedChatMemory needs its baseURL input (https://<your-url>.upstash.io)");
  const token = str(credential.upstashRestToken);
  if (!token)
    throw fail(
      "MISSING_CREDENTIAL",
      "UpstashRedisBackedChatMemory is not configured: connect an upstashRedisMemoryApi credential with upstashRestToken",
    );
  return new UpstashRest(baseURL, token, checkEndpoint(baseURL, "UpstashRedisBackedChatMemory baseURL", env), timeoutMs);
}
