// Stand-ins for the Cloudflare bindings that have no local simulation (Workers AI embeddings and
// chat, Vectorize), bound to the worker under test as service bindings (JS RPC) by
// vitest.config.ts. They keep their state in memory and record their calls, so tests can run and
// inspect the Cloudflare path.
import { WorkerEntrypoint } from "cloudflare:workers";

const DIMS = 768;
const aiCalls = [];
const chatCalls = [];
const vectors = new Map(); // id → {id, values, namespace, metadata}
const vectorizeCalls = [];
const speechCalls = [];

// Speech (Workers AI's audio models): a recording "says" what follows `say:` in its bytes (the tests
// write it there); speaking answers bytes that begin like an MP3 and carry the text.
const decoder = new TextDecoder();
const heard = (bytes) => {
  const text = decoder.decode(bytes);
  const at = text.indexOf("say:");
  return at < 0
    ? ""
    : text
        .slice(at + 4)
        .split("\u0000")[0]
        .trim();
};
const spoken = (text) => new TextEncoder().encode(`ID3\u0003 spoken: ${text}`.padEnd(3000, "."));
async function bytesOf(stream) {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function speech(model, inputs, options) {
  if (model === "@cf/openai/whisper-large-v3-turbo") {
    const bytes = Uint8Array.from(atob(inputs.audio), (c) => c.charCodeAt(0));
    speechCalls.push({ model, bytes: bytes.length, language: inputs.language });
    const text = heard(bytes);
    if (text.includes("[fail]")) throw new Error("stand-in: whisper unavailable");
    return { text: ` ${text}`, transcription_info: { duration: 1 } };
  }
  if (model === "@cf/deepgram/nova-3") {
    const bytes = await bytesOf(inputs.audio.body);
    speechCalls.push({ model, bytes: bytes.length, contentType: inputs.audio.contentType });
    return { results: { channels: [{ alternatives: [{ transcript: heard(bytes), confidence: 0.9 }] }] } };
  }
  if (model === "@cf/deepgram/aura-1") {
    speechCalls.push({ model, text: inputs.text, speaker: inputs.speaker, encoding: inputs.encoding, raw: options?.returnRawResponse });
    if (String(inputs.text).includes("[fail]")) throw new Error("stand-in: aura unavailable");
    const audio = new Blob([spoken(inputs.text)]).stream();
    return options?.returnRawResponse ? new Response(audio, { headers: { "content-type": "audio/mpeg" } }) : audio;
  }
  if (model === "@cf/myshell-ai/melotts") {
    speechCalls.push({ model, text: inputs.prompt, lang: inputs.lang });
    return { audio: btoa(decoder.decode(spoken(inputs.prompt))) };
  }
  return undefined;
}

/** A bag-of-words embedding unlike the worker's own local one: hashed words only, 768 dims. */
function embed(text) {
  const v = new Array(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    v[(h >>> 0) % DIMS] += 1;
  }
  const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/** The text of a chat message's content (a string, or OpenAI-style parts). */
const contentText = (content) =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => p?.text ?? "").join("") : "";

export class AiStandin extends WorkerEntrypoint {
  async run(model, inputs, options) {
    const audio = await speech(model, inputs, options);
    if (audio !== undefined) return audio;
    // A chat model (`messages`): "ai: <the last user message>", recorded with every message it was sent.
    if (Array.isArray(inputs?.messages)) {
      chatCalls.push({ model, messages: inputs.messages, stream: inputs.stream === true });
      const last = [...inputs.messages].reverse().find((m) => m?.role === "user");
      const text = contentText(last?.content);
      if (text.includes("[fail]")) throw new Error("stand-in: model unavailable");
      return { response: `ai: ${text}` };
    }
    aiCalls.push({ model, count: Array.isArray(inputs?.text) ? inputs.text.length : 1 });
    const texts = Array.isArray(inputs?.text) ? inputs.text : [inputs?.text ?? ""];
    if (texts.length > 100) throw new Error(`batch of ${texts.length} texts is over Workers AI's 100`);
    if (texts.some((t) => String(t).includes("[fail-embed]"))) throw new Error("stand-in: model unavailable");
    return { shape: [texts.length, DIMS], data: texts.map((t) => embed(String(t))) };
  }
  calls() {
    return aiCalls.slice();
  }
  /** The speech requests so far (model and what it was given). */
  speeches() {
    return speechCalls.slice();
  }
  /** The chat requests so far (model, messages, stream). */
  chats() {
    return chatCalls.slice();
  }
}

export class VectorizeStandin extends WorkerEntrypoint {
  async upsert(list) {
    if (list.length > 1000) throw new Error(`upsert of ${list.length} vectors is over Vectorize's 1000`);
    vectorizeCalls.push({ op: "upsert", count: list.length });
    for (const v of list) {
      if (JSON.stringify(v.metadata ?? {}).length > 10240) throw new Error("metadata over 10 KiB");
      if (v.values.length !== DIMS) throw new Error(`VECTOR_DIMENSION_MISMATCH: expected ${DIMS}, got ${v.values.length}`);
      vectors.set(v.id, { id: v.id, values: v.values, namespace: v.namespace, metadata: v.metadata });
    }
    return { mutationId: crypto.randomUUID() };
  }
  async query(vector, options) {
    vectorizeCalls.push({ op: "query", topK: options?.topK, namespace: options?.namespace });
    if ((options?.topK ?? 5) > 20 && options?.returnMetadata && options.returnMetadata !== "none")
      throw new Error("topK over 20 with metadata");
    const scored = [...vectors.values()]
      .filter((v) => options?.namespace === undefined || v.namespace === options.namespace)
      .map((v) => ({ id: v.id, score: v.values.reduce((a, x, i) => a + x * vector[i], 0) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, options?.topK ?? 5);
    return { count: scored.length, matches: scored };
  }
  async deleteByIds(ids) {
    vectorizeCalls.push({ op: "delete", count: ids.length });
    for (const id of ids) vectors.delete(id);
    return { mutationId: crypto.randomUUID() };
  }
  async getByIds(ids) {
    return ids.map((id) => vectors.get(id)).filter(Boolean);
  }
  ids(namespace) {
    return [...vectors.values()].filter((v) => v.namespace === namespace).map((v) => v.id);
  }
  metadataOf(id) {
    return vectors.get(id)?.metadata ?? null;
  }
  calls() {
    return vectorizeCalls.slice();
  }
}

export default {
  async fetch() {
    return new Response("cloudflare binding stand-ins", { status: 200 });
  },
};
