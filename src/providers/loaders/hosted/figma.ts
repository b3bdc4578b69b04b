// figma (credential figmaApi: accessToken): GET {FIGMA_BASE_URL}/v1/files/{fileKey}/nodes?ids=… with
// the token as X-Figma-Token, as LangChain's FigmaFileLoader calls it; one document, the answer's
// JSON, metadata {source: the API URL}. Flowise's `recursive` input is unused there and here.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedCall, serviceBase } from "./call";

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");

// The API takes the file key alone (a URL in its place is a 404 "Not found"); a file's URL as users copy it
// (figma.com/file|design|board|proto/:key/:title?node-id=…) is taken for the key it holds.
const keyOf = (v: string) => /^https?:\/\/(?:[\w-]+\.)*figma\.com\/(?:file|design|board|proto)\/([A-Za-z0-9]+)/i.exec(v)?.[1] ?? v;

async function loadFigma(input: LoaderInput): Promise<Document[]> {
  const { config } = input;
  const fileKey = keyOf(str(config.fileKey));
  if (!fileKey) throw fail("INVALID_INPUT", "figma needs a fileKey (from the file's URL: https://www.figma.com/file/:key/:title)");
  const ids = str(config.nodeIds)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!ids.length) throw fail("INVALID_INPUT", "figma needs nodeIds: the ids of the nodes to load, separated by commas");
  const cred = input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {};
  const token = str((cred as Record<string, unknown>).accessToken);
  if (!token) throw fail("INVALID_INPUT", "figma needs a figmaApi credential with accessToken");
  const base = serviceBase(input.services?.FIGMA_BASE_URL, "https://api.figma.com");
  const query = ids.map((id) => encodeURIComponent(id).replace(/%3A/gi, ":")).join(",");
  const url = `${base}/v1/files/${encodeURIComponent(fileKey)}/nodes?ids=${query}`;
  const { text } = await hostedCall(input, {
    service: "Figma",
    field: "FIGMA_BASE_URL",
    url,
    init: { headers: { "X-Figma-Token": token } },
    secrets: [token],
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw fail("UPSTREAM_FAILED", "Figma answered something that is not JSON");
  }
  return [new Document({ pageContent: JSON.stringify(data), metadata: { source: url } })];
}

export const figmaLoader: LoaderDefinition = { name: "figma", label: "Figma", load: loadFigma };
