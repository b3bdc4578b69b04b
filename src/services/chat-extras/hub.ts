// The studio's prompt picker (Flowise's "Langchain Hub" dialog on prompt nodes): the list of public
// prompts (POST /prompts-list) and one prompt's templates (POST /load-prompt), read from LangChain
// Hub's HTTP API — the calls Flowise makes through langchainhub's Client: GET /repos/?… and GET
// /commits/{owner}/{repo}/{commit}. The hub's address is a deployment var (LANGCHAIN_HUB_URL), so
// it is fetched under the outbound policy's endpoint rule; an unreachable or failing hub is a 502
// (504 when it is slow) whose message names the hub and its address.
import type { Deps } from "../deps";
import { ApiError, badGateway, badRequest, gatewayTimeout, notFound } from "../../errors";
import { checkEndpoint, endpointFetch } from "../../lib/outbound";
import { errorMessage } from "../../lib/error-message";

const HUB = "LangChain Hub";
const TIMEOUT_MS = 10_000;
/** A hub answer larger than this is not a prompt list or a prompt. */
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;
/** `owner/name`, `name` (owner "-", as langchainhub reads it), each with an optional `:commit`. */
const PROMPT_NAME = /^(?:([\w.-]{1,100})\/)?([\w.-]{1,200})(?::([\w.-]{1,64}))?$/;

type HubDeps = Deps<"env" | "config">;

async function hubGet(deps: HubDeps, path: string, missing?: string): Promise<unknown> {
  const base = deps.config.LANGCHAIN_HUB_URL;
  const policy = checkEndpoint(base, "LANGCHAIN_HUB_URL", deps.env);
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  let res: Response;
  try {
    res = await endpointFetch(`${base}${path}`, { signal, headers: { accept: "application/json" } }, policy);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (signal.aborted) throw gatewayTimeout(`${HUB} (${base}) did not answer within ${TIMEOUT_MS / 1000} s`);
    throw badGateway(`${HUB} (${base}) is unreachable: ${errorMessage(err)}`);
  }
  if (res.status === 404 && missing) throw notFound(missing);
  const text = await res.text().catch(() => "");
  if (!res.ok) throw badGateway(`${HUB} (${base}) answered ${res.status}: ${text.slice(0, 200)}`);
  if (text.length > MAX_ANSWER_BYTES) throw badGateway(`${HUB} (${base}) answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MB`);
  try {
    return JSON.parse(text);
  } catch {
    throw badGateway(`${HUB} (${base}) answered something that is not JSON`);
  }
}

/**
 * The tags of Flowise's picker, which sends them as a query fragment (`StringPromptTemplate&tags=
 * openai:gpt-4&`) that Flowise pastes after `tags=`: read back as tag values only, so no other
 * query parameter can be slipped into the hub's URL.
 */
export function tagsOf(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === "") return [];
  const values = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  return values.flatMap((v) => new URLSearchParams(`tags=${v}`).getAll("tags")).filter((t) => t.trim() !== "");
}

/** POST /prompts-list: the hub's public prompts with these tags, most liked first (100, as Flowise asks). */
export async function listHubPrompts(deps: HubDeps, body: { tags?: unknown }) {
  const query = new URLSearchParams({ limit: "100" });
  for (const tag of tagsOf(body.tags)) query.append("tags", tag);
  for (const [k, v] of Object.entries({ has_commits: "true", sort_field: "num_likes", sort_direction: "desc", is_archived: "false" }))
    query.set(k, v);
  const answer = (await hubGet(deps, `/repos/?${query}`)) as { repos?: unknown } | null;
  if (!answer || !Array.isArray(answer.repos)) throw badGateway(`${HUB} answered a prompt list without \`repos\``);
  return { status: "OK" as const, repos: answer.repos as Record<string, unknown>[] };
}

export interface PromptTemplate {
  type: "systemMessagePrompt" | "humanMessagePrompt" | "aiMessagePrompt" | "template";
  typeDisplay: string;
  template: string;
}

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** What Flowise's parsePrompt reads of a manifest: a chat prompt's messages, or a string prompt's template. */
export function templatesOf(manifest: unknown): PromptTemplate[] {
  const kwargs = record(record(manifest).kwargs);
  if (Array.isArray(kwargs.messages)) {
    return kwargs.messages.map((m) => {
      const id = Array.isArray(record(m).id) ? (record(m).id as unknown[]).map(String).join(".") : String(record(m).id ?? "");
      const template = String(record(record(record(record(m).kwargs).prompt).kwargs).template ?? "");
      if (id.includes("SystemMessagePromptTemplate")) return { type: "systemMessagePrompt", typeDisplay: "System Message", template };
      if (id.includes("HumanMessagePromptTemplate")) return { type: "humanMessagePrompt", typeDisplay: "Human Message", template };
      if (id.includes("AIMessagePromptTemplate")) return { type: "aiMessagePrompt", typeDisplay: "AI Message", template };
      return { type: "template", typeDisplay: "Message", template };
    });
  }
  if (typeof kwargs.template === "string") return [{ type: "template", typeDisplay: "Prompt", template: kwargs.template }];
  return [];
}

/** POST /load-prompt: one prompt's templates, from its latest commit (or the `:commit` its name gives). */
export async function loadHubPrompt(deps: HubDeps, promptName: unknown) {
  if (typeof promptName !== "string" || !promptName.trim()) throw badRequest("promptName is required (e.g. hwchase17/react)");
  const match = PROMPT_NAME.exec(promptName.trim());
  if (!match) throw badRequest(`promptName ${promptName.slice(0, 200)} is not owner/name[:commit]`);
  const [, owner = "-", repo, commit = "latest"] = match;
  const path = `/commits/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/${encodeURIComponent(commit)}`;
  const answer = record(await hubGet(deps, path, `${HUB} has no prompt ${promptName.trim()}`));
  if (!("manifest" in answer)) throw badGateway(`${HUB} answered a prompt without its manifest`);
  return { status: "OK" as const, prompt: promptName.trim(), templates: templatesOf(answer.manifest) };
}
