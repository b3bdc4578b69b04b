// AWS Bedrock Runtime stand-in (POST /model/{id}/converse, /converse-stream, /invoke). Every request's
// SigV4 Authorization is recomputed here (node:crypto, independently of the worker's signer) with the
// test key's secret: a wrong signature, or an unknown key, is AWS's 403. Converse answers per
// chatScript (base.mjs) as Converse JSON; ConverseStream in AWS's binary event-stream framing (prelude,
// headers, JSON payload, CRC32s); InvokeModel answers Titan ({inputText} → {embedding}) and Cohere
// ({texts, input_type} → {embeddings}) with small deterministic bag-of-words vectors. A Converse
// request that breaks one of the rules below is refused with AWS's 400 ValidationException.
import { createHash, createHmac } from "node:crypto";
import { chatScript, forcedCall, hang, serveStandin, tokensOf } from "./base.mjs";

// Converse / ConverseStream request rules, answered with AWS's 400 ValidationException. From the API
// reference (docs.aws.amazon.com/bedrock/latest/APIReference): Message (role user | assistant, images
// only in user messages, at most 20), ContentBlock and SystemContentBlock (unions: one member each),
// ToolUseBlock / ToolResultBlock (toolUseId 1–64 of [a-zA-Z0-9_-]), InferenceConfiguration (maxTokens
// >= 1, temperature and topP in [0, 1], stop sequences non-empty), ToolConfiguration (at least one
// tool), ToolSpecification (name 1–64 of [a-zA-Z0-9_-], a description at least 1 long). And what the
// service refuses in its own words: a conversation that does not start with a user message or does
// not alternate, blank text, a toolUse left unanswered in the next message, a toolResult without its
// toolUse in the previous one, tool blocks without toolConfig.
const CONTENT_MEMBERS = [
  "text",
  "image",
  "document",
  "video",
  "audio",
  "toolUse",
  "toolResult",
  "guardContent",
  "cachePoint",
  "reasoningContent",
  "citationsContent",
  "searchResult",
];
const SYSTEM_MEMBERS = ["text", "guardContent", "cachePoint"];
const ID = /^[a-zA-Z0-9_-]{1,64}$/;
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const oneMember = (block, members) => isObject(block) && Object.keys(block).length === 1 && members.includes(Object.keys(block)[0]);

/** The first rule `body` breaks, as Bedrock words it; undefined when it keeps them all. */
export function validateConverse(body) {
  const inference = body?.inferenceConfig ?? {};
  if (inference.maxTokens !== undefined && !(Number.isInteger(inference.maxTokens) && inference.maxTokens >= 1))
    return "inferenceConfig.maxTokens: must be an integer of at least 1";
  for (const key of ["temperature", "topP"])
    if (inference[key] !== undefined && !(typeof inference[key] === "number" && inference[key] >= 0 && inference[key] <= 1))
      return `inferenceConfig.${key}: must be a number between 0 and 1`;
  if (
    inference.stopSequences !== undefined &&
    !(Array.isArray(inference.stopSequences) && inference.stopSequences.every((s) => typeof s === "string" && s))
  )
    return "inferenceConfig.stopSequences: each stop sequence must be a non-empty string";
  for (const [i, block] of (body?.system ?? []).entries()) {
    if (!oneMember(block, SYSTEM_MEMBERS)) return `system.${i}: a SystemContentBlock must have exactly one of ${SYSTEM_MEMBERS.join(", ")}`;
  }
  const toolConfig = body?.toolConfig;
  if (toolConfig !== undefined) {
    if (!Array.isArray(toolConfig.tools) || !toolConfig.tools.length) return "toolConfig.tools: must contain at least 1 tool";
    for (const [i, tool] of toolConfig.tools.entries()) {
      const spec = tool?.toolSpec;
      if (!spec) continue; // a cachePoint
      if (typeof spec.name !== "string" || !ID.test(spec.name))
        return `toolConfig.tools.${i}.toolSpec.name: must be 1 to 64 characters of [a-zA-Z0-9_-]`;
      if (spec.description !== undefined && !(typeof spec.description === "string" && spec.description))
        return `toolConfig.tools.${i}.toolSpec.description: must be at least 1 character long`;
      if (!oneMember(spec.inputSchema, ["json"])) return `toolConfig.tools.${i}.toolSpec.inputSchema: must have its json member`;
    }
  }
  const messages = body?.messages;
  if (!Array.isArray(messages) || messages[0]?.role !== "user")
    return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  let toolBlocks = false;
  for (const [i, m] of messages.entries()) {
    if (m?.role !== "user" && m?.role !== "assistant") return `messages.${i}.role: must be one of user, assistant`;
    if (i > 0 && messages[i - 1].role === m.role)
      return (
        "A conversation must alternate between user and assistant roles. " +
        "Make sure the conversation alternates between user and assistant roles and try again."
      );
    if (!Array.isArray(m.content) || !m.content.length)
      return (
        `The content field in the Message object at messages.${i} is empty. ` +
        "Add a ContentBlock object to the content field and try again."
      );
    let images = 0;
    for (const [j, b] of m.content.entries()) {
      if (!oneMember(b, CONTENT_MEMBERS)) return `messages.${i}.content.${j}: a ContentBlock must have exactly one member`;
      if ("text" in b && !(typeof b.text === "string" && b.text.trim()))
        return (
          `The text field in the ContentBlock object at messages.${i}.content.${j} is blank. ` +
          "Add text to the text field, and try again."
        );
      if (b.image && m.role !== "user") return `messages.${i}.content.${j}: images can only be included in user messages`;
      if (b.image) images++;
      const id = (b.toolUse ?? b.toolResult)?.toolUseId;
      if (b.toolUse || b.toolResult) toolBlocks = true;
      if ((b.toolUse || b.toolResult) && !(typeof id === "string" && ID.test(id)))
        return `messages.${i}.content.${j}: toolUseId must be 1 to 64 characters of [a-zA-Z0-9_-]`;
      if (b.toolUse && m.role !== "assistant") return `messages.${i}.content.${j}: toolUse blocks can only be in assistant messages`;
      if (b.toolResult && m.role !== "user") return `messages.${i}.content.${j}: toolResult blocks can only be in user messages`;
      if (b.toolResult && !Array.isArray(b.toolResult.content))
        return `messages.${i}.content.${j}.toolResult.content: is required (a list)`;
      const blank = (b.toolResult?.content ?? []).findIndex((c) => "text" in c && !(typeof c.text === "string" && c.text.trim()));
      if (blank >= 0)
        return (
          `The text field in the ToolResultContentBlock object at messages.${i}.content.${j}.toolResult.content.${blank} is blank. ` +
          "Add text to the text field, and try again."
        );
      if (b.toolResult?.status !== undefined && !["success", "error"].includes(b.toolResult.status))
        return `messages.${i}.content.${j}.toolResult.status: must be one of success, error`;
    }
    if (images > 20) return `messages.${i}: a message can include up to 20 images`;
    const results = m.content.filter((b) => b.toolResult).map((b) => b.toolResult.toolUseId);
    const asked = i > 0 ? messages[i - 1].content.filter((b) => b.toolUse).map((b) => b.toolUse.toolUseId) : [];
    if (results.length > asked.length || results.some((id) => !asked.includes(id)))
      return `The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`;
    const uses = m.content.filter((b) => b.toolUse).map((b) => b.toolUse.toolUseId);
    const answered = (Array.isArray(messages[i + 1]?.content) ? messages[i + 1].content : [])
      .filter((b) => b.toolResult)
      .map((b) => b.toolResult.toolUseId);
    const open = uses.filter((id) => !answered.includes(id));
    if (open.length && i + 1 < messages.length)
      return `Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${open.join(", ")}`;
  }
  if (toolBlocks && toolConfig === undefined)
    return "The toolConfig field must be defined when using toolUse and toolResult content blocks.";
  return undefined;
}

/** The stand-in's only key (the tests' awsApi credential). */
export const BEDROCK_TEST_KEY = { id: "AKIAEDGEFLOWTEST", secret: "edgeflow/standin+Secret1" };

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const hmac = (key, data) => createHmac("sha256", key).update(data).digest();
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** undefined when the signature is right, else [status, AWS error type, message]. */
function checkSignature(req, rawUrl, raw) {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      req.headers.authorization ?? "",
    );
  if (!m) return [403, "MissingAuthenticationTokenException", "Missing Authentication Token"];
  const [, key, day, region, service, signedHeaders, signature] = m;
  if (key !== BEDROCK_TEST_KEY.id) return [403, "UnrecognizedClientException", "The security token included in the request is invalid."];
  const stamp = req.headers["x-amz-date"] ?? "";
  const names = signedHeaders.split(";");
  if (!stamp.startsWith(day) || service !== "bedrock" || !names.includes("host"))
    return [403, "InvalidSignatureException", "Credential should be scoped to a valid region and service bedrock."];
  const url = new URL(rawUrl, "http://standin");
  const path = url.pathname.split("/").map(enc).join("/");
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort()
    .join("&");
  const headers = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("");
  const canonical = [req.method, path, query, headers, signedHeaders, sha256(Buffer.from(raw, "utf8"))].join("\n");
  const scope = `${day}/${region}/bedrock/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", stamp, scope, sha256(canonical)].join("\n");
  let k = hmac(`AWS4${BEDROCK_TEST_KEY.secret}`, day);
  for (const part of [region, "bedrock", "aws4_request"]) k = hmac(k, part);
  if (hmac(k, toSign).toString("hex") !== signature)
    return [
      403,
      "InvalidSignatureException",
      "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.",
    ];
  return undefined;
}

// CRC-32 (zlib's), for the event-stream framing.
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** One event-stream message: string headers, a JSON payload, both CRCs. */
export function eventMessage(headers, payload) {
  const parts = Object.entries(headers).map(([name, value]) => {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(v.length);
    return Buffer.concat([Buffer.from([n.length]), n, Buffer.from([7]), len, v]);
  });
  const h = Buffer.concat(parts);
  const body = Buffer.from(JSON.stringify(payload));
  const total = 12 + h.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(h.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const msg = Buffer.concat([prelude, h, body, Buffer.alloc(4)]);
  msg.writeUInt32BE(crc32(msg.subarray(0, total - 4)), total - 4);
  return msg;
}

const event = (type, payload) =>
  eventMessage({ ":event-type": type, ":content-type": "application/json", ":message-type": "event" }, payload);

const textOf = (content) =>
  Array.isArray(content)
    ? content
        .filter((b) => typeof b.text === "string")
        .map((b) => b.text)
        .join("")
    : "";

/** A small deterministic bag-of-words vector (64 wide, normalised). */
function vector(text) {
  const v = new Array(64).fill(0);
  for (const w of String(text).toLowerCase().split(/\W+/).filter(Boolean))
    v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 64] += 1;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export function startBedrockStandin() {
  return serveStandin(async ({ req, res, url, body, raw, json }) => {
    const awsError = (status, type, message) => {
      res.writeHead(status, { "content-type": "application/json", "x-amzn-errortype": type });
      res.end(JSON.stringify({ message }));
    };
    const route = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/.exec(url.pathname);
    if (req.method !== "POST" || !route) return awsError(404, "UnknownOperationException", `no route ${url.pathname}`);
    const bad = checkSignature(req, req.url ?? "/", raw);
    if (bad) return awsError(...bad);
    const model = decodeURIComponent(route[1]);
    if (route[2] === "invoke") {
      if (model.startsWith("cohere")) {
        if (!body?.input_type) return awsError(400, "ValidationException", "input_type is required");
        return json(200, { id: "standin", texts: body.texts, embeddings: body.texts.map(vector), response_type: "embeddings_floats" });
      }
      if (typeof body?.inputText !== "string") return awsError(400, "ValidationException", "inputText is required");
      return json(200, { embedding: vector(body.inputText), inputTextTokenCount: 3 });
    }
    const invalid = validateConverse(body);
    if (invalid) return awsError(400, "ValidationException", invalid);
    const messages = body?.messages ?? [];
    const lastUserIdx = messages.findLastIndex((m) => m.role === "user" && textOf(m.content));
    const last = textOf(messages[lastUserIdx]?.content);
    const results = messages
      .slice(lastUserIdx + 1)
      .flatMap((m) => m.content ?? [])
      .filter((b) => b.toolResult)
      .map((b) => textOf(b.toolResult.content));
    // toolChoice as Converse validates it (one of auto, any, tool{name}); tool forces that call.
    const specs = (body?.toolConfig?.tools ?? []).map((t) => t.toolSpec).filter(Boolean);
    const choice = body?.toolConfig?.toolChoice;
    if (choice !== undefined) {
      const keys = choice && typeof choice === "object" ? Object.keys(choice) : [];
      const valid =
        keys.length === 1 && ["auto", "any", "tool"].includes(keys[0]) && (keys[0] !== "tool" || typeof choice.tool?.name === "string");
      if (!valid) return awsError(400, "ValidationException", "toolConfig.toolChoice must be exactly one of auto, any, tool");
    }
    const forced = choice?.tool && !results.length ? specs.find((t) => t.name === choice.tool.name) : undefined;
    const step = forced ? forcedCall(forced.name, forced.inputSchema?.json, last) : chatScript(last, results, specs.length > 0);
    if (step.fail)
      return step.fail === 500
        ? awsError(500, "InternalServerException", "stand-in refuses this request")
        : awsError(400, "ValidationException", "stand-in refuses this request");
    if (step.hang) return hang(res);
    const blocks = step.calls
      ? step.calls.map((c, i) => ({ toolUse: { toolUseId: `tooluse_${results.length + i}`, name: c.name, input: c.args } }))
      : [{ text: step.text }];
    const stopReason = step.calls ? "tool_use" : "end_turn";
    const usage = { inputTokens: 3, outputTokens: 5, totalTokens: 8 };
    if (route[2] === "converse")
      return json(200, { output: { message: { role: "assistant", content: blocks } }, stopReason, usage, metrics: { latencyMs: 1 } });
    res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
    const frames = [event("messageStart", { role: "assistant" })];
    blocks.forEach((b, contentBlockIndex) => {
      if (b.text !== undefined)
        for (const t of tokensOf(b.text)) frames.push(event("contentBlockDelta", { contentBlockIndex, delta: { text: t } }));
      else {
        frames.push(
          event("contentBlockStart", { contentBlockIndex, start: { toolUse: { toolUseId: b.toolUse.toolUseId, name: b.toolUse.name } } }),
        );
        const args = JSON.stringify(b.toolUse.input);
        const half = Math.floor(args.length / 2);
        for (const input of [args.slice(0, half), args.slice(half)])
          frames.push(event("contentBlockDelta", { contentBlockIndex, delta: { toolUse: { input } } }));
      }
      frames.push(event("contentBlockStop", { contentBlockIndex }));
    });
    frames.push(event("messageStop", { stopReason }), event("metadata", { usage, metrics: { latencyMs: 1 } }));
    // Split across writes at odd places: the client must reassemble messages from its chunks.
    const all = Buffer.concat(frames);
    for (let i = 0; i < all.length; i += 37) res.write(all.subarray(i, i + 37));
    res.end();
  });
}
