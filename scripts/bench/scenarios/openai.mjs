// The OpenAI-compatible API's overhead: POST /openai/chat/completions against POST /prediction/{id}
// on the same chatflow (the streaming scenarios' llmChain at the stand-in), JSON and streaming, one
// request at a time, the two interleaved so both see the same machine. Each answer is checked (the
// JSON content, every streamed token in order, the stream's end: [DONE] / `end`).
// `npm run bench -- --only openai`.
import { performance } from "node:perf_hooks";
import { REQUEST_TIMEOUT_MS, dispatcher, httpFetch, stats, tripsOf } from "../load.mjs";
import { streamingSetup } from "./streaming.mjs";

const TOKENS = 20;
const PHRASE = `[bench:${TOKENS}:2]`; // 20 tokens, 2 ms apart
const EXPECTED = Array.from({ length: TOKENS }, (_, i) => `tok${i + 1} `).join("");

async function timedJson(url, headers, body) {
  const t0 = performance.now();
  const res = await httpFetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    dispatcher,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text, requestId: res.headers.get("x-request-id") };
}

/**
 * A stream read to its end: time to the first token and to the end, the tokens' text, whether it
 * ended properly, its x-request-id. `kind` "openai" reads chat.completion.chunk frames, else Flowise's.
 */
export async function timedStream(url, headers, body, kind) {
  const t0 = performance.now();
  const out = { ttft: NaN, total: NaN, text: "", ended: false, status: 0, requestId: undefined };
  const res = await httpFetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    dispatcher,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  out.status = res.status;
  out.requestId = res.headers.get("x-request-id");
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of res.body) {
    buffered += decoder.decode(chunk, { stream: true });
    let cut;
    while ((cut = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 2);
      const line = block.split("\n").find((l) => l.startsWith("data:"));
      if (!line) continue;
      const payload = line.slice(5).trim();
      let token;
      if (kind === "openai") {
        if (payload === "[DONE]") {
          out.ended = true;
          continue;
        }
        token = JSON.parse(payload).choices?.[0]?.delta?.content || undefined;
      } else {
        const frame = JSON.parse(payload);
        if (frame.event === "end") out.ended = true;
        if (frame.event === "token") token = frame.data;
      }
      if (token !== undefined) {
        if (!out.text) out.ttft = performance.now() - t0;
        out.text += token;
      }
    }
  }
  out.total = performance.now() - t0;
  return out;
}

export const openaiScenarios = [
  {
    name: "POST /openai/chat/completions against POST /prediction/{id}, same chatflow, JSON and streaming, one at a time",
    async setup(ctx) {
      this.ctx = await streamingSetup.get(ctx);
      return `stand-in ${this.ctx.standin.url}, chatflow ${this.ctx.flowId}`;
    },
    async measure(ctx) {
      const { flowId } = this.ctx;
      const headers = { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` };
      const count = Math.min(ctx.opts.requests, 300);
      const t = { predictionJson: [], openaiJson: [], predictionTtft: [], openaiTtft: [], predictionTotal: [], openaiTotal: [] };
      const failures = {};
      const last = {}; // the request ids of the last good answers, for their round trips
      const fail = (key) => {
        failures[key] = (failures[key] ?? 0) + 1;
      };
      for (let i = -Math.min(ctx.opts.warmup, 30); i < count; i++) {
        const question = `${PHRASE} openai ${i}`;
        const pj = await timedJson(`${ctx.baseUrl}/prediction/${flowId}`, headers, { question });
        const oj = await timedJson(`${ctx.baseUrl}/openai/chat/completions`, headers, {
          model: flowId,
          messages: [{ role: "user", content: question }],
        });
        const ps = await timedStream(`${ctx.baseUrl}/prediction/${flowId}`, headers, { question, streaming: true }, "prediction");
        const os = await timedStream(
          `${ctx.baseUrl}/openai/chat/completions`,
          headers,
          { model: flowId, stream: true, messages: [{ role: "user", content: question }] },
          "openai",
        );
        if (i < 0) continue;
        const okJson = (r, read) => r.status === 200 && read(JSON.parse(r.text)) === EXPECTED;
        if (okJson(pj, (b) => b.text)) t.predictionJson.push(pj.ms);
        else fail(`prediction JSON ${pj.status}`);
        if (okJson(oj, (b) => b.choices?.[0]?.message?.content)) {
          t.openaiJson.push(oj.ms);
          last.json = oj.requestId;
        } else fail(`openai JSON ${oj.status}`);
        if (ps.status === 200 && ps.ended && ps.text === EXPECTED) {
          t.predictionTtft.push(ps.ttft);
          t.predictionTotal.push(ps.total);
        } else fail(`prediction stream ${ps.status}`);
        if (os.status === 200 && os.ended && os.text === EXPECTED) {
          t.openaiTtft.push(os.ttft);
          t.openaiTotal.push(os.total);
          last.stream = os.requestId;
        } else fail(`openai stream ${os.status}`);
      }
      // The flow named by its name slug ("bench streaming"), once, for its round trips.
      const bySlug = await timedStream(
        `${ctx.baseUrl}/openai/chat/completions`,
        headers,
        { model: "bench-streaming", stream: true, messages: [{ role: "user", content: `${PHRASE} by slug` }] },
        "openai",
      );
      if (!(bySlug.status === 200 && bySlug.ended && bySlug.text === EXPECTED)) fail(`openai stream by slug ${bySlug.status}`);
      const s = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, stats(v)]));
      const added = {
        json: s.openaiJson.p50 - s.predictionJson.p50,
        ttft: s.openaiTtft.p50 - s.predictionTtft.p50,
        total: s.openaiTotal.p50 - s.predictionTotal.p50,
      };
      const f = (n) => n.toFixed(2);
      console.log(
        `bench:   JSON p50: /prediction ${f(s.predictionJson.p50)} ms, /openai/chat/completions ${f(s.openaiJson.p50)} ms → added ${f(added.json)} ms`,
      );
      console.log(
        `bench:   stream p50 first token: /prediction ${f(s.predictionTtft.p50)} ms, /openai ${f(s.openaiTtft.p50)} ms → added ${f(added.ttft)} ms; whole answer: ${f(s.predictionTotal.p50)} / ${f(s.openaiTotal.p50)} ms → added ${f(added.total)} ms`,
      );
      const seconds = t.openaiJson.reduce((a, b) => a + b, 0) / 1000;
      return {
        requests: t.openaiJson.length,
        seconds,
        rps: t.openaiJson.length / seconds,
        ...s.openaiJson,
        failures,
        openai: { ...s, addedP50: added },
        // The round trips of the last good answer of each kind (simulated planet only).
        tripRows: [
          {
            name: "POST /openai/chat/completions stream: true",
            trips: await tripsOf(ctx, last.stream),
            p50: [s.openaiTtft.p50, s.openaiTotal.p50],
          },
          { name: "POST /openai/chat/completions JSON", trips: await tripsOf(ctx, last.json), p50: [s.openaiJson.p50] },
          {
            name: "POST /openai/chat/completions stream: true, model by name slug (once)",
            trips: await tripsOf(ctx, bySlug.requestId),
            p50: [bySlug.ttft, bySlug.total],
          },
        ],
      };
    },
  },
];
