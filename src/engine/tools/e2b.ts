// codeInterpreterE2B (credential E2BApi: e2bApiKey): Python run in an E2B sandbox, as Flowise runs it with
// @e2b/code-interpreter 1.5 over e2b 1.13, spoken natively over fetch. One call of the tool:
//   POST {E2B_API_URL}/sandboxes  X-API-KEY, {templateID: "code-interpreter-v1", timeout: 300, autoPause: false,
//        allow_internet_access: true} → {sandboxID, domain?, envdAccessToken?}
//   POST {E2B_SANDBOX_URL}/execute  (the sandbox's Jupyter server, port 49999: https://49999-<id>.<domain>)
//        {code, language: "python"} → NDJSON lines: stdout, stderr, result {is_main_result, text, png, …},
//        error {name, value, traceback}, end_of_execution
//   DELETE {E2B_API_URL}/sandboxes/<id>  X-API-KEY, always, in `finally` (Flowise kills only after a failure and
//        leaves every other sandbox running until E2B's 5-minute timeout).
// The model reads what Flowise answers: the main result's text, else stdout joined by newlines; a Python error
// as "<name>: <value>". PNG and JPEG results are stored as the chat's files (`<chatflowid>/<chatId>/artifact_<ms>.png`,
// served by /get-upload-file) and, with html/markdown/latex/json/javascript results, follow Flowise's
// artifacts marker; the Agent node moves them out of the model's text into the message's artifacts.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { checkEndpoint } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { str } from "../core/inputs";
import type { RunContext } from "../core/ports";
import { ARTIFACTS_PREFIX, producesArtifacts } from "./artifacts";
import { ToolCallError, baseUrlOf, callService, callServiceJson, credentialField } from "./service";
import { toolName } from "./names";
import type { ToolDeps } from "./types";

const DESC =
  "Evaluates python code in a sandbox environment. The environment is long running and exists across multiple " +
  "executions. You must send the whole script every time and print your outputs. Script should be pure python " +
  "code that can be evaluated. It should be in python format NOT markdown. The code should NOT be wrapped in " +
  "backticks. All python packages including requests, matplotlib, scipy, numpy, pandas, etc are available. " +
  'Create and display chart using "plt.show()".';
const API = "https://api.e2b.app";
/** The sandbox's host for a port, as the SDK's getHost builds it; E2B_SANDBOX_URL may rewrite it (tests: a stand-in). */
const SANDBOX_URL = "https://{port}-{sandboxId}.{domain}";
const DOMAIN = "e2b.app";
const JUPYTER_PORT = "49999";
const TEMPLATE = "code-interpreter-v1";
/** The SDK's defaults: a sandbox lives 300 s; an execution's stream is read for at most 60 s. */
const SANDBOX_TIMEOUT_S = 300;
const EXECUTE_TIMEOUT_MS = 60_000;
const TEXT_RESULTS = ["html", "markdown", "latex", "json", "javascript"];
const IMAGES: Record<string, [string, string]> = { png: ["image/png", "png"], jpeg: ["image/jpg", "jpg"] };

const sandboxUrl = (template: string, sandboxId: string, domain: string) =>
  template.replace("{port}", JUPYTER_PORT).replace("{sandboxId}", sandboxId).replace("{domain}", domain).replace(/\/+$/, "");

interface Execution {
  results: Record<string, unknown>[];
  stdout: string[];
  error?: { name?: unknown; value?: unknown };
}

/** The execute endpoint's NDJSON stream, read as the SDK's parseOutput reads it. */
function parseExecution(text: string): Execution {
  const out: Execution = { results: [], stdout: [] };
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      throw new ToolCallError("E2B sandbox answered a line that is not JSON");
    }
    if (msg.type === "result") out.results.push(msg);
    else if (msg.type === "stdout") out.stdout.push(String(msg.text ?? ""));
    else if (msg.type === "error") out.error = msg as Execution["error"];
  }
  return out;
}

/** Images stored as the chat's files, other rich results handed on: Flowise's artifacts. */
async function artifactsOf(results: Record<string, unknown>[], ctx: RunContext) {
  const artifacts: { type: string; data: unknown }[] = [];
  for (const result of results) {
    for (const [key, value] of Object.entries(result)) {
      if (!value) continue;
      const image = IMAGES[key];
      if (image && typeof value === "string") {
        const name = `artifact_${Date.now()}.${image[1]}`;
        const bytes = Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
        await ctx.runtime.files.write(`${ctx.chatflowid}/${ctx.chatId}/${name}`, { name, mime: image[0], bytes });
        artifacts.push({ type: key, data: `FILE-STORAGE::${name}` });
      } else if (TEXT_RESULTS.includes(key)) artifacts.push({ type: key, data: value });
    }
  }
  return artifacts;
}

export async function e2bTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  const env = ctx.runtime.providers;
  const api = baseUrlOf(env.E2B_API_URL, API);
  const hostTemplate = str(env.E2B_SANDBOX_URL) ?? SANDBOX_URL;
  checkEndpoint(api, "E2B_API_URL", env);
  checkEndpoint(sandboxUrl(hostTemplate, "sandbox", DOMAIN), "E2B_SANDBOX_URL", env);
  const tool = new DynamicStructuredTool({
    name: toolName(str(inputs.toolName) ?? "code_interpreter"),
    description: str(inputs.toolDesc) ?? DESC,
    schema: z.object({ input: z.string().describe("Python code to be executed in the sandbox environment") }),
    func: async ({ input }) => {
      const [key] = await credentialField(ctx, inputs, "E2BApi", ["e2bApiKey"], label);
      const secrets = [key];
      const headers = { "X-API-KEY": key, "Content-Type": "application/json" };
      const created = await callServiceJson(
        {
          service: "E2B",
          field: "E2B_API_URL",
          url: `${api}/sandboxes`,
          secrets,
          init: {
            method: "POST",
            headers,
            body: JSON.stringify({ templateID: TEMPLATE, timeout: SANDBOX_TIMEOUT_S, autoPause: false, allow_internet_access: true }),
          },
        },
        ctx,
      );
      const id = str(created.sandboxID);
      if (!id) throw new ToolCallError("E2B answered no sandboxID");
      const token = str(created.envdAccessToken);
      try {
        const res = await callService(
          {
            service: "E2B sandbox",
            field: "E2B_SANDBOX_URL",
            url: `${sandboxUrl(hostTemplate, id, str(created.domain) ?? DOMAIN)}/execute`,
            secrets: token ? [key, token] : secrets,
            timeoutMs: EXECUTE_TIMEOUT_MS,
            init: {
              method: "POST",
              headers: { "Content-Type": "application/json", ...(token ? { "X-Access-Token": token } : {}) },
              body: JSON.stringify({ code: input, language: "python" }),
            },
          },
          ctx,
        );
        if (!res.ok) throw new ToolCallError(redact(`E2B sandbox answered ${res.status}: ${res.text.slice(0, 300)}`, secrets));
        const execution = parseExecution(res.text);
        if (execution.error) return `${execution.error.name}: ${execution.error.value}`;
        const artifacts = await artifactsOf(execution.results, ctx);
        const main = execution.results.find((r) => r.is_main_result)?.text;
        const output = typeof main === "string" && main ? main : execution.stdout.join("\n");
        return artifacts.length ? output + ARTIFACTS_PREFIX + JSON.stringify(artifacts) : output;
      } finally {
        // Not under the run's signal: an aborted run still frees its sandbox.
        const kill = { service: "E2B", field: "E2B_API_URL", url: `${api}/sandboxes/${encodeURIComponent(id)}`, secrets };
        await callService(
          { ...kill, timeoutMs: 10_000, init: { method: "DELETE", headers } },
          {
            runtime: ctx.runtime,
            signal: new AbortController().signal,
          },
        ).catch(() => undefined);
      }
    },
  });
  return producesArtifacts(tool);
}
