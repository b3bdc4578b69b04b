import { configOf as workerConfigOf } from "../config";
import type { Env } from "../env";
import { tooManyRequests } from "../errors";
import type { RateLimiter } from "./limiter";

interface RateLimitConfig {
  status?: boolean;
  limitMax?: number | string;
  limitDuration?: number | string;
  limitMsg?: string;
}

function configOf(apiConfig: string | null): RateLimitConfig | null {
  if (!apiConfig) return null;
  try {
    return (JSON.parse(apiConfig) as { rateLimit?: RateLimitConfig })?.rateLimit ?? null;
  } catch {
    return null;
  }
}

/**
 * `apiConfig.rateLimit` {status, limitMax, limitDuration (s), limitMsg} per client IP → 429.
 * `bucket` keeps separate counts for what a chat also does besides predicting (leads, feedback, attachments),
 * so rating answers does not use up the questions a person may ask.
 */
export async function enforceRateLimit(
  env: Env,
  chatflowid: string,
  apiConfig: string | null,
  clientIp: string,
  bucket?: "leads" | "feedback" | "attachments",
): Promise<void> {
  const config = configOf(apiConfig);
  const limitMax = Number(config?.limitMax);
  const seconds = Number(config?.limitDuration);
  if (!config?.status || !(limitMax > 0) || !(seconds > 0)) return;
  const ns = env.RATE_LIMITER as DurableObjectNamespace<RateLimiter> | undefined;
  if (!ns) return; // not bound (a deployment without the Durable Object): no limit rather than an outage
  const stub = ns.get(ns.idFromName(bucket ? `${chatflowid}|${clientIp}|${bucket}` : `${chatflowid}|${clientIp}`));
  const { allowed } = await stub.hit(limitMax, seconds * 1000);
  if (!allowed) throw tooManyRequests(config.limitMsg || "Too many requests, please try again later");
}

/** Every client counted as one: what is left when no header can be trusted to tell them apart. */
export const UNTRUSTED_CLIENT = "untrusted-client";

/**
 * The client's address, for rate limits. Cloudflare's edge sets CF-Connecting-IP and overwrites
 * any value the client sent; elsewhere (wrangler dev, or a worker reached some other way) the
 * client may send any value, and a new one would start a fresh count. So it is read only when the
 * deployment says it sits behind Cloudflare (TRUST_CF_CONNECTING_IP = "true"); otherwise all
 * clients share one count. X-Forwarded-For is never read: clients set it freely.
 */
export function clientIpOf(headers: Headers, env: Env): string {
  if (!workerConfigOf(env).TRUST_CF_CONNECTING_IP) return UNTRUSTED_CLIENT;
  return headers.get("cf-connecting-ip")?.trim() || UNTRUSTED_CLIENT;
}
