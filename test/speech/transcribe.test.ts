// Issue 31 item 6: a prediction's recording is heard before the run — by the chatflow's
// speechToText provider (Workers AI through the AI binding's stand-in, or a service over its wire
// protocol on the loopback stand-in) — and its transcript is the question the model receives, the
// answer's question and the stored user message; the audio limits answer 413 and 400 naming them.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { afEdge, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { aiDuring, cleanUp, credential, dataUri, marker, received, recorded, recording, speechUrl, voiceFlow, wav } from "./helpers";

vi.setConfig({ testTimeout: 30_000 });
afterEach(cleanUp);

const workersAI = (over: Record<string, unknown> = {}) => ({ cloudflareWorkersAI: { status: true, ...over } });
const lastUser = (chat: { messages: { role: string; content: string }[] }) =>
  chat.messages.filter((m) => m.role === "user").at(-1)?.content;

async function storedUserMessage(flowId: string, chatId: string) {
  const messages = await json<any[]>("GET", `/chatmessage/${flowId}?chatId=${chatId}`);
  return messages.find((m) => m.role === "userMessage");
}

describe("speech to text before the run", () => {
  it("Workers AI Whisper hears a recording: the model gets the transcript, the message stores it with the audio", async () => {
    const id = await voiceFlow({ speechToText: workersAI({ language: "en" }) });
    const m = marker();
    const { result, speeches, chats } = await aiDuring(() =>
      json("POST", `/prediction/${id}`, { body: { question: "", chatId: m, uploads: [recording(`what time is it ${m}`)] } }),
    );
    expect(speeches).toEqual([expect.objectContaining({ model: "@cf/openai/whisper-large-v3-turbo", language: "en" })]);
    expect(chats.map(lastUser)).toEqual([`what time is it ${m}`]);
    expect(result.question).toBe(`what time is it ${m}`);
    expect(result.text).toBe(`ai: what time is it ${m}`);
    const stored = await storedUserMessage(id, m);
    expect(stored.content).toBe(`what time is it ${m}`);
    expect(stored.fileUploads).toEqual([expect.objectContaining({ type: "stored-file", name: "audio.wav", mime: "audio/wav" })]);
  });

  it("the widget's recording as the browser reads it (data:audio/webm;codecs=opus;base64,…) is heard", async () => {
    const id = await voiceFlow({ speechToText: workersAI() });
    const m = marker();
    const webm = new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x80, ...new TextEncoder().encode(`say: from the widget ${m}\u0000`)]);
    const data = dataUri(webm, "audio/webm;codecs=opus");
    expect(data.startsWith("data:audio/webm;codecs=opus;base64,")).toBe(true);
    const upload = { data, type: "audio", name: `audio_${Date.now()}.webm`, mime: "audio/webm" };
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "", chatId: m, uploads: [upload] } });
    expect(answer.question).toBe(`from the widget ${m}`);
    expect((await storedUserMessage(id, m)).fileUploads).toEqual([expect.objectContaining({ mime: "audio/webm", type: "stored-file" })]);
  });

  it("a recording with no question at all runs too, streamed; Deepgram Nova-3 when the settings name it", async () => {
    const id = await voiceFlow({ speechToText: workersAI({ model: "@cf/deepgram/nova-3" }) });
    const m = marker();
    const { result, speeches, chats } = await aiDuring(async () => {
      const res = await call("POST", `/prediction/${id}`, { body: { streaming: true, chatId: m, uploads: [recording(`hello ${m}`)] } });
      expect(res.status).toBe(200);
      return res.text();
    });
    expect(speeches).toEqual([expect.objectContaining({ model: "@cf/deepgram/nova-3", contentType: "audio/wav" })]);
    expect(chats.map(lastUser)).toEqual([`hello ${m}`]);
    expect(result).toContain(`ai: hello ${m}`);
    expect((await storedUserMessage(id, m)).content).toBe(`hello ${m}`);
  });

  it("an agentflow hears too: its Start node's question is the transcript", async () => {
    const cred = await openAICredential();
    const nodes = [start(), llm("llmAgentflow_0", cred)];
    const saved = await saveAgentflowOf(nodes, [afEdge("startAgentflow_0", "llmAgentflow_0")], {
      speechToText: JSON.stringify(workersAI()),
    });
    const m = marker();
    const answer = await json("POST", `/prediction/${saved.id}`, { body: { chatId: m, uploads: [recording(`agent ${m}`)] } });
    expect(answer.question).toBe(`agent ${m}`);
    expect(answer.text).toContain(`agent ${m}`);
    expect((await storedUserMessage(saved.id, m)).content).toBe(`agent ${m}`);
    await call("DELETE", `/chatflows/${saved.id}`);
    await call("DELETE", `/credentials/${cred}`);
  });

  it("OpenAI Whisper over its wire protocol (multipart to /audio/transcriptions) with the stored credential", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-speech", basePath: `${speechUrl()}/v1` });
    const id = await voiceFlow({ speechToText: { openAIWhisper: { status: true, credentialId: cred, language: "fr", prompt: "names" } } });
    const m = marker();
    const { result, chats } = await aiDuring(() =>
      json("POST", `/prediction/${id}`, { body: { question: "", chatId: m, uploads: [recording(`bonjour ${m}`)] } }),
    );
    expect(chats.map(lastUser)).toEqual([`bonjour ${m}`]);
    expect(result.question).toBe(`bonjour ${m}`);
    const [sent] = await received(`bonjour ${m}`);
    expect(sent.path).toBe("/v1/audio/transcriptions");
    expect(sent.headers.authorization).toBe("Bearer sk-speech");
    expect(sent.fields).toMatchObject({
      model: "whisper-1",
      language: "fr",
      prompt: "names",
      file: { name: "audio.wav", type: "audio/wav" },
    });
  });

  it("Groq, LocalAI, Azure and AssemblyAI each hear it over their own protocols", async () => {
    // Each service at its own path on the stand-in, so that each one's rules apply (Groq's base is …/openai/v1).
    const groq = await credential("groqApi", { groqApiKey: "gsk-test", basePath: `${speechUrl()}/openai/v1` });
    const azure = await credential("azureCognitiveServices", { azureSubscriptionKey: "az-test", serviceRegion: "westeurope" });
    const assembly = await credential("assemblyAIApi", { assemblyAIApiKey: "aai-test", basePath: speechUrl() });
    const local = await credential("localAIApi", { localAIApiKey: "local-key" });
    const restore = setVars({ AZURE_SPEECH_BASE_URL: speechUrl() });
    try {
      const settings = [
        { groqWhisper: { status: true, credentialId: groq } },
        { localAISTT: { status: true, credentialId: local, baseUrl: `${speechUrl()}/localai/v1`, model: "whisper-local" } },
        { azureCognitive: { status: true, credentialId: azure, language: "de-DE" } },
        { assemblyAiTranscribe: { status: true, credentialId: assembly } },
      ];
      for (const speechToText of settings) {
        const name = Object.keys(speechToText)[0];
        const id = await voiceFlow({ speechToText });
        const m = marker();
        const answer = await json("POST", `/prediction/${id}`, { body: { question: "", chatId: m, uploads: [recording(`${name} ${m}`)] } });
        expect(answer.question, name).toBe(`${name} ${m}`);
        expect((await storedUserMessage(id, m)).content, name).toBe(`${name} ${m}`);
      }
      const [groqSent] = await received("whisper-large-v3");
      expect(groqSent.path).toBe("/openai/v1/audio/transcriptions");
      expect(groqSent.headers.authorization).toBe("Bearer gsk-test");
      expect(groqSent.fields).toMatchObject({ response_format: "json", file: { name: "audio.wav", type: "audio/wav" } });
      const [localSent] = await received("whisper-local");
      expect(localSent.headers.authorization).toBe("Bearer local-key");
      const [azureSent] = await received("de-DE");
      expect(azureSent.headers["ocp-apim-subscription-key"]).toBe("az-test");
      // The GA version: Flowise's default preview was retired after fast transcription's GA.
      expect(azureSent.path).toBe("/speechtotext/transcriptions:transcribe?api-version=2024-11-15");
      expect(JSON.parse(azureSent.fields.definition)).toMatchObject({ locales: ["de-DE"] });
      // AssemblyAI refuses a transcript request without speech_models (a 400 in production before).
      const assemblySent = (await received("/v2/transcript")).filter((r) => r.method === "POST").at(-1);
      expect(assemblySent.body).toEqual({
        audio_url: expect.stringMatching(/\/files\/\d+$/),
        speech_models: ["universal-3-5-pro", "universal-2"],
        speaker_labels: false,
      });
    } finally {
      restore();
    }
  });

  it("OpenAI gets a file name and type it takes, whatever the client called its upload: the bytes' container decides", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-speech", basePath: `${speechUrl()}/v1` });
    // gpt-4o-mini-transcribe: also refuses bytes that are not what the name says (unsupported_format).
    const id = await voiceFlow({ speechToText: { openAIWhisper: { status: true, credentialId: cred, model: "gpt-4o-mini-transcribe" } } });
    // First those OpenAI refuses as the client named them, then those only named better.
    const cases: Array<[string, { name: string; mime: string; bytes: (text: string) => Uint8Array }, { name: string; type: string }]> = [
      [
        "Safari, a generic upload",
        { name: "upload.bin", mime: "application/octet-stream", bytes: (t) => recorded("mp4", t) },
        { name: "upload.m4a", type: "audio/mp4" },
      ],
      [
        "an Ogg Opus voice note named .opus",
        { name: "voice.opus", mime: "audio/ogg;codecs=opus", bytes: (t) => recorded("ogg", t) },
        { name: "voice.ogg", type: "audio/ogg" },
      ],
      [
        "MP4 bytes called a WAV",
        { name: "audio.wav", mime: "audio/wav", bytes: (t) => recorded("mp4", t) },
        { name: "audio.m4a", type: "audio/mp4" },
      ],
      [
        "an .m4a upload",
        { name: "Memo.M4A", mime: "audio/x-m4a", bytes: (t) => recorded("mp4", t) },
        { name: "Memo.m4a", type: "audio/mp4" },
      ],
      ["no name", { name: "", mime: "audio/wav", bytes: (t) => wav(t) }, { name: "audio.wav", type: "audio/wav" }],
      [
        "Chrome, named by an API client",
        { name: "recording", mime: "audio/webm;codecs=opus", bytes: (t) => recorded("webm", t) },
        { name: "recording.webm", type: "audio/webm" },
      ],
      [
        "its MIME type as the name",
        { name: "audio.webm;codecs=opus", mime: "audio/webm", bytes: (t) => recorded("webm", t) },
        { name: "audio.webm", type: "audio/webm" },
      ],
    ];
    for (const [label, upload, file] of cases) {
      const m = marker();
      const data = dataUri(upload.bytes(`${label} ${m}`), upload.mime);
      const body = { question: "", uploads: [{ type: "audio", name: upload.name, mime: upload.mime, data }] };
      expect((await json("POST", `/prediction/${id}`, { body })).question, label).toBe(`${label} ${m}`);
      const [sent] = await received(m);
      expect(sent.fields.file, label).toMatchObject(file);
    }
    // A multipart prediction's Blob has no file name of its own (the runtime makes one up) and Chrome's full type.
    const m = marker();
    const form = new FormData();
    form.append("question", "");
    form.append("files", new Blob([recorded("webm", `multipart ${m}`)], { type: "audio/webm;codecs=opus" }));
    expect((await json("POST", `/prediction/${id}`, { raw: form })).question).toBe(`multipart ${m}`);
    expect((await received(m))[0].fields.file).toMatchObject({ name: expect.stringMatching(/^[^.]+\.webm$/), type: "audio/webm" });
  });

  it("Groq gets a name it takes too: a voice note's .oga (OpenAI's, not Groq's) goes as .ogg", async () => {
    const groq = await credential("groqApi", { groqApiKey: "gsk-test", basePath: `${speechUrl()}/openai/v1` });
    const id = await voiceFlow({ speechToText: { groqWhisper: { status: true, credentialId: groq, model: "whisper-large-v3-turbo" } } });
    const m = marker();
    const upload = { type: "audio", name: "voice-note.oga", mime: "audio/ogg", data: dataUri(recorded("ogg", `groq ${m}`), "audio/ogg") };
    expect((await json("POST", `/prediction/${id}`, { body: { question: "", uploads: [upload] } })).question).toBe(`groq ${m}`);
    const [sent] = await received(m);
    expect(sent.fields).toMatchObject({ model: "whisper-large-v3-turbo", file: { name: "voice-note.ogg", type: "audio/ogg" } });
  });

  it("a 30 MB recording is a 413 before any service is called: the body limit by default, OpenAI's 25 MB when raised", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-speech", basePath: `${speechUrl()}/v1` });
    const id = await voiceFlow({ speechToText: { openAIWhisper: { status: true, credentialId: cred } } });
    const big = wav("a long meeting", (30 * 1024 * 1024) / 8000); // 30 MB at 8 kB a second, 65 minutes
    const ask = () => {
      const form = new FormData();
      form.append("question", "");
      form.append("files", new File([big], "meeting.wav", { type: "audio/wav" }));
      return call("POST", `/prediction/${id}`, { raw: form });
    };
    const sentBefore = (await received("/v1/audio/transcriptions")).length;
    expect((await expectError(await ask(), 413)).message).toMatch(/larger than the limit of 5 MB \(MAX_BODY_MB\)/);
    const restore = setVars({ MAX_BODY_MB: "40", MAX_AUDIO_MB: "40", MAX_AUDIO_SECONDS: "4000" });
    const raised = await ask().finally(restore);
    expect((await expectError(raised, 413)).message).toMatch(/meeting\.wav is 30\.0 MB, over OpenAI Whisper's upload limit of 25 MB/);
    expect((await received("/v1/audio/transcriptions")).length).toBe(sentBefore);
  });

  it("audio limits: over MAX_AUDIO_MB is a 413, longer than MAX_AUDIO_SECONDS a 400, each named; nothing heard or stored", async () => {
    const id = await voiceFlow({ speechToText: workersAI() });
    const m = marker();
    const ask = (upload: Record<string, unknown>) =>
      call("POST", `/prediction/${id}`, { body: { question: "", chatId: m, uploads: [upload] } });
    const { result, speeches, chats } = await aiDuring(async () => {
      const restore = setVars({ MAX_AUDIO_MB: "0.01" });
      const big = await ask(recording(m, 2)).finally(restore);
      const again = setVars({ MAX_AUDIO_SECONDS: "3" });
      const long = await ask({ ...recording(m, 4), name: "long.wav" }).finally(again);
      const fits = await ask(recording(`short ${m}`, 2));
      return { big, long, fits };
    });
    expect((await expectError(result.big, 413)).message).toMatch(
      /audio\.wav is 16 KB, over the audio size limit of 0\.01 MB \(MAX_AUDIO_MB\)/,
    );
    expect((await expectError(result.long, 400)).message).toMatch(
      /long\.wav lasts 4 s, over the audio length limit of 3 s \(MAX_AUDIO_SECONDS\)/,
    );
    expect(result.fits.status).toBe(200);
    expect(speeches).toHaveLength(1); // only the recording within the limits was heard
    expect(chats.map(lastUser)).toEqual([`short ${m}`]);
    const messages = await json<any[]>("GET", `/chatmessage/${id}?chatId=${m}`);
    expect(messages.filter((x) => x.role === "userMessage").map((x) => x.content)).toEqual([`short ${m}`]);
  });

  it("a streamed recording answers its limit's status even where the stream's head would go out early", async () => {
    const id = await voiceFlow({ speechToText: workersAI() });
    const m = marker();
    const stream = (body: Record<string, unknown>) => call("POST", `/prediction/${id}`, { body: { streaming: true, chatId: m, ...body } });
    expect((await stream({ question: "warm up" })).status).toBe(200); // this isolate now streams the chatflow's head early
    await (await stream({ question: "again" })).text();
    const restore = setVars({ MAX_AUDIO_MB: "0.01" });
    const big = await stream({ question: "", uploads: [recording(m, 2)] }).finally(restore);
    expect((await expectError(big, 413)).message).toMatch(/MAX_AUDIO_MB/);
    const fits = await stream({ question: "", uploads: [recording(`streamed ${m}`)] });
    expect(fits.status).toBe(200);
    expect(await fits.text()).toContain(`ai: streamed ${m}`);
  });

  it("a recording to a chatflow without a usable provider is a 400 saying what to configure", async () => {
    const m = marker();
    const none = await voiceFlow();
    const off = await voiceFlow({ speechToText: { none: { status: true }, cloudflareWorkersAI: { status: true } } });
    const unknown = await voiceFlow({ speechToText: { someoneElse: { status: true } } });
    const noCredential = await voiceFlow({ speechToText: { openAIWhisper: { status: true } } });
    for (const id of [none, off]) {
      const res = await call("POST", `/prediction/${id}`, { body: { question: "", uploads: [recording(m)] } });
      expect((await expectError(res, 400)).message).toMatch(/recording\. Speech to text is not configured for this chatflow.*Workers AI/);
    }
    const res = await call("POST", `/prediction/${unknown}`, { body: { question: "", uploads: [recording(m)] } });
    expect((await expectError(res, 400)).message).toMatch(
      /provider someoneElse is not one edgeflow has \(cloudflareWorkersAI, openAIWhisper/,
    );
    const res2 = await call("POST", `/prediction/${noCredential}`, { body: { question: "", uploads: [recording(m)] } });
    expect((await expectError(res2, 400)).message).toMatch(/OpenAI Whisper needs a credential/);
  });

  it("a provider that fails is a 502 naming it, and nothing is stored", async () => {
    const id = await voiceFlow({ speechToText: workersAI() });
    const m = marker();
    const res = await call("POST", `/prediction/${id}`, { body: { question: "", chatId: m, uploads: [recording(`[fail] ${m}`)] } });
    expect((await expectError(res, 502)).message).toMatch(/Workers AI \(@cf\/openai\/whisper-large-v3-turbo\)/);
    expect(await json("GET", `/chatmessage/${id}?chatId=${m}`)).toEqual([]);
  });
});

describe("what the chat may do", () => {
  it("/chatflows-uploads and /public-chatbotConfig report speech only where its provider can run", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-speech" });
    // First those OpenAI refuses as the client named them, then those only named better.
    const cases: Array<[unknown, unknown, boolean, boolean]> = [
      [workersAI(), { cloudflareWorkersAI: { status: true, voice: "luna" } }, true, true],
      [{ openAIWhisper: { status: true, credentialId: cred } }, { openai: { status: true, credentialId: cred } }, true, true],
      [{ openAIWhisper: { status: true, credentialId: crypto.randomUUID() } }, { elevenlabs: { status: true } }, false, false],
      [{ someoneElse: { status: true } }, { none: { status: true }, openai: { status: true, credentialId: cred } }, false, false],
      [undefined, undefined, false, false],
    ];
    for (const [speechToText, textToSpeech, stt, tts] of cases) {
      const id = await voiceFlow({ speechToText, textToSpeech, isPublic: true });
      const uploads = await json("GET", `/chatflows-uploads/${id}`, { token: null });
      expect(uploads.isSpeechToTextEnabled, JSON.stringify(speechToText)).toBe(stt);
      const config = await json("GET", `/public-chatbotConfig/${id}`, { token: null });
      expect(config.uploads.isSpeechToTextEnabled).toBe(stt);
      expect(config.isTTSEnabled, JSON.stringify(textToSpeech)).toBe(tts);
    }
  });

  it("without the AI binding (locally) Workers AI is not offered; a recording says speech needs Workers AI or a provider", async () => {
    const { hearRecordings, chatflowWithSpeech } = await import("../../src/services/speech");
    const { dbOver } = await import("../../src/db");
    const local = { ...env, AI: undefined } as typeof env;
    const settings = { speechToText: JSON.stringify(workersAI()), textToSpeech: JSON.stringify(workersAI()) };
    const id = await voiceFlow({ speechToText: workersAI(), textToSpeech: workersAI() });
    expect(await chatflowWithSpeech({ db: dbOver(env.DB), env }, id)).toMatchObject({ isSpeechToTextEnabled: true, isTTSEnabled: true });
    expect(await chatflowWithSpeech({ db: dbOver(env.DB), env: local }, id)).toMatchObject({
      isSpeechToTextEnabled: false,
      isTTSEnabled: false,
    });
    const heard = hearRecordings(
      { env: local },
      {
        ...settings,
        uploads: [{ type: "audio", name: "a.wav", mime: "audio/wav", bytes: new Uint8Array(64) }],
        question: "",
        getCredential: async () => ({}),
      },
    );
    await expect(heard).rejects.toThrow(/Speech needs Workers AI \(the AI binding, on Cloudflare\) or a configured provider/);
  });
});
