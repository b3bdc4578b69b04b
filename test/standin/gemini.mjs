// Gemini API stand-in: POST /v1beta/models/<model>:generateContent and
// :streamGenerateContent?alt=sse, answering per chatScript (base.mjs) with text parts,
// functionCall parts, and errors in Google's shape ({error: {code, message, status}}). A request the real API
// refuses (validateGenerateContent) gets its 400.
import { chatScript, forcedCall, hang, serveStandin, sse, tokensOf } from "./base.mjs";

// Request validation, as the Gemini API answers a request it refuses: 400 INVALID_ARGUMENT with its own message.
// Sources: the API's protos (google/ai/generativelanguage/v1beta: GenerateContentRequest, Content, Part,
// FunctionDeclaration, Schema, GenerationConfig; proto JSON refuses unknown field names) and the service's own
// messages for the function-turn order, quoted in public issue threads.
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()); // proto JSON takes both spellings
const REQUEST_FIELDS = [
  "model",
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "safetySettings",
  "generationConfig",
  "cachedContent",
];
const PART_DATA = ["text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode", "codeExecutionResult"];
const SCHEMA_FIELDS = new Set([
  ...["type", "format", "title", "description", "nullable", "enum", "items", "minItems", "maxItems", "properties", "required"],
  ...["minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default"],
  ...["minimum", "maximum"],
]);
const SCHEMA_TYPES = ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"];
// The reference's names: letters, digits, underscores and dashes (newer revisions add dots and colons, up to 128).
const FUNCTION_NAME = /^[a-zA-Z0-9_.:-]{1,128}$/;
const isObject = (v) => !!v && typeof v === "object" && !Array.isArray(v);
const field = (o, name) => o?.[name] ?? o?.[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];

/** The first unknown field of a Schema (recursively), as the service names it, or undefined. */
function schemaError(schema, at) {
  if (!isObject(schema)) return `Invalid value at '${at}': a Schema must be an object`;
  for (const [k, v] of Object.entries(schema)) {
    const key = camel(k);
    if (!SCHEMA_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${k}" at '${at}': Cannot find field.`;
    if (key === "type" && (typeof v !== "string" || !SCHEMA_TYPES.includes(v.toUpperCase())))
      return `Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ${JSON.stringify(v)}`;
    if (key === "enum" && (!Array.isArray(v) || v.some((e) => typeof e !== "string")))
      return `Invalid value at '${at}.enum[0]' (TYPE_STRING): enum values must be strings`;
    if (key === "enum" && String(schema.type).toUpperCase() !== "STRING")
      return `* GenerateContentRequest.${at}: function declaration enum only allowed for STRING type`;
    if (key === "properties" && String(schema.type).toUpperCase() !== "OBJECT")
      return `* GenerateContentRequest.${at}.properties: only allowed for OBJECT type`;
    if (key === "format" && String(schema.type).toUpperCase() === "STRING" && !["enum", "date-time"].includes(v))
      return `* GenerateContentRequest.${at}.format: only 'enum' and 'date-time' are supported for STRING type`;
    const nested =
      key === "properties" && isObject(v)
        ? Object.entries(v).map(([name, s]) => [s, `${at}.properties[${name}].value`])
        : key === "items"
          ? [[v, `${at}.items`]]
          : key === "anyOf" && Array.isArray(v)
            ? v.map((s, i) => [s, `${at}.any_of[${i}]`])
            : [];
    for (const [s, path] of nested) {
      const e = schemaError(s, path);
      if (e) return e;
    }
  }
  return undefined;
}

/** A Content's parts: each sets exactly one `data` field (Part.data is a oneof). */
function partsError(parts, at) {
  if (!Array.isArray(parts) || !parts.length) return `* GenerateContentRequest.${at}.parts: contents.parts must not be empty.`;
  for (const [j, p] of parts.entries()) {
    const set = Object.keys(isObject(p) ? p : {}).filter((k) => PART_DATA.includes(camel(k)));
    if (set.length !== 1)
      return `* GenerateContentRequest.${at}.parts[${j}].data: required oneof field 'data' must have one initialized field`;
    const call = field(p, "functionCall");
    const response = field(p, "functionResponse");
    if (call && (typeof call.name !== "string" || !call.name || (call.args !== undefined && !isObject(call.args))))
      return `* GenerateContentRequest.${at}.parts[${j}].function_call: name is required and args must be an object`;
    if (response && (typeof response.name !== "string" || !response.name))
      return `* GenerateContentRequest.${at}.parts[${j}].function_response.name: name is required`;
    if (response && !isObject(response.response))
      return `* GenerateContentRequest.${at}.parts[${j}].function_response.response: the response must be a JSON object`;
  }
  return undefined;
}

const countOf = (content, name) => (content?.parts ?? []).filter((p) => field(p, name)).length;

/** What the Gemini API refuses in a generateContent body: its error message, or undefined. */
export function validateGenerateContent(body) {
  if (!isObject(body)) return "Invalid JSON payload received. Expected an object.";
  for (const k of Object.keys(body))
    if (!REQUEST_FIELDS.includes(camel(k))) return `Invalid JSON payload received. Unknown name "${k}": Cannot find field.`;
  const contents = body.contents;
  if (!Array.isArray(contents) || !contents.length) return "* GenerateContentRequest.contents: contents is not specified";
  for (const [i, c] of contents.entries()) {
    if (!isObject(c)) return `Invalid value at 'contents[${i}]': a Content must be an object`;
    if (c.role !== undefined && c.role !== "" && c.role !== "user" && c.role !== "model") return "Please use a valid role: user, model.";
    const e = partsError(c.parts, `contents[${i}]`);
    if (e) return e;
    // The function-turn order: a call answers a user turn (or a function response), a response answers the
    // call turn just before it, one response part per call part.
    const calls = countOf(c, "functionCall");
    const responses = countOf(c, "functionResponse");
    const prev = contents[i - 1];
    if (calls && responses)
      return (
        "Please ensure that function call turn contains at least one function_call part " +
        "which can not be mixed with function_response parts."
      );
    if (calls && (!prev || prev.role === "model"))
      return "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
    if (responses && (prev?.role !== "model" || !countOf(prev, "functionCall")))
      return "Please ensure that function response turn comes immediately after a function call turn.";
    if (responses && responses !== countOf(prev, "functionCall"))
      return (
        "Please ensure that the number of function response parts is equal to " +
        "the number of function call parts of the function call turn."
      );
  }
  const system = field(body, "systemInstruction");
  if (system !== undefined) {
    const e = partsError(system?.parts, "system_instruction");
    if (e) return e;
  }
  for (const [t, tool] of (body.tools ?? []).entries()) {
    for (const [d, decl] of (field(tool, "functionDeclarations") ?? []).entries()) {
      const at = `tools[${t}].function_declarations[${d}]`;
      if (typeof decl?.name !== "string" || !FUNCTION_NAME.test(decl.name))
        return (
          `* GenerateContentRequest.${at}.name: Invalid function name. ` +
          "Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 128."
        );
      if (decl.parameters !== undefined) {
        const e = schemaError(decl.parameters, `${at}.parameters`);
        if (e) return e;
      }
    }
  }
  const calling = field(field(body, "toolConfig"), "functionCallingConfig");
  if (calling && !["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"].includes(calling.mode))
    return "Invalid value at 'tool_config.function_calling_config.mode'";
  const generation = field(body, "generationConfig") ?? {};
  const stop = field(generation, "stopSequences");
  if (Array.isArray(stop) && stop.length > 5) return "* GenerationConfig.stop_sequences: at most 5 stop sequences are allowed";
  const temperature = generation.temperature;
  if (temperature !== undefined && (typeof temperature !== "number" || temperature < 0 || temperature > 2))
    return "* GenerationConfig.temperature: must be in the range [0.0, 2.0]";
  return undefined;
}

const textOf = (parts) =>
  (parts ?? [])
    .filter((p) => typeof p.text === "string")
    .map((p) => p.text)
    .join("");

export function startGeminiStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const m = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    if (req.method !== "POST" || !m) return json(404, { error: { code: 404, message: `no route ${url.pathname}`, status: "NOT_FOUND" } });
    if (!req.headers["x-goog-api-key"]) return json(403, { error: { code: 403, message: "API key missing", status: "PERMISSION_DENIED" } });
    const invalid = validateGenerateContent(body);
    if (invalid) return json(400, { error: { code: 400, message: invalid, status: "INVALID_ARGUMENT" } });
    const contents = body?.contents ?? [];
    const lastUserIdx = contents.findLastIndex((c) => c.role === "user" && textOf(c.parts));
    const last = textOf(contents[lastUserIdx]?.parts);
    const results = contents
      .slice(lastUserIdx)
      .flatMap((c) => c.parts ?? [])
      .filter((p) => p.functionResponse)
      .map((p) =>
        typeof p.functionResponse.response?.content === "string"
          ? p.functionResponse.response.content
          : JSON.stringify(p.functionResponse.response),
      );
    const declared = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    // ANY with one allowed function forces that call.
    const calling = body.toolConfig?.functionCallingConfig;
    const only = calling?.mode === "ANY" && calling.allowedFunctionNames?.length === 1 ? calling.allowedFunctionNames[0] : undefined;
    const forced = only && !results.length ? declared.find((d) => d.name === only) : undefined;
    const step = forced ? forcedCall(forced.name, forced.parameters, last) : chatScript(last, results, declared.length > 0);
    if (step.fail)
      return json(step.fail, {
        error: { code: step.fail, message: "stand-in refuses this request", status: step.fail === 500 ? "INTERNAL" : "INVALID_ARGUMENT" },
      });
    if (step.hang) return hang(res);
    const usageMetadata = { promptTokenCount: 3, candidatesTokenCount: 5, totalTokenCount: 8 };
    const answer = (parts, finishReason) => ({
      candidates: [{ content: { role: "model", parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
      usageMetadata,
      modelVersion: m[1],
    });
    const parts = step.calls ? step.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) : [{ text: step.text }];
    if (m[2] === "generateContent") return json(200, answer(parts, "STOP"));
    if (url.searchParams.get("alt") !== "sse")
      return json(400, { error: { code: 400, message: "stand-in streams only with alt=sse", status: "INVALID_ARGUMENT" } });
    const frames = step.calls
      ? [answer(parts, "STOP")]
      : tokensOf(step.text).map((t, i, all) => answer([{ text: t }], i === all.length - 1 ? "STOP" : undefined));
    sse(
      res,
      frames.map((f) => `data: ${JSON.stringify(f)}\r\n\r\n`),
    );
  });
}
