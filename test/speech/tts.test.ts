// Issue 31 item 7: POST /text-to-speech/generate speaks a chatflow's answer with its textToSpeech
// provider — Workers AI (Aura, MeloTTS) through the AI binding's stand-in, OpenAI and ElevenLabs over
// their wire protocols on the loopback stand-in — as Flowise's tts_start / tts_data / tts_end frames
// the studio and the widget play; GET /text-to-speech/voices lists voices; POST /text-to-speech/abort
// stops a message's speech; a missing or unusable provider is a clear 4xx.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, expectError, json } from "../helpers";
import { aiDuring, cleanUp, credential, marker, received, speechUrl, ttsFrames, voiceFlow } from "./helpers";

vi.setConfig({ testTimeout: 30_000 });
afterEach(cleanUp);

const generate = (body: Record<string, unknown>, token?: string | null) => call("POST", "/text-to-speech/generate", { body, token });

describe("POST /text-to-speech/generate", () => {
  it("Workers AI Aura speaks a public chatflow's message to the widget (no token): start, the audio in chunks, end", async () => {
    const id = await voiceFlow({ textToSpeech: { cloudflareWorkersAI: { status: true, voice: "luna" } }, isPublic: true });
    const m = marker();
    const { result, speeches } = await aiDuring(async () => {
      const res = await generate({ chatflowId: id, chatId: "c1", chatMessageId: "msg-1", text: `Hello ${m}` }, null);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      return res.text();
    });
    expect(speeches).toEqual([{ model: "@cf/deepgram/aura-1", text: `Hello ${m}`, speaker: "luna", encoding: "mp3", raw: true }]);
    const { frames, audio } = ttsFrames(result);
    expect(frames[0]).toEqual({ event: "tts_start", data: { chatMessageId: "msg-1", format: "mp3" } });
    expect(frames.at(-1)).toEqual({ event: "tts_end", data: { chatMessageId: "msg-1" } });
    expect(frames.slice(1, -1).every((f) => f.event === "tts_data" && f.data.chatMessageId === "msg-1")).toBe(true);
    expect(audio.startsWith(`ID3\u0003 spoken: Hello ${m}`)).toBe(true);
    expect(audio).toHaveLength(3000);
  });

  it("MeloTTS when the settings name it; a private chatflow needs a token", async () => {
    const id = await voiceFlow({ textToSpeech: { cloudflareWorkersAI: { status: true, model: "@cf/myshell-ai/melotts", voice: "fr" } } });
    await expectError(await generate({ chatflowId: id, text: "Bonjour" }, null), 401);
    const { result, speeches } = await aiDuring(async () =>
      (await generate({ chatflowId: id, chatMessageId: "x", text: "Bonjour" })).text(),
    );
    expect(speeches).toEqual([{ model: "@cf/myshell-ai/melotts", text: "Bonjour", lang: "fr" }]);
    expect(ttsFrames(result).audio.startsWith("ID3\u0003 spoken: Bonjour")).toBe(true);
  });

  it("OpenAI TTS over /audio/speech with the chatflow's credential, its mp3 streamed through", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-tts", basePath: `${speechUrl()}/v1` });
    const id = await voiceFlow({ textToSpeech: { openai: { status: true, credentialId: cred, voice: "nova" } } });
    const m = marker();
    const res = await generate({ chatflowId: id, chatMessageId: "msg-2", text: `Good morning ${m}` });
    const { frames, audio } = ttsFrames(await res.text());
    expect(audio.startsWith("ID3") && audio.includes(`spoken: Good morning ${m}`)).toBe(true);
    expect(frames.filter((f) => f.event === "tts_data").length).toBeGreaterThanOrEqual(1);
    const [sent] = await received(`Good morning ${m}`);
    expect(sent.path).toBe("/v1/audio/speech");
    expect(sent.headers.authorization).toBe("Bearer sk-tts");
    expect(sent.body).toEqual({ model: "gpt-4o-mini-tts", voice: "nova", input: `Good morning ${m}`, response_format: "mp3" });
  });

  it("OpenAI TTS speaks an answer over its 4096-character limit whole: in parts cut after a sentence, one after another", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-tts", basePath: `${speechUrl()}/v1` });
    const id = await voiceFlow({ textToSpeech: { openai: { status: true, credentialId: cred, voice: "nova" } } });
    const m = marker();
    const text = Array.from({ length: 120 }, (_, i) => `Sentence ${i} of a long answer ${m}.`).join(" ");
    expect(text.length).toBeGreaterThan(4096);
    expect(text.length).toBeLessThanOrEqual(5000); // what the route takes
    const res = await generate({ chatflowId: id, chatMessageId: "msg-long", text });
    expect(res.status).toBe(200);
    const { frames, audio } = ttsFrames(await res.text());
    expect(frames.at(-1)).toEqual({ event: "tts_end", data: { chatMessageId: "msg-long" } });
    const sent = await received(m);
    expect(sent.map((r) => r.body)).toEqual([
      { model: "gpt-4o-mini-tts", voice: "nova", input: expect.any(String), response_format: "mp3" },
      { model: "gpt-4o-mini-tts", voice: "nova", input: expect.any(String), response_format: "mp3" },
    ]);
    const [first, second] = sent.map((r) => r.body.input as string);
    expect(first.length).toBeLessThanOrEqual(4096);
    expect(first.endsWith(".")).toBe(true); // after a sentence, not inside a word
    expect(`${first} ${second}`).toBe(text);
    const [heardFirst, heardSecond] = [audio.indexOf(`spoken: ${first}`), audio.indexOf(`spoken: ${second}`)];
    expect(heardFirst).toBeGreaterThanOrEqual(0);
    expect(heardSecond).toBeGreaterThan(heardFirst);
  });

  it("ElevenLabs streams from /v1/text-to-speech/{voice}/stream: the studio's test voice names the provider in the body", async () => {
    const cred = await credential("elevenLabsApi", { elevenLabsApiKey: "xi-test", basePath: speechUrl() });
    const m = marker();
    const res = await generate({ provider: "elevenlabs", credentialId: cred, voice: "voice-rachel", text: `Testing ${m}` });
    const { frames, audio } = ttsFrames(await res.text());
    expect(frames[0].event).toBe("tts_start");
    expect(audio.startsWith("ID3") && audio.includes(`spoken: voice-rachel: Testing ${m}`)).toBe(true);
    const [sent] = await received(`Testing ${m}`);
    expect(sent.path).toBe("/v1/text-to-speech/voice-rachel/stream?output_format=mp3_44100_128");
    expect(sent.headers["xi-api-key"]).toBe("xi-test");
    expect(sent.body).toEqual({ text: `Testing ${m}`, model_id: "eleven_multilingual_v2" });
    // Without a token the studio's test path is closed: it spends a stored credential.
    await expectError(await generate({ provider: "elevenlabs", credentialId: cred, text: "x" }, null), 401);
  });

  it("a missing or unusable provider is a clear 4xx, never a stream", async () => {
    const none = await voiceFlow();
    let body = await expectError(await generate({ chatflowId: none, text: "Hi" }), 400);
    expect(body.message).toMatch(/Text to speech is not configured for this chatflow: set its textToSpeech/);
    const noCredential = await voiceFlow({ textToSpeech: { openai: { status: true } } });
    body = await expectError(await generate({ chatflowId: noCredential, text: "Hi" }), 400);
    expect(body.message).toMatch(/OpenAI TTS needs a credential/);
    body = await expectError(await generate({ provider: "someoneElse", text: "Hi" }), 400);
    expect(body.message).toMatch(/Unknown text-to-speech provider someoneElse: edgeflow has cloudflareWorkersAI, openai, elevenlabs/);
    await expectError(await generate({ chatflowId: none, text: "" }), 400);
    await expectError(await generate({ chatflowId: crypto.randomUUID(), text: "Hi" }), 404);
    const bad = await credential("elevenLabsApi", { elevenLabsApiKey: "wrong", basePath: speechUrl() });
    body = await expectError(await generate({ provider: "elevenlabs", credentialId: bad, text: "Hi" }), 502);
    expect(body.message).toMatch(/ElevenLabs TTS answered 401/);
  });

  it("a provider that breaks off mid-audio ends the stream with tts_error, after the audio it sent", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-tts", basePath: `${speechUrl()}/v1` });
    const id = await voiceFlow({ textToSpeech: { openai: { status: true, credentialId: cred } } });
    const res = await generate({ chatflowId: id, chatMessageId: "msg-cut", text: "[cut] half an answer" });
    expect(res.status).toBe(200);
    const { frames, audio } = ttsFrames(await res.text());
    expect(frames[0].event).toBe("tts_start");
    expect(audio).toHaveLength(1000);
    expect(frames.at(-1)).toMatchObject({ event: "tts_error", data: { chatMessageId: "msg-cut", error: expect.any(String) } });
  });

  it("Workers AI is the default when the body names no provider", async () => {
    const { result, speeches } = await aiDuring(async () => (await generate({ text: "Default voice" })).text());
    expect(speeches).toEqual([expect.objectContaining({ model: "@cf/deepgram/aura-1", text: "Default voice" })]);
    expect(ttsFrames(result).frames.at(-1)?.event).toBe("tts_end");
  });
});

describe("POST /text-to-speech/abort", () => {
  it("stops a message's speech in progress: the stream ends with tts_abort", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-tts", basePath: `${speechUrl()}/v1` });
    const id = await voiceFlow({ textToSpeech: { openai: { status: true, credentialId: cred } }, isPublic: true });
    const res = await generate({ chatflowId: id, chatId: "chat-a", chatMessageId: "msg-a", text: "[slow] a long answer" }, null);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("tts_start");
    const stop = await json("POST", "/text-to-speech/abort", {
      body: { chatflowId: id, chatId: "chat-a", chatMessageId: "msg-a" },
      token: null,
    });
    expect(stop).toEqual({ message: "TTS stream aborted successfully", chatId: "chat-a", chatMessageId: "msg-a", aborted: true });
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    const { frames, audio } = ttsFrames(first + rest);
    expect(frames.at(-1)).toEqual({ event: "tts_abort", data: { chatMessageId: "msg-a" } });
    expect(audio.length).toBeLessThan(3000); // cut short
    const again = await json("POST", "/text-to-speech/abort", {
      body: { chatflowId: id, chatId: "chat-a", chatMessageId: "msg-a" },
      token: null,
    });
    expect(again.aborted).toBe(false);
    await expectError(await call("POST", "/text-to-speech/abort", { body: { chatflowId: id, chatId: "chat-a" }, token: null }), 400);
  });
});

describe("GET /text-to-speech/voices", () => {
  it("lists ElevenLabs' voices with the credential, OpenAI's and Workers AI's own; a token is needed", async () => {
    const cred = await credential("elevenLabsApi", { elevenLabsApiKey: "xi-test", basePath: speechUrl() });
    expect(await json("GET", `/text-to-speech/voices?provider=elevenlabs&credentialId=${cred}`)).toEqual([
      { id: "voice-rachel", name: "Rachel", category: "premade" },
    ]);
    const openai = await json<{ id: string }[]>("GET", `/text-to-speech/voices?provider=openai&credentialId=${cred}`);
    expect(openai.map((v) => v.id)).toEqual(expect.arrayContaining(["alloy", "verse", "marin", "cedar"]));
    const aura = await json<{ id: string }[]>("GET", "/text-to-speech/voices");
    expect(aura.map((v) => v.id)).toContain("luna");
    const melo = await json<{ id: string }[]>("GET", "/text-to-speech/voices?provider=cloudflareWorkersAI&model=@cf/myshell-ai/melotts");
    expect(melo.map((v) => v.id)).toEqual(["en", "es", "fr", "zh", "ja", "ko"]);
    expect((await expectError(await call("GET", "/text-to-speech/voices?provider=elevenlabs"), 400)).message).toMatch(/needs a credential/);
    await expectError(await call("GET", "/text-to-speech/voices", { token: null }), 401);
  });

  it("without the AI binding (locally) naming no provider says speech needs Workers AI or a configured provider", async () => {
    const { listVoices, speak } = await import("../../src/services/speech");
    const local = { env: { ...env, AI: undefined } as typeof env, getCredential: async () => ({}) };
    await expect(listVoices(local, {})).rejects.toThrow(
      /Speech needs Workers AI \(the AI binding, on Cloudflare\) or a configured provider/,
    );
    await expect(speak(local, { text: "Hi" })).rejects.toThrow(/Speech needs Workers AI/);
    const flow = { id: "f", textToSpeech: JSON.stringify({ cloudflareWorkersAI: { status: true } }) };
    await expect(speak(local, { text: "Hi", flow })).rejects.toThrow(/Speech needs Workers AI/);
  });
});

describe("speechParts: a text over a speech service's limit", () => {
  it("ends a part after a sentence in its second half, else after a word, else at the limit; counts code points", async () => {
    const { speechParts } = await import("../../src/providers/speech/parts");
    expect(speechParts("First sentence here. Second one is longer", 30)).toEqual(["First sentence here.", "Second one is longer"]);
    expect(speechParts("Hi. A sentence with no end in sight at all", 30)).toEqual(["Hi. A sentence with no end in", "sight at all"]);
    expect(speechParts("x".repeat(10), 4)).toEqual(["xxxx", "xxxx", "xx"]);
    expect(speechParts("😀".repeat(5), 2)).toEqual(["😀😀", "😀😀", "😀"]);
    expect(speechParts("  short  ", 4096)).toEqual(["short"]);
  });
});
