// Speech services as edgeflow calls them (src/providers/speech/), in Node (vitest globalSetup). A
// recording "says" what follows `say:` in its bytes; spoken audio is a silent MP3 whose ID3 tag
// carries the text. Each request is recorded (path, headers, form fields or JSON, the file's
// name, type and size) for GET /requests?contains=<marker>. `hears`: what a recording without `say:`
// is heard as (a browser's microphone: the e2e's fake device records a tone; default: nothing).
//   POST /v1/audio/transcriptions                OpenAI (multipart, Bearer) → {text}
//   POST /openai/v1/audio/transcriptions         Groq (its base is api.groq.com/openai/v1) → {text}
//   POST /localai/v1/audio/transcriptions        LocalAI (any model, any file) → {text}
//   POST /v1/audio/speech                        OpenAI TTS ({model, voice, input}, Bearer) → mp3 bytes, in chunks
//   POST /v1/text-to-speech/{voice}/stream       ElevenLabs (xi-api-key) → mp3 bytes, in chunks
//   GET  /v1/voices                              ElevenLabs (xi-api-key) → {voices}
//   POST /speechtotext/transcriptions:transcribe Azure (multipart: audio, definition; Ocp-Apim-Subscription-Key)
//   POST /v2/upload, POST /v2/transcript, GET /v2/transcript/{id}   AssemblyAI (authorization)
// Strict: each service refuses what its documentation (or its answers quoted in public issues) says it
// refuses, with its own status and error shape; the validate…() functions below say which and where from.
import { createServer } from "node:http";

const heard = (bytes, otherwise = "") => {
  const text = Buffer.from(bytes).toString("latin1");
  const at = text.indexOf("say:");
  return at < 0
    ? otherwise
    : text
        .slice(at + 4)
        .split("\u0000")[0]
        .trim();
};
// Spoken audio is a real MP3 a browser can play: an ID3v2.3 tag whose TXXX frame carries
// "spoken: <text>", then silent MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, mono: 417 bytes each;
// zero side information decodes to silence). Bytes that only looked like an MP3 made Chromium's
// MediaSource fail in the studio's test chat ("no supported source"), a path on which Flowise's UI
// throws ReferenceError (an undeclared `mimeType` in its catch).
const SILENT_FRAME = Buffer.alloc(417);
SILENT_FRAME.set([0xff, 0xfb, 0x90, 0xc0]);
const FRAMES = 8; // 0.2 s
function spoken(text) {
  const value = Buffer.from(`\u0000\u0000spoken: ${text}`, "latin1"); // encoding latin1, empty description
  const frame = Buffer.concat([Buffer.from("TXXX"), Buffer.alloc(4), Buffer.alloc(2), value]);
  frame.writeUInt32BE(value.length, 4);
  const size = frame.length; // syncsafe: 7 bits a byte
  const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, (size >> 21) & 127, (size >> 14) & 127, (size >> 7) & 127, size & 127]);
  return Buffer.concat([header, frame, ...Array(FRAMES).fill(SILENT_FRAME)]);
}

// ---- What each service refuses. Each validate…() answers [status, body] when it refuses, else nothing.

/** The container the bytes are, by their signature (as a decoder probes them), or undefined. */
function containerOf(bytes) {
  const b = Buffer.from(bytes.subarray(0, 12));
  if (b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WAVE") return "wav";
  if (b.toString("latin1", 0, 4) === "OggS") return "ogg";
  if (b.toString("latin1", 4, 8) === "ftyp") return "mp4";
  if (b.toString("latin1", 0, 4) === "fLaC") return "flac";
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return "webm";
  if (b.toString("latin1", 0, 3) === "ID3" || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0)) return "mp3";
  return undefined;
}
const CONTAINER_OF_EXTENSION = { webm: "webm", ogg: "ogg", oga: "ogg", opus: "ogg", m4a: "mp4", mp4: "mp4", wav: "wav" };
Object.assign(CONTAINER_OF_EXTENSION, { mp3: "mp3", mpeg: "mp3", mpga: "mp3", flac: "flac" });
const extensionOf = (name) => (name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "");

const openAIError = (status, message, { type = "invalid_request_error", param = null, code = null } = {}) => [
  status,
  { error: { message, type, param, code } },
];
// OpenAI decides the format from the file NAME's extension. Message quoted in openai-python and
// pipedream issues (400, invalid_request_error, param and code null).
const OPENAI_FORMATS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"];
// "For legacy/whisper-1 … the maximum request size is 25 MiB" (OpenAI's Audio API FAQ); the answer
// past it is a 413 quoted in chidiwilliams/buzz#381 and StanGirard/speechdigest#1.
const OPENAI_MAX_BYTES = 26_214_400;
const OPENAI_RESPONSE_FORMATS = ["json", "text", "srt", "verbose_json", "vtt", "diarized_json"]; // createTranscription reference

/** OpenAI's POST /v1/audio/transcriptions (developers.openai.com: createTranscription). */
function validateOpenAITranscription(raw, form) {
  if (raw.length > OPENAI_MAX_BYTES)
    return openAIError(413, `Maximum content size limit (${OPENAI_MAX_BYTES}) exceeded (${raw.length} bytes read)`, {
      type: "server_error",
    });
  const file = form?.get("file");
  if (!file || typeof file === "string")
    return openAIError(400, "file is required: the audio file object (not file name)", { param: "file" });
  const model = form.get("model");
  if (!model) return openAIError(400, "you must provide a model parameter", { param: "model" });
  if (!OPENAI_FORMATS.includes(extensionOf(file.name)))
    return openAIError(400, `Invalid file format. Supported formats: [${OPENAI_FORMATS.map((f) => `'${f}'`).join(", ")}]`);
  const format = form.get("response_format");
  if (format && !OPENAI_RESPONSE_FORMATS.includes(format))
    return openAIError(400, `Invalid response_format ${format}`, { param: "response_format" });
  return undefined;
}

/**
 * The gpt-4o transcription models also refuse bytes that are not what the name says: M4A bytes sent as
 * audio.wav are a 400 unsupported_format (recorded live in vercel/ai#14721, its fixture quoted here).
 */
async function validateOpenAIContent(form) {
  const model = String(form.get("model"));
  if (!model.startsWith("gpt-")) return undefined;
  const file = form.get("file");
  const actual = containerOf(new Uint8Array(await file.arrayBuffer()));
  if (actual && actual !== CONTAINER_OF_EXTENSION[extensionOf(file.name)])
    return openAIError(400, "This model does not support the format you provided.", { param: "messages", code: "unsupported_format" });
  return undefined;
}

// Groq: its own extension list (opus yes, oga no), quoted from its answers in vercel/ai#6413 and
// chigwell/telegram-mcp#219; "File uploads are limited to 25 MB" and its two models (console.groq.com
// docs, speech-to-text); response_format json, verbose_json or text ("vtt and srt are not supported").
const GROQ_FORMATS = ["flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "opus", "wav", "webm"];
const GROQ_MODELS = ["whisper-large-v3", "whisper-large-v3-turbo"];
const GROQ_MAX_BYTES = 25 * 1024 * 1024;

/** Groq's POST /openai/v1/audio/transcriptions. */
function validateGroqTranscription(form) {
  const file = form?.get("file");
  if (!file || typeof file === "string") return openAIError(400, "file is required", { param: "file" });
  // The status and shape of this one are not quoted anywhere we found: Groq's usual error body.
  if (file.size > GROQ_MAX_BYTES) return openAIError(413, "Request Entity Too Large", { code: "request_too_large" });
  const model = form.get("model");
  if (!GROQ_MODELS.includes(model))
    return openAIError(404, `The model \`${model}\` does not exist or you do not have access to it.`, { code: "model_not_found" });
  if (!GROQ_FORMATS.includes(extensionOf(file.name)))
    return openAIError(400, `file must be one of the following types: [${GROQ_FORMATS.join(" ")}]`, { code: "unsupported_audio_format" });
  const format = form.get("response_format");
  if (format && !["json", "verbose_json", "text"].includes(format))
    return openAIError(400, `response_format must be one of json, verbose_json, text`, { param: "response_format" });
  return undefined;
}

/** LocalAI's: models are whatever it serves, and no other refusal of its was found documented; a file it needs. */
function validateLocalAITranscription(form) {
  const file = form?.get("file");
  return !file || typeof file === "string" ? openAIError(400, "file is required", { param: "file" }) : undefined;
}

// OpenAI TTS (developers.openai.com: createSpeech): input at most 4096 characters, the built-in
// voices (or a custom {id}), response_format and speed 0.25–4.0. The wording of the messages is ours.
const OPENAI_VOICES = ["alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse", "marin", "cedar"];
const OPENAI_SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"];

/** OpenAI's POST /v1/audio/speech. */
function validateOpenAISpeech(body) {
  if (!body?.model) return openAIError(400, "you must provide a model parameter", { param: "model" });
  if (typeof body.input !== "string" || !body.input) return openAIError(400, "input is required", { param: "input" });
  if ([...body.input].length > 4096)
    return openAIError(400, `input is ${[...body.input].length} characters: the maximum length is 4096`, { param: "input" });
  const voice = body.voice;
  if (!(OPENAI_VOICES.includes(voice) || (typeof voice?.id === "string" && voice.id)))
    return openAIError(400, `voice must be one of ${OPENAI_VOICES.join(", ")}, or a custom voice {id}`, { param: "voice" });
  if (body.response_format !== undefined && !OPENAI_SPEECH_FORMATS.includes(body.response_format))
    return openAIError(400, `response_format must be one of ${OPENAI_SPEECH_FORMATS.join(", ")}`, { param: "response_format" });
  if (body.speed !== undefined && !(body.speed >= 0.25 && body.speed <= 4))
    return openAIError(400, "speed must be between 0.25 and 4.0", { param: "speed" });
  return undefined;
}

// ElevenLabs (elevenlabs.io API reference, "Stream speech"): text required, output_format "formatted
// as codec_sample_rate_bitrate" (mp3_44100_128; the full list changes by plan, so only the form is
// checked); characters per request by model (ElevenLabs' model pages as listed by OpenRouter and
// Vercel's gateway; eleven_v3's is quoted as both 3,000 and 5,000, so not checked). The detail
// {status, message} shape is the one its 401 answers; the codes and wording of these are ours.
const ELEVENLABS_MAX_CHARS = {
  eleven_multilingual_v2: 10_000,
  eleven_flash_v2_5: 40_000,
  eleven_turbo_v2_5: 40_000,
  eleven_flash_v2: 30_000,
  eleven_turbo_v2: 30_000,
};
const elevenError = (status, code, message) => [status, { detail: { status: code, message } }];

/** ElevenLabs' POST /v1/text-to-speech/{voice}/stream. */
function validateElevenLabsSpeech(body, url) {
  const format = url.searchParams.get("output_format");
  if (format && !/^[a-z0-9]+_\d+(_\d+)?$/.test(format)) return elevenError(400, "invalid_output_format", `Invalid output format ${format}`);
  if (typeof body?.text !== "string" || !body.text.trim()) return elevenError(400, "invalid_text", "text is required");
  const model = body.model_id ?? "eleven_multilingual_v2";
  const max = ELEVENLABS_MAX_CHARS[model];
  if (max && body.text.length > max)
    return elevenError(400, "max_character_limit_exceeded", `This request's text has ${body.text.length} characters, over ${max}`);
  return undefined;
}

// Azure fast transcription (learn.microsoft.com: fast-transcription-create): multipart `audio` and
// `definition` (JSON); locales optional but a list; profanityFilterMode None, Masked, Removed or Tags;
// at most two channels ("Up to two channels are supported"). The error body's shape is assumed, not quoted.
const azureError = (status, message) => [status, { error: { code: "InvalidArgument", message } }];

// Fast transcription went GA as api-version 2024-11-15; the preview 2024-05-15-preview was to be "retired
// without notice 90 days after … the general availability (GA) of the API" (the preview's own page).
const AZURE_RETIRED_VERSIONS = new Set(["2024-05-15-preview"]);

/** Azure's POST /speechtotext/transcriptions:transcribe. */
function validateAzureTranscription(form, url) {
  const version = url.searchParams.get("api-version");
  if (!version) return azureError(400, "The api-version query parameter is required");
  if (AZURE_RETIRED_VERSIONS.has(version)) return azureError(400, `The api-version ${version} is retired; use 2024-11-15`);
  const audio = form?.get("audio");
  if (!audio || typeof audio === "string") return azureError(400, "The audio part is required");
  let definition; // its absence is not known to be refused: only a definition that is not JSON
  try {
    definition = JSON.parse(form.get("definition") ?? "{}");
  } catch {
    return azureError(400, "The definition part must be JSON");
  }
  const { locales, profanityFilterMode, channels } = definition ?? {};
  if (locales !== undefined && !(Array.isArray(locales) && locales.every((l) => typeof l === "string" && l)))
    return azureError(400, "definition.locales must be a list of locales");
  if (profanityFilterMode !== undefined && !["None", "Masked", "Removed", "Tags"].includes(profanityFilterMode))
    return azureError(400, `definition.profanityFilterMode ${profanityFilterMode} is not None, Masked, Removed or Tags`);
  if (channels !== undefined && !(Array.isArray(channels) && channels.length <= 2 && channels.every((c) => Number.isInteger(c) && c >= 0)))
    return azureError(400, "definition.channels: at most two zero-based channel indices");
  return undefined;
}

// AssemblyAI (assemblyai.com docs, transcribe a pre-recorded file): audio_url required, and now
// speech_models too — a non-empty list; the singular speech_model and universal-3-pro are refused.
// Messages quoted from its answers in FujiwaraChoki/supoclip#11 and #43, TypeWhisper/typewhisper-mac#1042.
const ASSEMBLYAI_MODELS = ["universal-3-5-pro", "universal-2"];

/** AssemblyAI's POST /v2/transcript. */
function validateAssemblyAITranscript(body) {
  if (typeof body?.audio_url !== "string" || !body.audio_url) return [400, { error: "audio_url is required" }];
  if (body.speech_model !== undefined)
    return [400, { error: 'speech_model is deprecated. Use "speech_models" instead. See documentation.' }];
  const models = body.speech_models;
  if (Array.isArray(models) && models.includes("universal-3-pro"))
    return [
      400,
      {
        error:
          'The "universal-3-pro" speech model(s) have been deprecated. ' +
          'Use speech_models: ["universal-3-5-pro", "universal-2"] instead.',
      },
    ];
  if (!Array.isArray(models) || !models.length || !models.every((m) => ASSEMBLYAI_MODELS.includes(m)))
    return [400, { error: `"speech_models" must be a non-empty list containing one or more of: "universal-3-5-pro", "universal-2"` }];
  return undefined;
}

export function startSpeechStandin({ hears = "" } = {}) {
  const requests = [];
  const uploads = new Map(); // AssemblyAI: upload url → text heard
  const transcripts = new Map(); // id → {text, polls}
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    const refuse = (refusal) => json(refusal[0], refusal[1]);
    const audio = async (text) => {
      res.writeHead(200, { "content-type": "audio/mpeg" });
      const bytes = spoken(text);
      for (let i = 0; i < bytes.length; i += 1000) {
        if (i > 0 && text.includes("[cut]")) return res.destroy(); // "[cut]": the connection drops mid-audio
        res.write(bytes.subarray(i, i + 1000));
        await new Promise((r) => setTimeout(r, text.includes("[slow]") ? 300 : 5)); // "[slow]": time to stop it
      }
      res.end();
    };
    if (url.pathname === "/requests") {
      if (req.method === "DELETE") requests.length = 0;
      const marker = url.searchParams.get("contains");
      return json(200, marker ? requests.filter((r) => JSON.stringify(r).includes(marker)) : requests);
    }
    const record = { method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, size: raw.length };
    requests.push(record);
    const type = req.headers["content-type"] ?? "";
    let form;
    // OpenAI refuses a body past its limit on the bytes read, before reading the form: so does this.
    const overOpenAI = url.pathname === "/v1/audio/transcriptions" && raw.length > OPENAI_MAX_BYTES;
    if (type.startsWith("multipart/form-data") && !overOpenAI) {
      form = await new Request("http://standin", { method: "POST", headers: { "content-type": type }, body: raw }).formData();
      record.fields = {};
      for (const [k, v] of form) {
        record.fields[k] =
          typeof v === "string" ? v : { name: v.name, type: v.type, size: v.size, said: heard(await v.arrayBuffer(), hears) };
      }
    } else if (type.includes("json") && raw.length) record.body = JSON.parse(raw.toString("utf8"));

    const path = url.pathname;
    const transcription = /^\/(openai\/|localai\/)?v1\/audio\/transcriptions$/.exec(path);
    if (transcription && req.method === "POST") {
      if (!/^Bearer \S+/.test(req.headers.authorization ?? "") && transcription[1] !== "localai/")
        return json(401, { error: { message: "Missing bearer authentication" } });
      const service = transcription[1] === "openai/" ? "groq" : transcription[1] === "localai/" ? "localai" : "openai";
      const refusal =
        service === "openai"
          ? (validateOpenAITranscription(raw, form) ?? (await validateOpenAIContent(form)))
          : service === "groq"
            ? validateGroqTranscription(form)
            : validateLocalAITranscription(form);
      if (refusal) return refuse(refusal);
      const text = heard(await form.get("file").arrayBuffer(), hears);
      if (text.includes("[fail]")) return json(500, { error: { message: "the transcription service is having a bad day" } });
      return json(200, { text });
    }
    if (path === "/v1/audio/speech" && req.method === "POST") {
      if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return json(401, { error: { message: "Missing bearer authentication" } });
      const refusal = validateOpenAISpeech(record.body);
      if (refusal) return refuse(refusal);
      return audio(record.body.input);
    }
    const eleven = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(path);
    if (eleven || path === "/v1/voices") {
      if (req.headers["xi-api-key"] !== "xi-test") return json(401, { detail: { status: "invalid_api_key", message: "Invalid API key" } });
      if (path === "/v1/voices") return json(200, { voices: [{ voice_id: "voice-rachel", name: "Rachel", category: "premade" }] });
      const refusal = validateElevenLabsSpeech(record.body, url);
      if (refusal) return refuse(refusal);
      return audio(`${decodeURIComponent(eleven[1])}: ${record.body?.text}`);
    }
    if (path === "/speechtotext/transcriptions:transcribe" && req.method === "POST") {
      if (!req.headers["ocp-apim-subscription-key"]) return json(401, { error: { message: "Missing subscription key" } });
      const refusal = validateAzureTranscription(form, url);
      if (refusal) return refuse(refusal);
      return json(200, { combinedPhrases: [{ text: heard(await form.get("audio").arrayBuffer()) }], phrases: [] });
    }
    if (path.startsWith("/v2/")) {
      if (!req.headers.authorization) return json(401, { error: "Authentication error" });
      if (path === "/v2/upload") {
        const at = `${url.origin}/files/${uploads.size}`;
        uploads.set(at, heard(raw));
        return json(200, { upload_url: at });
      }
      if (path === "/v2/transcript" && req.method === "POST") {
        const refusal = validateAssemblyAITranscript(record.body);
        if (refusal) return refuse(refusal);
        const id = `t${transcripts.size}`;
        const text = uploads.get(record.body.audio_url);
        transcripts.set(id, {
          text: text ?? "",
          error: text === undefined ? "Download error: unable to download the audio_url" : "",
          polls: 0,
        });
        return json(200, { id, status: "queued" });
      }
      const t = transcripts.get(path.slice("/v2/transcript/".length));
      if (!t) return json(404, { error: "Transcript not found" });
      t.polls += 1;
      if (t.polls < 2) return json(200, { status: "processing" });
      return json(200, t.error ? { status: "error", error: t.error } : { status: "completed", text: t.text });
    }
    return json(404, { error: { message: `no route ${path}` } });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
