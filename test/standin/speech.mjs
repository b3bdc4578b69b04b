// Speech services as edgeflow calls them (src/providers/speech/), in Node (vitest globalSetup). A
// recording "says" what follows `say:` in its bytes; spoken audio is a silent MP3 whose ID3 tag
// carries the text. Each request is recorded (path, headers, form fields or JSON, the file's
// name, type and size) for GET /requests?contains=<marker>. `hears`: what a recording without `say:`
// is heard as (a browser's microphone: the e2e's fake device records a tone; default: nothing).
//   POST /v1/audio/transcriptions                OpenAI / Groq / LocalAI (multipart, Bearer) → {text}
//   POST /v1/audio/speech                        OpenAI TTS ({model, voice, input}, Bearer) → mp3 bytes, in chunks
//   POST /v1/text-to-speech/{voice}/stream       ElevenLabs (xi-api-key) → mp3 bytes, in chunks
//   GET  /v1/voices                              ElevenLabs (xi-api-key) → {voices}
//   POST /speechtotext/transcriptions:transcribe Azure (multipart: audio, definition; Ocp-Apim-Subscription-Key)
//   POST /v2/upload, POST /v2/transcript, GET /v2/transcript/{id}   AssemblyAI (authorization)
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
    const record = { method: req.method, path: url.pathname + url.search, headers: { ...req.headers } };
    requests.push(record);
    const type = req.headers["content-type"] ?? "";
    let form;
    if (type.startsWith("multipart/form-data")) {
      form = await new Request("http://standin", { method: "POST", headers: { "content-type": type }, body: raw }).formData();
      record.fields = {};
      for (const [k, v] of form) {
        record.fields[k] =
          typeof v === "string" ? v : { name: v.name, type: v.type, size: v.size, said: heard(await v.arrayBuffer(), hears) };
      }
    } else if (type.includes("json") && raw.length) record.body = JSON.parse(raw.toString("utf8"));

    const path = url.pathname;
    if (path === "/v1/audio/transcriptions" && req.method === "POST") {
      if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return json(401, { error: { message: "Missing bearer authentication" } });
      const file = form?.get("file");
      if (!file || typeof file === "string" || !form.get("model")) return json(400, { error: { message: "file and model are required" } });
      const text = heard(await file.arrayBuffer(), hears);
      if (text.includes("[fail]")) return json(500, { error: { message: "the transcription service is having a bad day" } });
      return json(200, { text });
    }
    if (path === "/v1/audio/speech" && req.method === "POST") {
      if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return json(401, { error: { message: "Missing bearer authentication" } });
      if (!record.body?.input || !record.body?.voice) return json(400, { error: { message: "input and voice are required" } });
      return audio(record.body.input);
    }
    const eleven = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(path);
    if (eleven || path === "/v1/voices") {
      if (req.headers["xi-api-key"] !== "xi-test") return json(401, { detail: { status: "invalid_api_key", message: "Invalid API key" } });
      if (path === "/v1/voices") return json(200, { voices: [{ voice_id: "voice-rachel", name: "Rachel", category: "premade" }] });
      return audio(`${decodeURIComponent(eleven[1])}: ${record.body?.text}`);
    }
    if (path === "/speechtotext/transcriptions:transcribe" && req.method === "POST") {
      if (!req.headers["ocp-apim-subscription-key"]) return json(401, { error: { message: "Missing subscription key" } });
      const file = form?.get("audio");
      if (!file || typeof file === "string" || !form.get("definition"))
        return json(400, { error: { message: "audio and definition are required" } });
      return json(200, { combinedPhrases: [{ text: heard(await file.arrayBuffer()) }], phrases: [] });
    }
    if (path.startsWith("/v2/")) {
      if (!req.headers.authorization) return json(401, { error: "Authentication error" });
      if (path === "/v2/upload") {
        const at = `${url.origin}/files/${uploads.size}`;
        uploads.set(at, heard(raw));
        return json(200, { upload_url: at });
      }
      if (path === "/v2/transcript" && req.method === "POST") {
        const id = `t${transcripts.size}`;
        transcripts.set(id, { text: uploads.get(record.body?.audio_url) ?? "", polls: 0 });
        return json(200, { id, status: "queued" });
      }
      const t = transcripts.get(path.slice("/v2/transcript/".length));
      if (!t) return json(404, { error: "Transcript not found" });
      t.polls += 1;
      return json(200, t.polls < 2 ? { status: "processing" } : { status: "completed", text: t.text });
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
