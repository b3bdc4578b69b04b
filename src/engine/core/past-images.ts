// Earlier turns' images (Flowise's mapChatMessageToBaseMessage and Agentflow's
// getPastChatHistoryImageMessages): a model that takes images sees, on a later turn, the images an
// earlier user message was sent with. The stored message records them in `fileUploads` (a file as
// `{type: "stored-file", name, mime}`, kept in R2 under `<chatflowid>/<chatId>/<name>`; a link as
// `{type: "url", url}`): files are read back through the files port, links go as they are (the
// provider fetches a link, edgeflow never does). Only called for a model marked to take images, so a
// text model's run reads nothing more; a stored file that is gone is left out.
//
// Bounded, where Flowise sends every earlier image: the most recent PAST_IMAGE_TURNS user messages
// with images, at most PAST_IMAGE_COUNT images, and at most PAST_IMAGE_BYTES of stored files (read
// newest first, one at a time, so a run never holds more than the budget and one file).
import type { BaseMessage } from "@langchain/core/messages";
import { toBase64 } from "../../lib/crypto";
import { type ImagePart, type RunUpload, humanWithImages, imageDetail, imageUploads, takesImages } from "./images";
import type { RunContext } from "./ports";
import { turnWithUploads } from "./turns";
import type { ChatTurn } from "./types";

export const PAST_IMAGE_TURNS = 3;
export const PAST_IMAGE_COUNT = 10;
export const PAST_IMAGE_BYTES = 10 * 1024 * 1024;

/** One earlier image: its reference (as executed data may show it, without data) and its content part. */
export interface PastImage {
  ref: RunUpload;
  part: ImagePart;
}

interface Recorded {
  type?: unknown;
  name?: unknown;
  mime?: unknown;
  url?: unknown;
  data?: unknown;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** The images a stored user turn recorded, as references (a link with its `data`); none when unreadable. */
function recordedImages(turn: ChatTurn): RunUpload[] {
  if (turn.role !== "userMessage" || !turn.fileUploads) return [];
  let list: unknown;
  try {
    list = JSON.parse(turn.fileUploads);
  } catch {
    return []; // Flowise too falls back to the text
  }
  if (!Array.isArray(list)) return [];
  const refs = (list as Recorded[]).flatMap((u): RunUpload[] => {
    if (!u || typeof u !== "object") return [];
    if (u.type === "url") return [{ type: "url", name: text(u.name), mime: text(u.mime), data: text(u.url) || text(u.data) }];
    if (u.type === "stored-file" && text(u.mime).startsWith("image/") && text(u.name) && !text(u.name).includes("/"))
      return [{ type: "stored-file", name: text(u.name), mime: text(u.mime) }];
    return [];
  });
  // Links by the same rule as the question's (http(s), an image type or none); files are checked when read.
  const links = new Set(imageUploads(refs.filter((r) => r.type === "url")));
  return refs.filter((r) => r.type === "stored-file" || links.has(r));
}

/**
 * The earlier images of `turns` (stored turns: only they carry `fileUploads` and `chatId`), by turn;
 * `detail` as the model node sets it. Reads R2 only for turns that recorded images.
 */
export async function pastImages(turns: ChatTurn[], ctx: RunContext, detail?: string): Promise<Map<ChatTurn, PastImage[]>> {
  const out = new Map<ChatTurn, PastImage[]>();
  const chosen: Array<[ChatTurn, RunUpload[]]> = [];
  for (let i = turns.length - 1; i >= 0 && chosen.length < PAST_IMAGE_TURNS; i--) {
    const refs = recordedImages(turns[i]);
    if (refs.length) chosen.push([turns[i], refs]);
  }
  const max = Math.min(ctx.runtime.maxUploadBytes, PAST_IMAGE_BYTES);
  let bytes = 0;
  let count = 0;
  for (const [turn, refs] of chosen) {
    const images: PastImage[] = [];
    for (const ref of refs) {
      if (count >= PAST_IMAGE_COUNT) break;
      const file = ref.type === "url" ? undefined : await storedFile(ctx, turn.chatId, ref, Math.min(max, PAST_IMAGE_BYTES - bytes));
      const url = ref.type === "url" ? ref.data : file?.uri;
      if (!url) continue;
      bytes += file?.size ?? 0;
      count++;
      images.push({ ref, part: { type: "image_url", image_url: detail ? { url, detail } : { url } } });
    }
    if (images.length) out.set(turn, images);
  }
  return out;
}

/** A stored image file as a data: URI and its size; undefined when it is gone, unreadable, not an image or over `room` bytes. */
async function storedFile(ctx: RunContext, chatId: string | undefined, ref: RunUpload, room: number) {
  if (!chatId || room <= 0) return undefined;
  // A read that fails is treated as a file that is gone: the earlier images are extra context, the question still runs.
  const file = await ctx.runtime.files.read(`${ctx.chatflowid}/${chatId}/${ref.name}`).catch(() => undefined);
  if (!file || file.bytes.byteLength > room) return undefined;
  const mime = ref.mime || file.mime;
  return mime.startsWith("image/") ? { uri: `data:${mime};base64,${toBase64(file.bytes)}`, size: file.bytes.byteLength } : undefined;
}

/**
 * A chatflow memory's messages with earlier turns' images on their human messages (text first, as
 * Flowise's memory rebuilds them): unchanged, with nothing read, unless `model` takes images and a
 * message came from a stored turn that recorded uploads (./turns.ts).
 */
export async function withPastImages(history: BaseMessage[], model: unknown, ctx: RunContext): Promise<BaseMessage[]> {
  if (!history.length || !model || typeof model !== "object" || !takesImages(model)) return history;
  const turns = history.flatMap((m) => turnWithUploads(m) ?? []);
  if (!turns.length) return history;
  const found = await pastImages(turns, ctx, imageDetail(model));
  if (!found.size) return history;
  return history.map((m) => {
    const turn = turnWithUploads(m);
    const images = turn && found.get(turn);
    return images
      ? humanWithImages(
          m.content,
          images.map((i) => i.part),
        )
      : m;
  });
}
