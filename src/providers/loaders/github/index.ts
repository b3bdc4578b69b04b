// The github loader (Flowise's `github`: repoLink, branch, recursive, ignorePath, maxConcurrency,
// maxRetries, githubBaseUrl, githubInstanceApi; credential githubApi with accessToken) over GitHub's
// REST API: one tree listing (folder by folder when GitHub truncates it), then each text file's raw
// contents, maxConcurrency at a time.
// Documents as LangChain's GithubRepoLoader gives them: {source: path, repository, branch}.
// Binary files (by extension) and submodules are left out; what would pass MAX_TEXT_MB or
// MAX_CHUNKS_PER_UPSERT is refused (413) from the listing's sizes, before any file is fetched.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { megabytes, overLimit } from "../../../lib/limits";
import { num, str } from "../../../lib/inputs";
import { credentialOf } from "../../config";
import { isTextLike } from "../text-util";
import type { LoaderDefinition, LoaderInput } from "../types";
import { GITHUB_API, GithubApi, type TreeEntry } from "./api";
import { ignoreMatcher, ignorePatterns } from "./ignore";

const DEFAULT_CONCURRENCY = 2;
const DEFAULT_RETRIES = 2;
/** The most folders listed one by one when GitHub truncates the recursive listing. */
const MAX_TREE_CALLS = 1_000;

interface RepoRef {
  owner: string;
  repo: string;
  /** The branch named in a /tree/<branch>/ link, if any. */
  branch?: string;
  /** A folder the link points into ("" for the whole repository). */
  path: string;
}

/** owner, repo and folder of a link such as https://github.com/o/r or https://github.com/o/r/tree/main/docs. */
function parseRepoLink(link: string): RepoRef {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw fail("INVALID_INPUT", `github repoLink "${link}" is not a URL like https://github.com/owner/repo`);
  }
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length < 2) throw fail("INVALID_INPUT", `github repoLink "${link}" does not name a repository (https://github.com/owner/repo)`);
  const [owner, rawRepo, kind, branch, ...rest] = parts;
  const repo = rawRepo.replace(/\.git$/, "");
  if (kind === "tree" || kind === "blob") return { owner, repo, branch, path: rest.join("/") };
  return { owner, repo, path: "" };
}

const wholeNumber = (value: unknown, name: string, fallback: number, min: number): number => {
  const n = num(value);
  if (n === undefined) return fallback;
  if (!Number.isInteger(n) || n < min) throw fail("INVALID_INPUT", `github ${name} must be a whole number of at least ${min}`);
  return n;
};

/** The files to load: blobs under the link's folder (directly under it unless recursive), not ignored, text. */
function filesToLoad(entries: TreeEntry[], folder: string, recursive: boolean, ignored: (path: string) => boolean): TreeEntry[] {
  const prefix = folder ? `${folder.replace(/\/+$/, "")}/` : "";
  return entries.filter((e) => {
    if (e.type !== "blob" || !e.path.startsWith(prefix)) return false;
    if (!recursive && e.path.slice(prefix.length).includes("/")) return false;
    return !ignored(e.path) && isTextLike({ name: e.path, mime: "" });
  });
}

/**
 * The branch listed one tree at a time, as GitHub advises when it truncates a recursive listing
 * (over 100,000 entries or 7 MB): the root, each folder on the way to the link's folder, and every
 * folder below that when recursive. Paths are the full ones a recursive listing gives.
 */
async function walkTree(api: GithubApi, ref: RepoRef, branch: string, recursive: boolean): Promise<TreeEntry[]> {
  const folder = ref.path.replace(/\/+$/, "");
  const wanted = (path: string) =>
    folder.startsWith(`${path}/`) || path === folder || (recursive && (!folder || path.startsWith(`${folder}/`)));
  const out: TreeEntry[] = [];
  const queue = [{ sha: branch, prefix: "" }];
  for (let calls = 0; queue.length; calls++) {
    if (calls >= MAX_TREE_CALLS)
      throw fail("LIMIT_EXCEEDED", `Repository ${ref.owner}/${ref.repo} has more than ${MAX_TREE_CALLS} folders to list: link a folder`);
    const { sha, prefix } = queue.shift() as { sha: string; prefix: string };
    const what = `folder "${prefix || "/"}" of ${ref.owner}/${ref.repo}`;
    for (const e of (await api.tree(ref.owner, ref.repo, sha, false, what)).entries) {
      const path = prefix + e.path;
      out.push({ ...e, path });
      if (e.type === "tree" && e.sha && wanted(path)) queue.push({ sha: e.sha, prefix: `${path}/` });
    }
  }
  return out;
}

/** Runs `work` over `items`, at most `limit` at a time, keeping their order. */
async function pooled<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function loadGithub(input: LoaderInput): Promise<Document[]> {
  const { config, limits } = input;
  const link = str(config.repoLink);
  if (!link) throw fail("INVALID_INPUT", "github needs its repoLink input (https://github.com/owner/repo)");
  const ref = parseRepoLink(link);
  const branch = str(config.branch) ?? ref.branch ?? "main";
  const recursive = config.recursive === true || config.recursive === "true";
  const ignored = ignoreMatcher(ignorePatterns(config.ignorePath));
  const concurrency = wholeNumber(config.maxConcurrency, "maxConcurrency", DEFAULT_CONCURRENCY, 1);
  const credential = input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }) : {};
  const instanceApi = str(config.githubInstanceApi);
  const api = new GithubApi({
    apiUrl: (instanceApi ?? str(input.services?.GITHUB_API_BASE_URL) ?? GITHUB_API).replace(/\/+$/, ""),
    // A githubInstanceApi input is the flow's choice (the request rule); the deployment's URL an endpoint.
    rule: instanceApi
      ? { request: input.outbound }
      : { endpoint: { field: "GITHUB_API_BASE_URL", env: { ...input.outbound, ENVIRONMENT: input.services?.ENVIRONMENT } } },
    token: str(credential.accessToken),
    maxRetries: wholeNumber(config.maxRetries, "maxRetries", DEFAULT_RETRIES, 0),
  });
  const baseUrl = (str(config.githubBaseUrl) ?? "https://github.com").replace(/\/+$/, "");

  const listed = await api.tree(ref.owner, ref.repo, branch);
  // A truncated listing misses files: read the folders one by one instead of loading part of the repository.
  const entries = listed.truncated ? await walkTree(api, ref, branch, recursive) : listed.entries;
  const files = filesToLoad(entries, ref.path, recursive, ignored);
  if (files.length > limits.chunks) throw overLimit(limits, "chunks", `Repository ${ref.owner}/${ref.repo}`, files.length);
  const bytes = files.reduce((n, f) => n + (f.size ?? 0), 0);
  if (bytes > megabytes(limits.textMb))
    throw overLimit(limits, "textMb", `Repository ${ref.owner}/${ref.repo}`, Math.ceil(bytes / 1024 / 1024));

  const decoder = new TextDecoder();
  const repository = `${baseUrl}/${ref.owner}/${ref.repo}`;
  const docs = await pooled(files, concurrency, async (f) => {
    const text = decoder.decode(await api.raw(ref.owner, ref.repo, branch, f.path));
    return new Document({ pageContent: text, metadata: { source: f.path, repository, branch } });
  });
  return docs.filter((d) => d.pageContent.trim());
}

export const githubLoader: LoaderDefinition = { name: "github", label: "Github", load: loadGithub };
