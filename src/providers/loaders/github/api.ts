// The slice of GitHub's REST API the github loader uses: the git tree of a branch (one call lists
// every path) and a file's raw contents. Each call has a deadline; network failures, 5xx and 429
// are retried (maxRetries, backoff doubling from 250 ms); the token never appears in a message.
import { ApiError, fail } from "../../../errors";
import { type EndpointPolicy, type OutboundEnv, endpointFetch, outboundFetch } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { errorMessage } from "../../../lib/error-message";

export const GITHUB_API = "https://api.github.com";
const GITHUB_TIMEOUT_MS = 30_000;
const BACKOFF_MS = 250;

export interface TreeEntry {
  path: string;
  type: string;
  size?: number;
  /** The object's sha: for a `tree` entry, what lists its folder. */
  sha?: string;
}

export interface GithubApiOptions {
  apiUrl: string;
  token?: string;
  maxRetries: number;
  /**
   * The outbound rule the API URL is under: `request` when it came from the flow (githubInstanceApi),
   * else `endpoint` (GITHUB_API_BASE_URL, or GitHub's own).
   */
  rule: { request: OutboundEnv } | { endpoint: EndpointPolicy };
  timeoutMs?: number;
}

class Retryable extends Error {}

export class GithubApi {
  constructor(private readonly o: GithubApiOptions) {}

  private headers(accept: string): Record<string, string> {
    return {
      Accept: accept,
      "User-Agent": "edgeflow-github-loader",
      "X-GitHub-Api-Version": "2022-11-28",
      ...(this.o.token ? { Authorization: `Bearer ${this.o.token}` } : {}),
    };
  }

  private async once(path: string, accept: string, what: string): Promise<Response> {
    const ms = this.o.timeoutMs ?? GITHUB_TIMEOUT_MS;
    const signal = AbortSignal.timeout(ms);
    const url = `${this.o.apiUrl}${path}`;
    let res: Response;
    try {
      const init = { headers: this.headers(accept), signal };
      const rule = this.o.rule;
      res = "request" in rule ? await outboundFetch(url, init, rule.request) : await endpointFetch(url, init, rule.endpoint);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (signal.aborted) throw fail("TIMEOUT", `GitHub did not answer within ${Math.round(ms / 1000)} s (${what})`);
      throw new Retryable(`GitHub is unreachable (${what}): ${this.scrub(errorMessage(err))}`);
    }
    if (res.ok) return res;
    const detail = this.scrub(await messageOf(res));
    if (res.status >= 500 || res.status === 429) throw new Retryable(`GitHub answered ${res.status} (${what}): ${detail}`);
    if (res.status === 404)
      throw fail("INVALID_INPUT", `GitHub: ${what} not found${this.o.token ? "" : " (a private repository needs a githubApi credential)"}`);
    if (res.status === 401) throw fail("INVALID_INPUT", `GitHub refused the githubApi credential (401): ${detail}`);
    throw fail("UPSTREAM_FAILED", `GitHub answered ${res.status} (${what}): ${detail}`);
  }

  private async call(path: string, accept: string, what: string): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(path, accept, what);
      } catch (err) {
        if (!(err instanceof Retryable)) throw err;
        if (attempt >= this.o.maxRetries) throw fail("UPSTREAM_FAILED", err.message);
        await new Promise((r) => setTimeout(r, Math.min(BACKOFF_MS * 2 ** attempt, 4_000)));
      }
    }
  }

  private scrub(text: string): string {
    return redact(text.slice(0, 300), this.o.token ? [this.o.token] : []);
  }

  /**
   * The entries of a tree (GET /repos/{o}/{r}/git/trees/{ref}): `ref` a branch or a tree's sha; every
   * path below it when recursive, else its own entries. `truncated`: GitHub cut a recursive listing
   * (100,000 entries or 7 MB) and the rest must be listed one sub-tree at a time.
   */
  async tree(
    owner: string,
    repo: string,
    ref: string,
    recursive = true,
    what = `repository ${owner}/${repo} at branch "${ref}"`,
  ): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
    const path = `/repos/${enc(owner)}/${enc(repo)}/git/trees/${enc(ref)}${recursive ? "?recursive=1" : ""}`;
    const res = await this.call(path, "application/vnd.github+json", what);
    const body = (await res.json().catch(() => ({}))) as { tree?: unknown; truncated?: unknown };
    if (!Array.isArray(body.tree)) throw fail("UPSTREAM_FAILED", `GitHub answered a tree without entries for ${owner}/${repo}`);
    const entries = body.tree.filter((e): e is TreeEntry => !!e && typeof e.path === "string" && typeof e.type === "string");
    return { entries, truncated: body.truncated === true };
  }

  /** A file's bytes (GET /repos/{o}/{r}/contents/{path}?ref=… as raw). */
  async raw(owner: string, repo: string, branch: string, path: string): Promise<Uint8Array> {
    const res = await this.call(
      `/repos/${enc(owner)}/${enc(repo)}/contents/${path.split("/").map(enc).join("/")}?ref=${enc(branch)}`,
      "application/vnd.github.raw",
      `file ${path}`,
    );
    return new Uint8Array(await res.arrayBuffer());
  }
}

const enc = encodeURIComponent;

async function messageOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === "string") return body.message;
  } catch {
    // not JSON
  }
  return text.trim().split(/\r?\n/)[0] || res.statusText;
}
