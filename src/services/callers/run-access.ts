// The run rule and the origin rule, as plain data (no HTTP): auth/prediction-access.ts applies them
// to a request, the run door (services/runs) to a caller its adapter describes.
import type { Principal } from "../../env";
import { forbidden, unauthorized } from "../../errors";
import { accessOf, flowInScope, isOwner, outOfScope } from "./access";

/** What the run rule reads of a chatflow (or assistant, which is never public and has no key). */
export interface RunTarget {
  id: string;
  isPublic: boolean;
  apikeyid: string | null;
}

/** assertMayRun's rule for a principal already resolved (the run door gets the caller as data). */
export function assertPrincipalMayRun(principal: Principal | null, flow: RunTarget): void {
  if (flow.apikeyid) {
    if (isOwner(principal)) return;
    if (principal?.kind !== "apikey" || principal.keyId !== flow.apikeyid)
      throw unauthorized("Unauthorized: this chatflow requires its API key");
  } else if (flow.isPublic) {
    return;
  } else if (!principal) {
    throw unauthorized("Unauthorized: this chatflow is not public; a bearer token is required");
  }
  if (!flowInScope(accessOf(principal), flow.id)) throw outOfScope();
}

interface ChatbotConfig {
  allowedOrigins?: unknown;
  allowedOriginsError?: unknown;
}

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * `chatbotConfig.allowedOrigins` (empty = all) against the Origin header. A request without an
 * Origin (a server, curl) is not a browser page and is let through; browsers always send one on
 * the widget's cross-origin POST.
 */
export function assertOriginAllowed(chatbotConfig: string | null, origin: string | undefined): void {
  if (!chatbotConfig || !origin) return;
  let config: ChatbotConfig;
  try {
    config = JSON.parse(chatbotConfig) as ChatbotConfig;
  } catch {
    return;
  }
  const allowed = Array.isArray(config?.allowedOrigins)
    ? config.allowedOrigins.filter((o): o is string => typeof o === "string" && o.trim() !== "").map((o) => originOf(o.trim()) ?? o.trim())
    : [];
  if (!allowed.length || allowed.includes("*")) return;
  if (allowed.includes(originOf(origin) ?? origin)) return;
  const message =
    typeof config.allowedOriginsError === "string" && config.allowedOriginsError
      ? config.allowedOriginsError
      : "This site is not allowed to access this chatbot";
  throw forbidden(message);
}
