// The question's images in Agentflow V2 (Flowise's getUniqueImageMessages / processMessagesWithImages):
// the first LLM or Agent node whose model config has `allowImageUploads` on adds a user message of
// the request's images just before the question. Messages keep references only (`images`: a file by
// name, a link as it is), never the data, so executed data and the runtime history stay small; a
// model call resolves them from the request's uploads (core/images.ts), and only for a node whose
// model takes images — for any other node the image message is left out of its call.
import { type ImagePart, type RunUpload, imageParts, imageUploads } from "../core/images";
import type { ImageResolver } from "./messages";
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
  return (refs): ImagePart[] => {
    // A file the request no longer carries (a resumed run's, an earlier turn's) is not shown.
    const found = refs.flatMap((r) => (r.type === "url" ? [r] : files.filter((f) => f.name === r.name).slice(0, 1)));
    return imageParts(found, rt.ctx.runtime.maxUploadBytes);
  };
}
