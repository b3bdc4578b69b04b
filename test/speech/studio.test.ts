// Speech as the studio uses it, signed in (Flowise's UI: `x-request-from: internal`, the session
// cookie): the test chat's recorder (POST /internal-prediction with an audio upload), the speaker
// button on a private chatflow, and the voice dialog (its voices, and its "test voice" naming the
// provider in the body).
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { expectError, json } from "../helpers";
import { signedIn, studio } from "../studio/helpers";
import { aiDuring, cleanUp, credential, marker, recording, speechUrl, ttsFrames, voiceFlow } from "./helpers";

vi.setConfig({ testTimeout: 30_000 });
afterEach(cleanUp);

let cookie = "";
beforeAll(async () => {
  cookie = (await signedIn()).cookie;
});

describe("the studio", () => {
  it("the test chat's recording is heard; the message is stored as INTERNAL with the transcript", async () => {
    const id = await voiceFlow({ speechToText: { cloudflareWorkersAI: { status: true } } });
    expect((await json("GET", `/chatflows-uploads/${id}`, { token: null })).isSpeechToTextEnabled).toBe(true);
    const m = marker();
    const { result, chats } = await aiDuring(async () => {
      const res = await studio("POST", `/internal-prediction/${id}`, {
        cookie,
        body: { question: "", chatId: m, streaming: true, uploads: [recording(`studio ${m}`)] },
      });
      expect(res.status).toBe(200);
      return res.text();
    });
    expect(result).toContain(`ai: studio ${m}`);
    expect(chats.at(-1)?.messages.at(-1)?.content).toBe(`studio ${m}`);
    const stored = await json<any[]>("GET", `/chatmessage/${id}?chatId=${m}`);
    expect(stored.find((x) => x.role === "userMessage")).toMatchObject({ content: `studio ${m}`, chatType: "INTERNAL" });
  });

  it("the speaker button speaks a private chatflow's message for the signed-in person, and for no one else", async () => {
    const id = await voiceFlow({ textToSpeech: { cloudflareWorkersAI: { status: true, model: "@cf/myshell-ai/melotts" } } });
    const body = { chatflowId: id, chatId: "c", chatMessageId: "m1", text: "Spoken in the studio" };
    const res = await studio("POST", "/text-to-speech/generate", { cookie, body });
    expect(res.status).toBe(200);
    const { frames, audio } = ttsFrames(await res.text());
    expect(frames.map((f) => f.event).filter((e) => e !== "tts_data")).toEqual(["tts_start", "tts_end"]);
    expect(audio.startsWith("ID3\u0003 spoken: Spoken in the studio")).toBe(true);
    await expectError(await studio("POST", "/text-to-speech/generate", { body }), 401);
  });

  it("the voice dialog lists ElevenLabs' voices and tests one, with the credential it names", async () => {
    const cred = await credential("elevenLabsApi", { elevenLabsApiKey: "xi-test", basePath: speechUrl() });
    const voices = await studio("GET", `/text-to-speech/voices?provider=elevenlabs&credentialId=${cred}`, { cookie });
    expect(await voices.json()).toEqual([{ id: "voice-rachel", name: "Rachel", category: "premade" }]);
    const m = marker();
    const body = { text: `Today is a wonderful day ${m}`, provider: "elevenlabs", credentialId: cred, voice: "voice-rachel" };
    const res = await studio("POST", "/text-to-speech/generate", { cookie, body });
    expect(ttsFrames(await res.text()).audio).toContain(`voice-rachel: Today is a wonderful day ${m}`);
    const types = await studio("GET", "/components-credentials/elevenLabsApi", { cookie });
    const type = (await types.json()) as { inputs: { name: string }[] };
    expect(type.inputs.map((i) => i.name)).toEqual(["elevenLabsApiKey"]);
  });
});
