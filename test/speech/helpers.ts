// Speech tests' pieces: recordings that "say" a text (the stand-ins hear what follows `say:` in the
// bytes: test/providers/standin-worker.mjs, test/standin/speech.mjs), the Voice Assistant template
// saved with given speech settings, credentials pointed at the speech stand-in, and Flowise's
// text-to-speech frames read back.
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { call, json } from "../helpers";
import { NAMES, saveTemplate, template } from "../studio/templates";

export const speechUrl = () => inject("speechUrl");
export const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

type Speech = { model: string; [k: string]: unknown };
type Chat = { model: string; messages: { role: string; content: string }[] };
const ai = env.AI as unknown as { speeches(): Promise<Speech[]>; chats(): Promise<Chat[]> };

/** What the Workers AI stand-in was asked (speech, chat) while `work` ran. */
export async function aiDuring<T>(work: () => Promise<T>): Promise<{ result: T; speeches: Speech[]; chats: Chat[] }> {
  const [s, c] = [(await ai.speeches()).length, (await ai.chats()).length];
  const result = await work();
  return { result, speeches: (await ai.speeches()).slice(s), chats: (await ai.chats()).slice(c) };
}

/** A WAV recording (8 kHz, 8-bit mono) of `seconds` that says `text`. */
export function wav(text: string, seconds = 1): Uint8Array {
  const rate = 8000;
  const data = new Uint8Array(Math.round(rate * seconds));
  data.set(new TextEncoder().encode(`say: ${text}\u0000`));
  const out = new Uint8Array(44 + data.length);
  const v = new DataView(out.buffer);
  const put = (at: number, s: string) => out.set(new TextEncoder().encode(s), at);
  put(0, "RIFF");
  v.setUint32(4, 36 + data.length, true);
  put(8, "WAVE");
  put(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, 1, true); // mono
  v.setUint32(24, rate, true);
  v.setUint32(28, rate, true); // byte rate
  v.setUint16(32, 1, true);
  v.setUint16(34, 8, true);
  put(36, "data");
  v.setUint32(40, data.length, true);
  out.set(data, 44);
  return out;
}

/**
 * A recording in a browser's container that says `text`: its signature (what a decoder, and the
 * stand-in, probe), then `say: text`. WebM is Chrome's, MP4 Safari's (and an .m4a upload's), Ogg Firefox's.
 */
export function recorded(container: "webm" | "mp4" | "ogg", text: string): Uint8Array {
  const head = {
    webm: [0x1a, 0x45, 0xdf, 0xa3, 0x80],
    mp4: [0, 0, 0, 24, ...new TextEncoder().encode("ftypM4A "), 0, 0, 0, 0, ...new TextEncoder().encode("M4A isom")],
    ogg: [...new TextEncoder().encode("OggS"), 0, 2, ...new Array(22).fill(0)],
  }[container];
  return new Uint8Array([...head, ...new TextEncoder().encode(`say: ${text}\u0000`)]);
}

export function dataUri(bytes: Uint8Array, mime = "audio/wav"): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${mime};base64,${btoa(binary)}`;
}

/** The widget's microphone upload. */
export const recording = (text: string, seconds = 1) => ({
  type: "audio",
  name: "audio.wav",
  mime: "audio/wav",
  data: dataUri(wav(text, seconds)),
});

const made: string[] = [];
/** Deletes what the tests made. */
export async function cleanUp(): Promise<void> {
  while (made.length) {
    const [kind, id] = made.pop()!.split(":");
    await call("DELETE", `/${kind}/${id}`);
  }
}

/** The Voice Assistant template (a Workers AI chat model with memory), saved with these speech settings. */
export async function voiceFlow(settings: { speechToText?: unknown; textToSpeech?: unknown; isPublic?: boolean } = {}): Promise<string> {
  const { template: t, flow } = await template(NAMES.voice);
  const extra: Record<string, unknown> = {};
  if (settings.speechToText !== undefined) extra.speechToText = JSON.stringify(settings.speechToText);
  if (settings.textToSpeech !== undefined) extra.textToSpeech = JSON.stringify(settings.textToSpeech);
  if (settings.isPublic) extra.isPublic = true;
  const saved = await saveTemplate(t, flow, extra);
  made.push(`chatflows:${saved.id}`);
  return saved.id;
}

/** A stored credential of `credentialName` with these values. */
export async function credential(credentialName: string, values: Record<string, string>): Promise<string> {
  const { id } = await json("POST", "/credentials", { body: { name: `speech ${marker()}`, credentialName, plainDataObj: values } });
  made.push(`credentials:${id}`);
  return id;
}

/** What the speech stand-in received whose record contains `text`. */
export async function received(text: string): Promise<any[]> {
  return (await fetch(`${speechUrl()}/requests?contains=${encodeURIComponent(text)}`)).json();
}

export interface TtsFrame {
  event: string;
  data: { chatMessageId?: string; format?: string; audioChunk?: string; error?: string };
}

/** Flowise's text-to-speech frames (`event:` and `data:` lines), and the audio their chunks carry. */
export function ttsFrames(text: string): { frames: TtsFrame[]; audio: string } {
  const frames = text
    .split("\n\n")
    .filter((b) => b.trim())
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = JSON.parse(lines.find((l) => l.startsWith("data: "))!.slice(6));
      if (data.event !== event) throw new Error(`event line ${event} and data's ${data.event} differ`);
      return data as TtsFrame;
    });
  const audio = frames
    .filter((f) => f.event === "tts_data")
    .map((f) => atob(f.data.audioChunk!))
    .join("");
  return { frames, audio };
}
