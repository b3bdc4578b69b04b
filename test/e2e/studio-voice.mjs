// Voice in the browser test (issue 31): a chatflow that hears with OpenAI Whisper and speaks with
// OpenAI's TTS, both the speech stand-in (test/standin/speech.mjs) reached through an OpenAI
// credential's basePath, set through PUT /chatflows/{id}. In the studio's test chat and in Flowise's
// widget: the microphone records Chromium's fake device (a tone, which the stand-in hears as SAID),
// the recording goes with the prediction, the transcript is the question shown and answered; the
// speaker button on the answer calls POST /text-to-speech/generate, answered with Flowise's tts frames.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startSpeechStandin } from "../standin/speech.mjs";
import { root, startPageServer, widgetPage } from "./servers.mjs";
import { adminApi, assert, eventually } from "./studio-watch.mjs";

/** Chromium's microphone: a fake device playing a tone, its permission prompt answered yes. */
export const VOICE_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"];

const SAID = "which socks suit a rainy day";
const ANSWER = `echo: What is a good name for a company that makes ${SAID}?`;
const SPEECH_KEY = "sk-speech-e2e";
const RECORD_MS = 1500;

/** An llm-chain chatflow on the model stand-in, hearing and speaking through the speech stand-in. */
async function voiceChatflow(api, { standinUrl, speechUrl, name, isPublic = false }) {
  const model = await api("POST", "/credentials", {
    name: `${name} model`,
    credentialName: "openAIApi",
    plainDataObj: { openAIApiKey: "sk-voice-e2e" },
  });
  const speech = await api("POST", "/credentials", {
    name: `${name} speech`,
    credentialName: "openAIApi",
    plainDataObj: { openAIApiKey: SPEECH_KEY, basePath: `${speechUrl}/v1` },
  });
  const template = JSON.parse(readFileSync(join(root, "test/engine/fixtures/llm-chain.json"), "utf8"));
  for (const node of template.nodes) {
    if (node.data.category !== "Chat Models") continue;
    node.data.inputs.basepath = `${standinUrl}/v1`;
    node.data.credential = model.id;
  }
  const flow = await api("POST", "/chatflows", { name, isPublic, flowData: JSON.stringify(template) });
  await api("PUT", `/chatflows/${flow.id}`, {
    speechToText: JSON.stringify({ openAIWhisper: { status: true, credentialId: speech.id, language: "en" } }),
    textToSpeech: JSON.stringify({ openai: { status: true, credentialId: speech.id, voice: "nova" } }),
  });
  return flow;
}

/** The prediction carried the recording: one audio upload, WebM from MediaRecorder, not empty. */
function assertRecordingSent(request) {
  const body = request.postDataJSON();
  const uploads = body?.uploads ?? [];
  const audio = uploads.find((u) => u.type === "audio");
  assert(uploads.length === 1 && audio, `uploads sent: ${JSON.stringify(uploads.map((u) => [u.type, u.name, u.mime]))}`);
  assert(
    /^audio\/webm/.test(audio.mime) && audio.data.startsWith("data:audio/webm"),
    `recording: ${audio.mime} ${audio.data.slice(0, 40)}`,
  );
  const bytes = Buffer.from(audio.data.slice(audio.data.indexOf(",") + 1), "base64");
  assert(bytes.length > 1000 && bytes.subarray(0, 4).toString("hex") === "1a45dfa3", `not a WebM recording (${bytes.length} bytes)`);
  return bytes.length;
}

/** Whisper was called once with that recording and the credential's key; the transcript stored as the question. */
async function assertHeard(api, speech, flowId, size) {
  const calls = speech.requests.filter((r) => r.path === "/v1/audio/transcriptions");
  assert(calls.length === 1, `the speech stand-in got ${calls.length} transcription calls`);
  const [call] = calls;
  assert(call.headers.authorization === `Bearer ${SPEECH_KEY}`, `transcription called with ${call.headers.authorization}`);
  assert(call.fields.file.size === size && /^audio\/webm/.test(call.fields.file.type), `file heard: ${JSON.stringify(call.fields.file)}`);
  const stored = await api("GET", `/chatmessage/${flowId}`);
  const [asked, answered] = stored;
  assert(
    stored.length === 2 && asked.content === SAID && answered.content === ANSWER,
    `stored: ${JSON.stringify(stored.map((m) => m.content))}`,
  );
  const kept = typeof asked.fileUploads === "string" ? JSON.parse(asked.fileUploads) : (asked.fileUploads ?? []);
  assert(kept.length === 1 && /^audio\/webm/.test(kept[0].mime), `the recording kept with the question: ${asked.fileUploads}`);
  return answered;
}

/** The speaker button's call: 200, tts_start, tts_data (the stand-in's MP3 of the answer), tts_end. */
async function assertSpoken(response, speech, text) {
  assert(response.status() === 200, `POST /text-to-speech/generate answered ${response.status()}`);
  const frames = (await response.text())
    .split("\n\n")
    .filter((f) => f.trim())
    .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)?.[1] ?? "null"));
  const names = frames.map((f) => f?.event);
  assert(names[0] === "tts_start" && names.at(-1) === "tts_end" && names.includes("tts_data"), `frames: ${names.join(", ")}`);
  const audio = Buffer.concat(frames.filter((f) => f.event === "tts_data").map((f) => Buffer.from(f.data.audioChunk, "base64")));
  assert(
    audio.subarray(0, 3).toString() === "ID3" && audio.toString("latin1").includes(`spoken: ${text}`),
    "the audio is not the answer spoken",
  );
  const said = speech.requests.filter((r) => r.path === "/v1/audio/speech");
  assert(
    said.length === 1 && said[0].body.input === text && said[0].body.voice === "nova",
    `speech calls: ${JSON.stringify(said.map((r) => r.body))}`,
  );
}

const pathIs = (path) => (r) => new URL(r.url()).pathname === path;

/** The studio's test chat (signed in, on the watched page): record, send, hear the answer read aloud. */
async function studioChat({ page, context, origin, api, standin }, speech) {
  const flow = await voiceChatflow(api, { standinUrl: standin.url, speechUrl: speech.url, name: "e2e voice" });
  await context.grantPermissions(["microphone"], { origin });
  const loaded = page.waitForResponse(pathIs("/api/v1/nodes"));
  await page.goto(`${origin}/canvas/${flow.id}`);
  await loaded;
  await page.locator("button[title=Chat]").click();
  await page.locator("button:has(.start-recording-button)").click();
  await page.locator("#elapsed-time").waitFor();
  await page.waitForTimeout(RECORD_MS);
  const predicted = page.waitForRequest(pathIs(`/api/v1/internal-prediction/${flow.id}`));
  await page.locator(".recording-control-buttons-container button").last().click(); // stop and send
  const size = assertRecordingSent(await predicted);
  await page.getByText(ANSWER).waitFor({ timeout: 20_000 });
  await page.getByText(SAID, { exact: true }).waitFor({ timeout: 5_000 });
  await assertHeard(api, speech, flow.id, size);

  const spoken = page.waitForResponse(pathIs("/api/v1/text-to-speech/generate"));
  await page.locator("button:has(svg.tabler-icon-volume)").last().click(); // the speaker under the answer
  await assertSpoken(await spoken, speech, ANSWER);
}

/** The chat's audio (the recording's preview, the spoken answer) must be playable under the studio's CSP. */
async function studioChatPlayable(s, speech) {
  const blocked = [];
  const onConsole = (m) => /^Loading media from/.test(m.text()) && blocked.push(m.text().slice(0, 160));
  s.page.on("console", onConsole);
  try {
    await studioChat(s, speech);
    await s.page.waitForTimeout(300); // the console's last messages
  } finally {
    s.page.off("console", onConsole);
  }
  assert(!blocked.length, `the studio's CSP refuses the chat's audio: ${blocked.join(" | ")}`);
}

/** Flowise's widget on another origin: its microphone and speaker buttons on a public chatflow. */
async function widgetChat(browser, { apiUrl, api, standinUrl }, speech) {
  const flow = await voiceChatflow(api, { standinUrl, speechUrl: speech.url, name: "widget e2e voice", isPublic: true });
  const pages = await startPageServer({ "/voice": widgetPage(flow.id, apiUrl.replace(/\/api\/v1$/, "")) });
  const context = await browser.newContext();
  try {
    await context.grantPermissions(["microphone"], { origin: pages.origin });
    const page = await context.newPage();
    await page.goto(`${pages.origin}/voice`);
    const mic = page.locator("button.start-recording-button");
    await mic.waitFor({ timeout: 15_000 });
    await eventually("the microphone stays disabled", () => mic.isEnabled());
    await mic.click();
    const bar = page.locator('[data-testid="input"]');
    await bar.getByText(/00:0\d/).waitFor();
    await page.waitForTimeout(RECORD_MS);
    const predicted = page.waitForRequest(pathIs(`/api/v1/prediction/${flow.id}`));
    await bar.locator("button").last().click(); // stop and send
    const size = assertRecordingSent(await predicted);
    const answer = page.locator('[data-testid="host-bubble"]').filter({ hasText: ANSWER });
    await answer.waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="guest-bubble"]').filter({ hasText: SAID }).waitFor({ timeout: 5_000 });
    await assertHeard(api, speech, flow.id, size);

    const spoken = page.waitForResponse(pathIs("/api/v1/text-to-speech/generate"));
    await page.locator('button[title="Play audio"]').last().click();
    await assertSpoken(await spoken, speech, ANSWER);
  } finally {
    await context.close();
    await pages.close();
  }
}

/** The studio's voice step (studio.e2e.mjs, signed in): `s` is its {page, context, origin, api, standin}. */
export async function studioVoice(s, step) {
  const speech = await startSpeechStandin({ hears: SAID });
  try {
    await step("studio: the test chat's microphone sends a recording, its transcript is asked and answered; the speaker reads it", () =>
      studioChatPlayable(s, speech),
    );
  } finally {
    await speech.close();
  }
}

/** The widget's voice step (widget.e2e.mjs): `edgeflow` {url, adminKey}, `standin` the model stand-in. */
export async function widgetVoice(browser, edgeflow, standin, step) {
  const speech = await startSpeechStandin({ hears: SAID });
  const api = adminApi(edgeflow.url, edgeflow.adminKey);
  try {
    await step("the widget's microphone sends a recording, its transcript is asked and answered; Play audio reads it", () =>
      widgetChat(browser, { apiUrl: edgeflow.url, api, standinUrl: standin.url }, speech),
    );
  } finally {
    await speech.close();
  }
}
