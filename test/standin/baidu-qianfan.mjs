// Baidu Qianfan's wenxinworkshop API (chatBaiduWenxin, baiduQianfanEmbeddings), as @baiducloud/qianfan
// calls it with IAM keys. Every request must carry a bce-auth-v1 Authorization this stand-in verifies
// itself (access key "qianfan-ak", secret "qianfan-sk"; signed headers must include host), else
// 200 {error_code: 14, error_msg: "IAM Certification failed"} as Qianfan answers.
//   POST /rpc/2.0/ai_custom/v1/wenxinworkshop/chat/<endpoint>  {messages, system?, stream, temperature, …}
//        → {id, result: "ernie <endpoint>: <last user content>", is_end: true, usage}; with stream:
//        server-sent events `data: {result: <word>, is_end, …}`; [fail] → 200 {error_code: 336000, error_msg}.
//        Refused as Qianfan refuses (validateChat, 200 {error_code, error_msg}): an even count of messages
//        (336006 "the length of messages must be an odd number", gmjneko/qianfan-starter#25), a role out of
//        turn ("the role of message with odd index in the messages must be assistant", songquanpeng/one-api#1652;
//        user at even indexes), and the ranges of the ERNIE API reference (ERNIE-Bot-SDK
//        docs/api_reference/chat_completion.md): temperature (0, 1.0] ("不能为0"), top_p [0, 1.0],
//        penalty_score [1.0, 2.0] → 336003 (the message is the stand-in's wording)
//   POST /rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/<endpoint>  {input: [texts]} → {data: [{embedding}]}
//        (wordVector, 16 wide); more than 16 texts → error 336003; [fail-embed] → error 336000
// Requests are recorded (GET /requests?contains=<marker>, base.mjs).
import { createHmac } from "node:crypto";
import { serveStandin } from "./base.mjs";
import { wordVector } from "./vertex.mjs";

const AK = "qianfan-ak";
const SK = "qianfan-sk";
const PREFIX = "/rpc/2.0/ai_custom/v1/wenxinworkshop/";

const hmacHex = (key, data) => createHmac("sha256", key).update(data).digest("hex");
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Checks bce-auth-v1 as Baidu's gateway does; true when the signature is the keys'. */
function verified(req, url) {
  const auth = String(req.headers.authorization ?? "");
  const parts = auth.split("/");
  if (parts.length !== 6 || parts[0] !== "bce-auth-v1" || parts[1] !== AK) return false;
  const [, , ts, exp, signed, signature] = parts;
  if (Math.abs(Date.parse(ts) - Date.now()) > 15 * 60_000) return false;
  const names = signed.split(";");
  if (!names.includes("host")) return false;
  const prefix = `bce-auth-v1/${AK}/${ts}/${exp}`;
  const canonicalHeaders = names
    .map((n) => `${enc(n)}:${enc(String(req.headers[n] ?? "").trim())}`)
    .sort()
    .join("\n");
  const query = [...url.searchParams]
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort()
    .join("&");
  const path = url.pathname
    .split("/")
    .map((s) => enc(decodeURIComponent(s)))
    .join("/");
  const expected = hmacHex(hmacHex(SK, prefix), `${req.method}\n${path}\n${query}\n${canonicalHeaders}`);
  return expected === signature;
}

const lastUser = (messages) => [...(Array.isArray(messages) ? messages : [])].reverse().find((m) => m?.role === "user")?.content ?? "";

const inRange = (v, min, max, minOpen = false) => v === undefined || (typeof v === "number" && (minOpen ? v > min : v >= min) && v <= max);

/** Qianfan's refusal of a chat request ({error_code, error_msg}), or undefined. */
function validateChat(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  if (messages.length % 2 === 0) return { error_code: 336006, error_msg: "the length of messages must be an odd number" };
  for (const [i, m] of messages.entries()) {
    const want = i % 2 === 0 ? "user" : "assistant";
    if (m?.role !== want)
      return { error_code: 336006, error_msg: `the role of message with ${i % 2 ? "odd" : "even"} index in the messages must be ${want}` };
  }
  if (!inRange(body.temperature, 0, 1, true)) return { error_code: 336003, error_msg: "temperature must be in (0, 1.0]" };
  if (!inRange(body.top_p, 0, 1)) return { error_code: 336003, error_msg: "top_p must be in [0, 1.0]" };
  if (!inRange(body.penalty_score, 1, 2)) return { error_code: 336003, error_msg: "penalty_score must be in [1.0, 2.0]" };
  return undefined;
}

function chat({ res, body, json }, endpoint) {
  const refused = validateChat(body);
  if (refused) return json(200, { id: "as-400", ...refused });
  const text = String(lastUser(body?.messages));
  if (text.includes("[fail]")) return json(200, { error_code: 336000, error_msg: "stand-in qianfan failure" });
  const answer = `ernie ${endpoint}: ${text}`;
  const usage = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };
  if (!body?.stream) return json(200, { id: "as-1", object: "chat.completion", result: answer, is_end: true, usage });
  res.writeHead(200, { "content-type": "text/event-stream" });
  const words = answer.split(/(?<= )/);
  words.forEach((w, i) => {
    const data = { id: "as-s", object: "chat.completion", sentence_id: i, is_end: i === words.length - 1, result: w, usage };
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  });
  res.end();
}

function embeddings({ body, json }) {
  const texts = Array.isArray(body?.input) ? body.input.map(String) : [];
  if (texts.some((t) => t.includes("[fail-embed]")))
    return json(200, { error_code: 336000, error_msg: "stand-in qianfan embedding failure" });
  if (!texts.length || texts.length > 16) return json(200, { error_code: 336003, error_msg: "the input must hold 1 to 16 texts" });
  const data = texts.map((t, index) => ({ object: "embedding", index, embedding: Array.from(wordVector(t, 64)) }));
  return json(200, { id: "as-e", object: "embedding_list", data, usage: { prompt_tokens: 3, total_tokens: 3 } });
}

export function startBaiduQianfanStandin() {
  return serveStandin(async (ctx) => {
    const { req, url, json } = ctx;
    if (req.method !== "POST" || !url.pathname.startsWith(PREFIX))
      return json(404, { error_code: 3, error_msg: "Unsupported openapi method" });
    if (!verified(req, url)) return json(200, { error_code: 14, error_msg: "IAM Certification failed" });
    const [kind, endpoint] = url.pathname.slice(PREFIX.length).split("/");
    if (kind === "chat") return chat(ctx, endpoint);
    if (kind === "embeddings") return embeddings(ctx);
    return json(200, { error_code: 3, error_msg: "Unsupported openapi method" });
  });
}
