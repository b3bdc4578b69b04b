// apiLoader (Flowise's "API Loader": method GET or POST, url, headers and body as JSON): one request
// under the outbound request rule (the flow chose the URL), its answer as one document — JSON
// pretty-printed as Flowise's loader gives it, any other text as it came — with metadata {url}.
// Flowise's caFile (a custom CA certificate) cannot be honoured by a Worker's fetch and is ignored.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedCall } from "./call";

function jsonInput(value: unknown, name: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw fail("INVALID_INPUT", `apiLoader ${name} must be a JSON object`);
    }
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw fail("INVALID_INPUT", `apiLoader ${name} must be a JSON object`);
  return v as Record<string, unknown>;
}

async function loadApi(input: LoaderInput): Promise<Document[]> {
  const { config } = input;
  const url = typeof config.url === "string" ? config.url.trim() : "";
  if (!url) throw fail("INVALID_INPUT", "apiLoader needs a url");
  const method = String(config.method ?? "GET").toUpperCase() === "POST" ? "POST" : "GET";
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(jsonInput(config.headers, "headers") ?? {})) headers[k] = String(v);
  const init: RequestInit = { method, headers };
  if (method === "POST") {
    // As axios sends it: the body as JSON ({} when none), with its content type unless a header sets one.
    init.body = JSON.stringify(jsonInput(config.body, "body") ?? {});
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["Content-Type"] = "application/json";
  }
  const secrets = Object.values(headers).filter((v) => v.length >= 8);
  const answer = await hostedCall(input, { service: `The API at ${new URL(url).origin}`, url, init, secrets });
  let pageContent = answer.text;
  try {
    pageContent = JSON.stringify(JSON.parse(answer.text), null, 2);
  } catch {
    // not JSON: the text as it came
  }
  return [new Document({ pageContent, metadata: { url } })];
}

export const apiLoader: LoaderDefinition = { name: "apiLoader", label: "API Loader", load: loadApi };
