// The file name and media type a recording is uploaded under to an OpenAI-shaped transcription
// service. OpenAI and Groq decide the format from the name's extension and refuse any other
// ("Invalid file format. Supported formats: …"; Groq: "file must be one of the following types: …"),
// and OpenAI's gpt-4o models refuse bytes that are not what the name says (unsupported_format). What a
// client names its upload is no guide: `recording`, `upload.bin`, `voice.opus` (Groq only), `voice.oga`
// (OpenAI only), `blob` (a multipart Blob), or none. So the extension is the bytes' container where it
// can be read, else the client's own extension when both services take it, else the MIME type's.
import type { AudioClip } from "./types";
import { ascii } from "./duration";

/** The extensions both OpenAI and Groq take (OpenAI also takes oga, Groq also opus: both are Ogg). */
const ACCEPTED = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "ogg", "wav", "webm"];

type Container = "webm" | "ogg" | "mp4" | "wav" | "mp3" | "flac";

const CONTAINER_OF_EXTENSION: Record<string, Container> = {
  webm: "webm",
  ogg: "ogg",
  m4a: "mp4",
  mp4: "mp4",
  wav: "wav",
  mp3: "mp3",
  mpeg: "mp3",
  mpga: "mp3",
  flac: "flac",
};

const EXTENSION_OF_CONTAINER: Record<Container, string> = { webm: "webm", ogg: "ogg", mp4: "m4a", wav: "wav", mp3: "mp3", flac: "flac" };

/** A media type's container: its `;codecs=…` and other parameters dropped (Chrome's audio/webm;codecs=opus). */
const CONTAINER_OF_MIME: Record<string, Container> = {
  "audio/webm": "webm",
  "video/webm": "webm",
  "audio/ogg": "ogg",
  "audio/opus": "ogg",
  "application/ogg": "ogg",
  "audio/mp4": "mp4",
  "audio/x-m4a": "mp4",
  "audio/m4a": "mp4",
  "video/mp4": "mp4",
  "audio/wav": "wav",
  "audio/wave": "wav",
  "audio/x-wav": "wav",
  "audio/vnd.wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/flac": "flac",
  "audio/x-flac": "flac",
};

const TYPE_OF_CONTAINER: Record<Container, string> = {
  webm: "audio/webm",
  ogg: "audio/ogg",
  mp4: "audio/mp4",
  wav: "audio/wav",
  mp3: "audio/mpeg",
  flac: "audio/flac",
};

/** The container `bytes` are, by their signature (what a decoder probes), or undefined. */
export function containerOf(b: Uint8Array): Container | undefined {
  if (b.length < 12) return undefined;
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE")) return "wav";
  if (ascii(b, 0, "OggS")) return "ogg";
  if (ascii(b, 4, "ftyp")) return "mp4";
  if (ascii(b, 0, "fLaC")) return "flac";
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return "webm";
  if (ascii(b, 0, "ID3") || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0)) return "mp3";
  return undefined;
}

/** The name (the client's, its extension set right) and the media type (without parameters) to upload `clip` as. */
export function uploadFileOf(clip: AudioClip): { name: string; type: string } {
  const dot = clip.name.lastIndexOf(".");
  const given = dot > 0 ? clip.name.slice(dot + 1).toLowerCase() : "";
  const base = (dot > 0 ? clip.name.slice(0, dot) : clip.name).trim() || "audio";
  const found = containerOf(clip.bytes);
  const declared = CONTAINER_OF_MIME[clip.mime.split(";")[0].trim().toLowerCase()];
  let extension: string;
  if (ACCEPTED.includes(given) && (!found || CONTAINER_OF_EXTENSION[given] === found)) extension = given;
  else if (found) extension = EXTENSION_OF_CONTAINER[found];
  else if (declared) extension = EXTENSION_OF_CONTAINER[declared];
  else extension = "webm"; // what browsers record, and Flowise's widget's own fallback
  return { name: `${base}.${extension}`, type: TYPE_OF_CONTAINER[CONTAINER_OF_EXTENSION[extension]] };
}
