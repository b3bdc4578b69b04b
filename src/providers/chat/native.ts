// A chat model with a native (non-OpenAI-shaped) API (Anthropic, Gemini, …): the call loop is
// RemoteChatModel's; a stream is server-sent events of JSON, each read by the provider's `chunks`.
// Also what their message conversions share (data: URLs, image parts).
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import type { Deadline } from "../../lib/run-control";
import { eventsOf } from "./http";
import { type BodyResponse, type RemoteCallOptions, RemoteChatModel } from "./remote";

export type NativeCallOptions = RemoteCallOptions;

export abstract class NativeChatModel<O extends NativeCallOptions = NativeCallOptions> extends RemoteChatModel<O> {
  /**
   * One stream event's JSON → the chunks it carries. `state` lives for one attempt (for APIs
   * that announce blocks before filling them).
   */
  protected abstract chunks(event: Record<string, unknown>, state: Record<string, unknown>): ChatGenerationChunk[];

  protected async *streamChunks(res: BodyResponse, deadline: Deadline): AsyncGenerator<ChatGenerationChunk> {
    const state: Record<string, unknown> = {};
    for await (const data of eventsOf(res.body, deadline)) {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(data) as Record<string, unknown>;
      } catch {
        continue; // keep-alive noise
      }
      yield* this.chunks(event, state);
    }
  }
}

/** `data:` URLs → {mime, base64}; undefined for anything else. */
export function dataUrl(url: string): { mime: string; data: string } | undefined {
  const m = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (!m?.[2]) return undefined;
  return { mime: m[1] ?? "application/octet-stream", data: m[3] };
}

/** The URL of a LangChain image_url content part (a string or {url}). */
export function imageUrlOf(part: Record<string, unknown>): string | undefined {
  const v = part.image_url;
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as { url?: unknown }).url === "string") return (v as { url: string }).url;
  return undefined;
}
