// Gemini API stand-in: POST /v1beta/models/<model>:generateContent and
// :streamGenerateContent?alt=sse, answering per chatScript (base.mjs) with text parts,
// functionCall parts, and errors in Google's shape ({error: {code, message, status}}).
import { chatScript, forcedCall, hang, serveStandin, sse, tokensOf } from "./base.mjs";

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
    // toolConfig as Google validates its mode; ANY with one allowed function forces that call.
    const calling = body.toolConfig?.functionCallingConfig;
    if (calling && !["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"].includes(calling.mode))
      return json(400, {
        error: { code: 400, message: `Invalid value at 'tool_config.function_calling_config.mode'`, status: "INVALID_ARGUMENT" },
      });
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
