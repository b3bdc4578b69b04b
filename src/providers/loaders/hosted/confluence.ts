// confluence (credential confluenceCloudApi: username + accessToken as Basic auth, or
// confluenceServerDCApi: personalAccessToken as Bearer): a space's pages through Confluence's REST
// API (GET {baseUrl}/rest/api/content?spaceKey&limit&start&expand=body.storage,version), page after
// page until one is empty, as LangChain's ConfluencePagesLoader reads them: the storage HTML as
// text (code macros kept as fenced code, attachment macros as [ATTACHMENT], empty lines dropped),
// metadata {id, status, title, type, url, version, updated_by, updated_at}. `baseUrl` is the flow's
// choice: under the outbound request rule.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { htmlToText } from "../web";
import { hostedJson } from "./call";

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const o = (v: unknown): Obj => (isObject(v) ? v : {});
const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const MAX_PAGES_OF_RESULTS = 1_000;

const ATTACHMENT_MACRO = /<ac:structured-macro\s+ac:name="(attachments|view-file)"[^>]*(?:\/?>|>.*?<\/ac:structured-macro>)/gs;
const CODE_MACRO = new RegExp(
  '<ac:structured-macro.*?<ac:parameter ac:name="language">(.*?)</ac:parameter>.*?' +
    "<ac:plain-text-body><!\\[CDATA\\[([\\s\\S]*?)\\]\\]></ac:plain-text-body></ac:structured-macro>",
  "g",
);

async function pageText(html: string): Promise<string> {
  const code: Array<{ language: string; code: string }> = [];
  const marked = html.replace(ATTACHMENT_MACRO, "[ATTACHMENT]").replace(CODE_MACRO, (_, language: string, body: string) => {
    code.push({ language, code: body.trim() });
    return `<p>CODE_BLOCK_${code.length - 1}</p><br>`;
  });
  let out = (await htmlToText(`<body>${marked}</body>`)).text;
  code.forEach((c, i) => {
    out = out.replace(`CODE_BLOCK_${i}`, `\`\`\`${c.language}\n${c.code}\n\`\`\``);
  });
  return out.replace(/^\s*[\r\n]/gm, "");
}

async function loadConfluence(input: LoaderInput): Promise<Document[]> {
  const { config, limits } = input;
  const baseUrl = text(config.baseUrl).replace(/\/+$/, "");
  const spaceKey = text(config.spaceKey);
  if (!baseUrl || !spaceKey) throw fail("INVALID_INPUT", "confluence needs its baseUrl and spaceKey");
  const limit = Number(config.limit) > 0 ? Math.floor(Number(config.limit)) : 25;
  const cred = (input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {}) as Obj;
  const pat = text(cred.personalAccessToken);
  const [user, token] = [text(cred.username), text(cred.accessToken)];
  const auth = pat ? `Bearer ${pat}` : user && token ? `Basic ${btoa(`${user}:${token}`)}` : "";
  if (!auth)
    throw fail("INVALID_INPUT", "confluence needs a confluenceCloudApi (username, accessToken) or confluenceServerDCApi credential");
  const headers = { Authorization: auth, Accept: "application/json", "Content-Type": "application/json" };
  const secrets = [pat, token, auth.split(" ")[1]].filter(Boolean);
  const pages: Obj[] = [];
  for (let start = 0, n = 0; n < MAX_PAGES_OF_RESULTS; n++) {
    const params = `spaceKey=${encodeURIComponent(spaceKey)}&limit=${limit}&start=${start}&expand=body.storage,version`;
    const data = o(
      await hostedJson(input, { service: "Confluence", url: `${baseUrl}/rest/api/content?${params}`, init: { headers }, secrets }),
    );
    const results = Array.isArray(data.results) ? data.results.filter(isObject) : [];
    const size = typeof data.size === "number" ? data.size : results.length;
    if (!size || !results.length) break;
    pages.push(...results);
    if (pages.length > limits.chunks) throw overLimit(limits, "chunks", `Confluence space ${spaceKey}`, pages.length);
    start += size;
  }
  const docs: Document[] = [];
  for (const page of pages) {
    const version = o(page.version);
    docs.push(
      new Document({
        pageContent: await pageText(text(o(o(page.body).storage).value)),
        metadata: {
          id: page.id,
          status: page.status,
          title: page.title,
          type: page.type,
          url: `${baseUrl}/spaces/${spaceKey}/pages/${page.id}`,
          version: version.number,
          updated_by: o(version.by).displayName,
          updated_at: version.when,
        },
      }),
    );
  }
  return docs;
}

export const confluenceLoader: LoaderDefinition = { name: "confluence", label: "Confluence", load: loadConfluence };
