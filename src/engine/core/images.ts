// Images a chat model sees (Flowise's "Allow Image Uploads"). A chat model node whose
// `allowImageUploads` input is on is marked when it is built; a node Flowise gives images to
// (conversationChain, llmChain, the tool and ReAct agents, Agentflow's LLM and Agent) then adds the
// run's image uploads to the question's human message as LangChain's multimodal `image_url` parts,
// which each provider turns into its own wire format (providers/chat: OpenAI's image_url, Anthropic's
// and Gemini's inline base64, Bedrock Converse's bytes). The images come from the request itself
// (data: URIs, or links passed on as they are: the provider fetches a link, edgeflow never does);
// the run door stores them in R2 after the run, as it always did.
import type { BaseLanguageModelInterface } from "@langchain/core/language_models/base";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fail } from "../../errors";

/** An upload as the engine gets it from the request: a file as a data: URI, or a link (`type: "url"`). */
export interface RunUpload {
  type: string;
  name: string;
  mime: string;
  data?: string;
}

/** LangChain's image content part (OpenAI's shape); `detail` only when the model node sets one. */
export interface ImagePart {
  type: "image_url";
  image_url: { url: string; detail?: string };
}

interface Vision {
  detail?: string;
}

// Keyed by the built model object: the mark lives and dies with it (a model is built per run).
const vision = new WeakMap<object, Vision>();

const on = (v: unknown) => v === true || v === "true";
const DETAILS = new Set(["low", "high", "auto"]);

/** Marks a built chat model as one that takes images when its node's `allowImageUploads` is on (older nodes' `imageResolution` kept). */
export function markVision(model: unknown, inputs: Record<string, unknown>): void {
  if (!model || typeof model !== "object" || !on(inputs.allowImageUploads)) return;
  const detail = typeof inputs.imageResolution === "string" && DETAILS.has(inputs.imageResolution) ? inputs.imageResolution : undefined;
  vision.set(model, detail ? { detail } : {});
}

/** Whether a model was marked to take images (Flowise's llmSupportsVision). */
export const takesImages = (model: BaseLanguageModelInterface | object | undefined): boolean => !!model && vision.has(model);

/** The image `detail` a marked model's node sets (older flows' imageResolution), if any. */
export const imageDetail = (model: object): string | undefined => vision.get(model)?.detail;

const DATA_MIME = /^data:([^;,]*)/;
const LINK = /^https?:\/\//i;

/** An upload's media type: its own, else a data: URI's; a link without one is an image (Flowise's default, image/png). */
const mimeOf = (u: RunUpload): string => u.mime || DATA_MIME.exec(u.data ?? "")?.[1] || (u.type === "url" ? "image/png" : "");

/** Size of a data: URI's payload in bytes (base64 counted as what it decodes to). */
const payloadBytes = (uri: string): number => {
  const comma = uri.indexOf(",");
  const head = uri.slice(0, comma);
  const body = uri.length - comma - 1;
  return head.endsWith(";base64") ? Math.floor((body * 3) / 4) : body;
};

/**
 * The images among `uploads` (Flowise's getImageUploads): files (`file`, `stored-file`) with an image
 * media type and a data: URI, and http(s) links (`url`); anything else is not an image a model is shown.
 */
export function imageUploads(uploads: RunUpload[] | undefined): RunUpload[] {
  return (uploads ?? []).filter((u) => {
    if (!mimeOf(u).startsWith("image/") || !u.data) return false;
    if (u.type === "url" && LINK.test(u.data)) return true;
    return (u.type === "file" || u.type === "stored-file" || u.type === "url") && u.data.startsWith("data:");
  });
}

/** The image uploads as content parts: a file as its data: URI (one over `maxBytes` is a 413), a link as it is. */
export function imageParts(uploads: RunUpload[] | undefined, maxBytes: number, detail?: string): ImagePart[] {
  return imageUploads(uploads).map((u) => {
    const url = u.data as string;
    if (url.startsWith("data:") && payloadBytes(url) > maxBytes)
      throw fail("LIMIT_EXCEEDED", `uploads: the image ${u.name} is larger than ${Math.round(maxBytes / 1048576)} MB`);
    return { type: "image_url", image_url: detail ? { url, detail } : { url } };
  });
}

/** The parts a model is given: none unless it was marked to take images. */
export function imagePartsFor(model: unknown, uploads: RunUpload[] | undefined, maxBytes: number): ImagePart[] {
  if (!model || typeof model !== "object" || !uploads?.length) return [];
  const v = vision.get(model);
  return v ? imageParts(uploads, maxBytes, v.detail) : [];
}

/** A human message's content with image parts after its text (Flowise's order for a stored message with images). */
export function humanWithImages(content: BaseMessage["content"], parts: ImagePart[]): HumanMessage {
  // An empty text part is left out (Anthropic refuses empty text blocks): an image-only message is just its images.
  const text = typeof content === "string" ? (content ? [{ type: "text", text: content }] : []) : content;
  return new HumanMessage({ content: [...text, ...parts] as HumanMessage["content"] });
}

/** `messages` with the parts added to the last human message (the question's); unchanged when there are none. */
export function withImages(messages: BaseMessage[], parts: ImagePart[]): BaseMessage[] {
  if (!parts.length) return messages;
  const at = messages.findLastIndex((m) => m.getType() === "human");
  if (at < 0) return [...messages, new HumanMessage({ content: parts as unknown as HumanMessage["content"] })];
  const out = messages.slice();
  out[at] = humanWithImages(messages[at].content, parts);
  return out;
}
