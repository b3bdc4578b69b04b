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

/** `apiConfig.rateLimit` {status, limitMax, limitDuration (s), limitMsg} per client IP → 429. */
export async function enforceRateLimit(env: Env, chatflowid: string, apiConfig: string | null, clientIp: string): Promise<void> {
  const config = configOf(apiConfig);
  const limitMax = Number(config?.limitMax);
  const seconds = Number(config?.limitDuration);
  if (!config?.status || !(limitMax > 0) || !(seconds > 0)) return;
  const ns = env.RATE_LIMITER as DurableObjectNamespace<RateLimiter> | undefined;
  if (!ns) return; // not bound (a deployment without the Durable Object): no limit rather than an outage
  const stub = ns.get(ns.idFromName(`${chatflowid}|${clientIp}`));
  const { allowed } = await stub.hit(limitMax, seconds * 1000);
  if (!allowed) throw tooManyRequests(config.limitMsg || "Too many requests, please try again later");
}

export function clientIpOf(headers: Headers): string {
  return headers.get("cf-connecting-ip") ?? headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "unknown";
}
