// The question's images in Agentflow V2 (Flowise's getUniqueImageMessages / processMessagesWithImages):
// the first LLM or Agent node whose model config has `allowImageUploads` on adds a user message of
// the request's images just before the question. Messages keep references only (`images`: a file by
// name, a link as it is), never the data, so executed data and the runtime history stay small; a
// model call resolves them from the request's uploads (core/images.ts), and only for a node whose
// model takes images — for any other node the image message is left out of its call.
// Earlier turns' images (Flowise's getPastChatHistoryImageMessages) go on their past user message
// for such a node only, read back from R2 (core/past-images.ts, its bounds); the message keeps the
// references, their parts are kept beside them for this run's calls.
import { type ImagePart, type RunUpload, imageParts, imageUploads } from "../core/images";
import { pastImages } from "../core/past-images";
import type { MemorySettings } from "./memory";
import { type ImageResolver, turnWithUploads } from "./messages";
import type { NodeRuntime } from "./node-types";
import type { AgentflowMessage } from "./types";

const allows = (config: Record<string, unknown>) => config.allowImageUploads === true || config.allowImageUploads === "true";

/** The image message the first node adds before the question, or undefined (no images, a later node, a model without them). */
export function questionImages(rt: NodeRuntime, config: Record<string, unknown>): AgentflowMessage | undefined {
  if (rt.runtimeChatHistory.length || !allows(config)) return undefined;
  const uploads = imageUploads(rt.request.uploads);
  if (!uploads.length) return undefined;
  imageParts(uploads, rt.ctx.runtime.maxUploadBytes); // an image over the limit is a 413 before any call
  const refs = uploads.map((u): RunUpload => (u.type === "url" ? u : { type: "stored-file", name: u.name, mime: u.mime || "image/*" }));
  return { role: "user", content: "", images: refs };
}

/** How this node's model calls read image references: from the request's uploads; none when its model takes no images. */
export function imageResolver(rt: NodeRuntime, config: Record<string, unknown>): ImageResolver | undefined {
  if (!allows(config)) return undefined;
  const files = imageUploads(rt.request.uploads).filter((u) => u.type !== "url");
  return (refs): ImagePart[] =>
    refs.flatMap((r) => {
      const past = pastParts.get(r);
      if (past) return [past];
      // A file the request no longer carries (a resumed run's) is not shown.
      return imageParts(r.type === "url" ? [r] : files.filter((f) => f.name === r.name).slice(0, 1), rt.ctx.runtime.maxUploadBytes);
    });
}

// An earlier turn's image part by the reference its past message carries (never stored with it).
const pastParts = new WeakMap<RunUpload, ImagePart>();

/**
 * The session's past messages for this node's memory: an earlier user message that was sent with
 * images carries them (`images` references) when the node's model takes images and its memory keeps
 * messages (not a whole-conversation summary); otherwise, with nothing read, the messages as they are.
 */
export async function pastWithImages(
  rt: NodeRuntime,
  config: Record<string, unknown>,
  memory: MemorySettings,
): Promise<AgentflowMessage[]> {
  const past = rt.pastChatHistory;
  if (!memory.enabled || memory.type === "conversationSummary" || !allows(config)) return past;
  const turns = past.flatMap((m) => turnWithUploads(m) ?? []);
  if (!turns.length) return past;
  const found = await pastImages(turns, rt.ctx);
  if (!found.size) return past;
  return past.map((m) => {
    const turn = turnWithUploads(m);
    const images = turn && found.get(turn);
    if (!images) return m;
    for (const i of images) pastParts.set(i.ref, i.part);
    return { ...m, images: images.map((i) => i.ref) };
  });
}
