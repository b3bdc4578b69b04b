// What a webhook-triggered agentflow's Start node says (Flowise 3.1.4's Start node, `webhookTrigger`):
// the method and content type it takes, whether requests are signed and how, the shape it checks,
// how the caller is answered (sync, stream, async with a callback), and what the flow is given as
// its input (a text made from the request, nothing, or the whole payload).
import { startInputsOf } from "../runs";

export interface WebhookParam {
  name: string;
  required: boolean;
  type?: string;
}

export type ResponseMode = "sync" | "stream" | "async";
export type InputMode = "text" | "none" | "payload";

export interface StartWebhook {
  /** Upper-case; undefined: any method. */
  method?: string;
  contentType?: string;
  enableAuth: boolean;
  /** Lower-case. */
  signatureHeader: string;
  signatureType: "hmac-sha256" | "plain-token";
  enableValidation: boolean;
  headerParams: WebhookParam[];
  bodyParams: WebhookParam[];
  queryParams: WebhookParam[];
  responseMode: ResponseMode;
  /** Async mode only. */
  callbackUrl?: string;
  callbackSecret?: string;
  inputMode: InputMode;
  defaultInput: string;
}

const str = (v: unknown): string => (typeof v === "string" ? v.trim() : "");

/** Flowise's array inputs: rows of {name, type?, required}; rows without a name are ignored. */
function params(raw: unknown): WebhookParam[] {
  let rows = raw;
  if (typeof rows === "string") {
    try {
      rows = JSON.parse(rows);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(rows)) return [];
  return rows.flatMap((r) => {
    const name = str(r?.name);
    if (!name) return [];
    const type = str(r?.type);
    return [{ name, required: r?.required === true || r?.required === "true", ...(type ? { type } : {}) }];
  });
}

/** The Start node's webhook settings, when the flow is an agentflow triggered by one. */
export function webhookOfFlow(flow: { type: string | null; flowData: string }): StartWebhook | undefined {
  if (flow.type !== "AGENTFLOW") return undefined;
  let inputs: Record<string, unknown> | undefined;
  try {
    const nodes = (JSON.parse(flow.flowData) as { nodes?: unknown }).nodes;
    inputs = Array.isArray(nodes) ? startInputsOf(nodes) : undefined;
  } catch {
    return undefined;
  }
  if (inputs?.startInputType !== "webhookTrigger") return undefined;
  const mode = str(inputs.webhookResponseMode);
  const responseMode: ResponseMode = mode === "async" || mode === "stream" ? mode : "sync";
  const inputMode = str(inputs.webhookInputMode);
  return {
    method: str(inputs.webhookMethod).toUpperCase() || undefined,
    contentType: str(inputs.webhookContentType).toLowerCase() || undefined,
    enableAuth: inputs.webhookEnableAuth === true,
    signatureHeader: (str(inputs.webhookSignatureHeader) || "x-webhook-signature").toLowerCase(),
    signatureType: inputs.webhookSignatureType === "plain-token" ? "plain-token" : "hmac-sha256",
    enableValidation: inputs.webhookEnableValidation === true,
    headerParams: params(inputs.webhookHeaderParams),
    bodyParams: params(inputs.webhookBodyParams),
    queryParams: params(inputs.webhookQueryParams),
    responseMode,
    // Flowise reads the callback only in async mode.
    callbackUrl: responseMode === "async" ? str(inputs.callbackUrl) || undefined : undefined,
    callbackSecret: responseMode === "async" ? str(inputs.callbackSecret) || undefined : undefined,
    inputMode: inputMode === "none" || inputMode === "payload" ? inputMode : "text",
    defaultInput: typeof inputs.webhookDefaultInput === "string" ? inputs.webhookDefaultInput : "",
  };
}
