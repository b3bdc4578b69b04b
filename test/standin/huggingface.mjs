// Hugging Face Inference stand-in: POST /models/<owner>/<name> (serverless) or any other POST path
// (a user's Inference Endpoint) with {inputs, parameters} → [{generated_text}], per chatScript
// (base.mjs): "echo: <inputs>"; [fail] → 500 {error}; no bearer token → 401 {error}.
import { chatScript, hang, serveStandin } from "./base.mjs";

export function startHuggingFaceStandin() {
  return serveStandin(async ({ req, res, body, json }) => {
    if (req.method !== "POST") return json(404, { error: "not found" });
    if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return json(401, { error: "Invalid credentials in Authorization header" });
    if (typeof body?.inputs !== "string") return json(400, { error: "inputs must be a string" });
    const step = chatScript(body.inputs, [], false);
    if (step.fail) return json(step.fail, { error: "stand-in refuses this request" });
    if (step.hang) return hang(res);
    const text = body.parameters?.return_full_text === false ? step.text : body.inputs + step.text;
    json(200, [{ generated_text: text }]);
  });
}
