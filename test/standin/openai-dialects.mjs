// OpenAI-compatible hosted chat services that hold rules of their own, each under its path prefix:
//   POST /mistral/v1/chat/completions          Mistral AI
//   POST /perplexity/chat/completions          Perplexity
//   POST /deepseek/chat/completions            DeepSeek
//   POST /groq/openai/v1/chat/completions      Groq
//   POST /xai/v1/chat/completions              xAI
//   POST /cerebras/v1/chat/completions         Cerebras
//   POST /fireworks/inference/v1/chat/completions  Fireworks AI
// A request the service refuses gets the service's own status and error shape; any other goes on to a
// private generic stand-in (server.mjs: OpenAI's rules, then its scripted answers — [call …], [so …],
// forced calls, streaming; Mistral's tool_choice "any" goes on as OpenAI's "required") and comes back as
// the service answers: Mistral's tool call ids are 9 letters and
// digits, DeepSeek in thinking mode adds its reasoning_content. A request needs a bearer key (else 401).
// GET /requests?contains=<marker> lists what the services received (base.mjs serveStandin).
//
// Only rules confirmed in public sources, each named where it is checked:
//   Mistral — mistral-common's MistralRequestValidatorV3 (src/mistral_common/protocol/instruct/validator.py),
//     whose messages the hosted API answers ("Tool call id was call_0 but must be a-z, A-Z, 0-9, with a length
//     of 9." langchain-ai/langchain#24668; "Unexpected role 'user' after role 'tool'" zed-industries/zed#37021;
//     "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant"
//     BerriAI/litellm#3918); unknown body and message fields are a 422 "Extra inputs are not permitted"
//     (langchainjs#5144, Gage-Technologies/mistral-go#2) — the fields are mistralai/client-python's
//     ChatCompletionRequest and message models; tool_choice auto | none | any | required | {type: function}.
//   Perplexity — "After the (optional) system message(s), user or tool message(s) should alternate with
//     assistant message(s)." (perplexityai/api-discussion#265, older wording; edenai/edenai-apis#144: system
//     messages first) and "Last message must have role `user`." (BerriAI/litellm#3918; a tool result last is
//     let through: the API takes tool messages now).
//   DeepSeek — deepseek-reasoner: "does not support successive user or assistant messages" (deepseek-ai/
//     DeepSeek-R1#21), "The first message (except the system message) of deepseek-reasoner must be a user
//     message" (ChatGPTNextWeb/NextChat#6343), logprobs/top_logprobs refused (API docs, Reasoning Model);
//     thinking mode (deepseek-reasoner, `thinking: {type: "enabled"}`, and by default any model but
//     deepseek-chat): an assistant turn with tool_calls must carry its reasoning_content (api-docs.deepseek.com
//     guides/thinking_mode; "The `reasoning_content` in the thinking mode must be passed back to the API.").
//   Groq — logprobs, logit_bias, top_logprobs, messages[].name and n other than 1 are a 400
//     (console.groq.com/docs/openai); a message property it does not know is "unsupported"
//     (ServiceStack/llms#17); a system message's content must be a string (OpenHands/OpenHands#4643).
//   xAI — "presencePenalty, frequencyPenalty and stop parameters are not supported by reasoning models. Adding
//     them in the request would result in an error." (docs.x.ai/docs/guides/reasoning); the 400 body
//     {"code":"Client specified an invalid argument","error":"Model grok-4-latest does not support parameter
//     reasoningEffort."} (BerriAI/litellm#16265); grok-3-mini (lobehub/lobehub#7370), grok-4 (#8381),
//     grok-4-1-fast-reasoning (open-webui/open-webui#21266) refuse presencePenalty, and so do the grok-4
//     non-reasoning models (grok-4.20-0309-non-reasoning: miaoxworld/NativeTavern#83; it takes stop,
//     mnfst/modelparams.dev#20).
//   Cerebras — "The following fields are currently not supported and will result in a 400 error if they are
//     supplied: frequency_penalty, logit_bias, presence_penalty" (inference-docs.cerebras.ai/resources/openai);
//     its error body {"message":"…: property '…' is unsupported","type":"invalid_request_error",
//     "param":"validation_error","code":"wrong_api_format"} (Alishahryar1/free-claude-code#1136); stream_options
//     is a 422 (janhq/jan#7928).
//   Fireworks — {"error":{"message":"Requests with max_tokens > 4096 must have stream=true","param":"max_tokens",
//     "code":"BAD_REQUEST","type":"error"}} (nullclaw/nullclaw#231, nextlevelbuilder/goclaw#660).
import { relay, serveInFront } from "./in-front.mjs";

// ---- Mistral ----

const mistral400 = (message, type = "invalid_request_error", code = null) => ({
  status: 400,
  body: { object: "error", message, type, param: null, code },
});
const extraForbidden = (loc, input) => ({
  status: 422,
  body: {
    object: "error",
    message: { detail: [{ type: "extra_forbidden", loc: ["body", ...loc], msg: "Extra inputs are not permitted", input }] },
    type: "invalid_request_error",
    param: null,
    code: null,
  },
});
const MISTRAL_FIELDS = new Set([
  "model",
  "messages",
  "temperature",
  "top_p",
  "max_tokens",
  "stream",
  "stop",
  "random_seed",
  "response_format",
  "tools",
  "tool_choice",
  "presence_penalty",
  "frequency_penalty",
  "n",
  "prediction",
  "parallel_tool_calls",
  "prompt_mode",
  "safe_prompt",
]);
const MISTRAL_MESSAGE_FIELDS = {
  system: ["role", "content"],
  user: ["role", "content"],
  assistant: ["role", "content", "tool_calls", "prefix"],
  tool: ["role", "content", "tool_call_id", "name"],
};
// mistral-common's _validate_message_order: the roles each role may be followed by.
const MISTRAL_NEXT = {
  system: ["user", "assistant", "system"],
  user: ["assistant", "system", "user"],
  assistant: ["assistant", "user", "tool"],
  tool: ["assistant", "tool"],
};
const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;
const TAGS = "'assistant', 'system', 'tool', 'user'";
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function mistralRefusal(body) {
  for (const key of Object.keys(body)) if (!MISTRAL_FIELDS.has(key)) return extraForbidden([key], body[key]);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const [i, m] of messages.entries()) {
    const allowed = MISTRAL_MESSAGE_FIELDS[m?.role];
    if (!allowed)
      return {
        status: 422,
        body: {
          object: "error",
          message: {
            detail: [
              {
                type: "union_tag_invalid",
                loc: ["body", "messages", i],
                msg: `Input tag '${m?.role}' found using 'role' does not match any of the expected tags: ${TAGS}`,
              },
            ],
          },
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      };
    for (const key of Object.keys(m)) if (!allowed.includes(key)) return extraForbidden(["messages", i, m.role, key], m[key]);
  }
  const choice = body.tool_choice;
  if (
    choice !== undefined &&
    !["auto", "none", "any", "required"].includes(choice) &&
    !(choice?.type === "function" && choice.function?.name)
  )
    return {
      status: 422,
      body: {
        object: "error",
        message: {
          detail: [
            {
              type: "literal_error",
              loc: ["body", "tool_choice"],
              msg: "Input should be 'auto', 'none', 'any' or 'required'",
              input: choice,
            },
          ],
        },
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    };
  // mistral-common's MistralRequestValidatorV3, in its order: structure, then each message's content.
  if (!messages.length) return mistral400("Conversation must have at least one message");
  if (messages.length === 1 && !["user", "system"].includes(messages[0].role))
    return mistral400("Conversation must start with a user message or system message");
  const last = messages.at(-1);
  if (messages.length > 1 && !["user", "tool"].includes(last.role) && !(last.role === "assistant" && last.prefix))
    return mistral400(`Expected last role User or Tool (or Assistant with prefix True) for serving but got ${last.role}`);
  for (let i = 1; i < messages.length; i++) {
    const [before, role] = [messages[i - 1].role, messages[i].role];
    if (!MISTRAL_NEXT[before].includes(role))
      return mistral400(`Unexpected role '${role}' after role '${before}'`, "invalid_request_message_order", "3230");
  }
  let expected = 0;
  for (const m of messages.slice(1)) {
    if (m.role === "tool") expected--;
    else if (m.role === "assistant") {
      if (expected !== 0) return mistral400("Not the same number of function calls and responses");
      expected = m.tool_calls?.length ?? 0;
    }
  }
  if (expected !== 0) return mistral400("Not the same number of function calls and responses");
  for (const [i, m] of messages.entries()) {
    if (m.role === "assistant" && m.prefix && i !== messages.length - 1)
      return mistral400("Assistant message with prefix True must be last message");
    for (const call of m.role === "assistant" ? (m.tool_calls ?? []) : []) {
      if (!MISTRAL_ID.test(call?.id ?? ""))
        return mistral400(`Tool call id was ${call?.id} but must be a-z, A-Z, 0-9, with a length of 9.`, "invalid_function_call", "3280");
      if (!FUNCTION_NAME.test(call.function?.name ?? ""))
        return mistral400(
          `Function name was ${call.function?.name} but must be a-z, A-Z, 0-9, ` +
            "or contain underscores and dashes, with a maximum length of 64.",
        );
    }
    if (m.role === "tool") {
      if (m.tool_call_id == null) return mistral400("Tool call id has to be defined.");
      if (!MISTRAL_ID.test(m.tool_call_id))
        return mistral400(
          `Tool call id was ${m.tool_call_id} but must be a-z, A-Z, 0-9, with a length of 9.`,
          "invalid_function_call",
          "3280",
        );
    }
  }
  return undefined;
}

/** Mistral answers with ids of its own kind: the generic stand-in's `call_0` as `call00000`. */
const mistralId = (id) =>
  String(id)
    .replace(/[^a-zA-Z0-9]/g, "")
    .padEnd(9, "0")
    .slice(0, 9);

// ---- Perplexity ----

const perplexity400 = (message) => ({ status: 400, body: { error: { message, type: "invalid_message", code: 400 } } });
const ALTERNATE = "After the (optional) system message(s), user or tool message(s) should alternate with assistant message(s).";

function perplexityRefusal(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const start = messages.findIndex((m) => m.role !== "system");
  const turns = start < 0 ? [] : messages.slice(start);
  if (turns.some((m) => m.role === "system")) return perplexity400(ALTERNATE);
  for (let i = 1; i < turns.length; i++) {
    const [before, role] = [turns[i - 1].role, turns[i].role];
    if (before === role && (role === "user" || role === "assistant")) return perplexity400(ALTERNATE);
  }
  if (!["user", "tool"].includes(messages.at(-1)?.role)) return perplexity400("Last message must have role `user`.");
  return undefined;
}

// ---- DeepSeek ----

const deepseek400 = (message) => ({
  status: 400,
  body: { error: { message, type: "invalid_request_error", param: null, code: "invalid_request_error" } },
});
/** Thinking mode: asked for, or the default for every model but deepseek-chat (V4: deepseek-chat is non-thinking). */
const thinking = (body) => body.thinking?.type === "enabled" || (body.thinking?.type !== "disabled" && body.model !== "deepseek-chat");
const REASONING = ["Let me think: ", "a tool may know."];

function deepseekRefusal(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (body.model === "deepseek-reasoner") {
    if (body.logprobs !== undefined || body.top_logprobs !== undefined)
      return deepseek400("deepseek-reasoner does not support the parameters logprobs and top_logprobs.");
    if (messages.find((m) => m.role !== "system")?.role === "assistant")
      return deepseek400(
        "The first message (except the system message) of deepseek-reasoner must be a user message, but an assistant message detected.",
      );
    for (let i = 1; i < messages.length; i++) {
      const [before, role] = [messages[i - 1].role, messages[i].role];
      if (before === role && (role === "user" || role === "assistant"))
        return deepseek400(
          "deepseek-reasoner does not support successive user or assistant messages " +
            `(messages[${i - 1}] and messages[${i}] in your input). ` +
            "You should interleave the user/assistant messages in the message sequence.",
        );
    }
  }
  if (thinking(body) && messages.some((m) => m.role === "assistant" && m.tool_calls?.length && typeof m.reasoning_content !== "string"))
    return deepseek400("The `reasoning_content` in the thinking mode must be passed back to the API.");
  return undefined;
}

// ---- Groq ----

const groq400 = (message) => ({ status: 400, body: { error: { message, type: "invalid_request_error" } } });
const GROQ_MESSAGE_FIELDS = ["role", "content", "tool_calls", "tool_call_id"];

function groqRefusal(body) {
  for (const key of ["logprobs", "logit_bias", "top_logprobs"]) if (body[key] !== undefined) return groq400(`'${key}' : is not supported`);
  if (body.n !== undefined && body.n !== null && body.n !== 1) return groq400("'n' : number must be at most 1");
  for (const [i, m] of (Array.isArray(body.messages) ? body.messages : []).entries()) {
    const unsupported = Object.keys(m ?? {}).find((k) => !GROQ_MESSAGE_FIELDS.includes(k));
    if (unsupported)
      return groq400(
        `'messages.${i}' : for 'role:${m.role}' the following must be satisfied` +
          `[('messages.${i}' : property '${unsupported}' is unsupported)]`,
      );
    if (m.role === "system" && typeof m.content !== "string")
      return groq400(
        `'messages.${i}' : for 'role:system' the following must be satisfied[('messages.${i}.content' : value must be a string)]`,
      );
  }
  return undefined;
}

// ---- xAI ----

const XAI_PARAMS = { presence_penalty: "presencePenalty", frequency_penalty: "frequencyPenalty", stop: "stop" };
/** The fields `model` refuses: a reasoning model the penalties and stop, a grok-4 non-reasoning one the penalties. */
function xaiRefused(model) {
  if (/^grok-(3-mini|4|code)/.test(model) && !model.includes("non-reasoning")) return Object.keys(XAI_PARAMS);
  return model.startsWith("grok-4") ? ["presence_penalty", "frequency_penalty"] : [];
}

function xaiRefusal(body) {
  const field = xaiRefused(body.model).find((k) => body[k] !== undefined);
  if (!field) return undefined;
  const error = `Model ${body.model} does not support parameter ${XAI_PARAMS[field]}.`;
  return { status: 400, body: { code: "Client specified an invalid argument", error } };
}

// ---- Cerebras ----

const cerebrasError = (status, field) => ({
  status,
  body: {
    message: `body.${field}: property 'body.${field}' is unsupported`,
    type: "invalid_request_error",
    param: "validation_error",
    code: "wrong_api_format",
  },
});

function cerebrasRefusal(body) {
  const field = ["frequency_penalty", "logit_bias", "presence_penalty"].find((k) => body[k] !== undefined);
  if (field) return cerebrasError(400, field);
  if (body.stream_options !== undefined) return cerebrasError(422, "stream_options");
  return undefined;
}

// ---- Fireworks ----

function fireworksRefusal(body) {
  if (body.max_tokens > 4096 && body.stream !== true)
    return {
      status: 400,
      body: {
        error: {
          message: "Requests with max_tokens > 4096 must have stream=true",
          param: "max_tokens",
          code: "BAD_REQUEST",
          type: "error",
        },
      },
    };
  return undefined;
}

// ---- the services ----

const SERVICES = [
  {
    path: "/mistral/v1/chat/completions",
    refusal: mistralRefusal,
    // What Mistral takes and OpenAI does not, as the generic stand-in (OpenAI's rules) takes it.
    forward: (body) => (body.tool_choice === "any" ? { ...body, tool_choice: "required" } : body),
    answer: (_body, m) => {
      for (const call of m.tool_calls ?? []) if (call.id) call.id = mistralId(call.id);
    },
  },
  { path: "/perplexity/chat/completions", refusal: perplexityRefusal },
  {
    path: "/deepseek/chat/completions",
    refusal: deepseekRefusal,
    answer: (body, m, frame) => {
      if (thinking(body) && frame === 0) m.reasoning_content = body.stream ? REASONING[0] : REASONING.join("");
    },
    // Streamed, the reasoning comes in two deltas (the second as a frame of its own).
    extraFrame: (body) => (thinking(body) ? { reasoning_content: REASONING[1] } : undefined),
  },
  { path: "/groq/openai/v1/chat/completions", refusal: groqRefusal },
  { path: "/xai/v1/chat/completions", refusal: xaiRefusal },
  { path: "/cerebras/v1/chat/completions", refusal: cerebrasRefusal },
  { path: "/fireworks/inference/v1/chat/completions", refusal: fireworksRefusal },
];

const unauthorized = { error: { message: "Invalid API Key", type: "invalid_request_error", code: "invalid_api_key" } };

/** The generic stand-in's answer, as `service` answers: its `answer(body, message, frame)` applied to each message or delta. */
function asServiceAnswers(service, body, status, contentType, text) {
  if (status !== 200 || !service.answer) return text;
  if (!contentType.includes("event-stream")) {
    const json = JSON.parse(text);
    for (const choice of json.choices ?? []) if (choice.message) service.answer(body, choice.message, 0);
    return JSON.stringify(json);
  }
  const frames = text.split("\n\n").filter((f) => f.trim());
  const out = [];
  for (const [n, frame] of frames.entries()) {
    const data = frame.replace(/^data: /, "");
    if (data.trim() === "[DONE]" || !data.trim().startsWith("{")) {
      out.push(frame);
      continue;
    }
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      out.push(frame); // the generic stand-in's [malformed] frame, as it is
      continue;
    }
    for (const choice of event.choices ?? []) if (choice.delta) service.answer(body, choice.delta, n);
    out.push(`data: ${JSON.stringify(event)}`);
    const extra = n === 0 ? service.extraFrame?.(body) : undefined;
    if (extra) out.push(`data: ${JSON.stringify({ ...event, choices: [{ index: 0, delta: extra, finish_reason: null }] })}`);
  }
  return `${out.join("\n\n")}\n\n`;
}

export async function startOpenAIDialectsStandin() {
  return serveInFront(async ({ req, res, url, body, raw, json }, forward) => {
    const service = SERVICES.find((s) => s.path === url.pathname);
    if (!service || req.method !== "POST") return json(404, { error: { message: `no route ${req.method} ${url.pathname}` } });
    if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return json(401, unauthorized);
    if (!body || typeof body !== "object" || typeof body.model !== "string") return json(400, { error: { message: "model is required" } });
    const refused = service.refusal?.(body);
    if (refused) return json(refused.status, refused.body);
    const answer = await forward(
      "/v1/chat/completions",
      req.headers.authorization,
      service.forward ? JSON.stringify(service.forward(body)) : raw,
    );
    const contentType = answer.headers.get("content-type") ?? "application/json";
    return relay(res, answer, asServiceAnswers(service, body, answer.status, contentType, await answer.text()));
  });
}
