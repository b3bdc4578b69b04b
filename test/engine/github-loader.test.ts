// The github document loader against the GitHub REST API stand-in (test/standin/github.mjs, reached
// through GITHUB_API_BASE_URL): the files it loads (recursive, a folder link, ignorePath, binaries and
// submodules left out), the token credential, retries, failures; then Flowise's "Github Docs QnA"
// template saved as exported, upserted and answering through the stand-ins.
import { describe, expect, inject, it } from "vitest";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { workLimits } from "../../src/lib/limits";
import { loadDocuments } from "../../src/providers/loaders/registry";
import { flowDataWarning } from "../../src/services/chatflows";
import githubDocsQna from "./fixtures/github-docs-qna.json";
import {
  type Fixture,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  requestsWith,
  runFlow,
  runtimeWith,
  standinUrl,
} from "./helpers";

const githubUrl = () => inject("githubUrl");
const TOKEN = "ghp-stand-in-token";
const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };

const credentials: Record<string, Record<string, unknown>> = { gh: { accessToken: TOKEN }, bad: { accessToken: "ghp-wrong-token-1234" } };
const load = (config: Record<string, unknown>, limits = workLimits({})) =>
  loadDocuments("github", {
    config: { branch: "main", ...config },
    files: [],
    outbound: {},
    maxBytes: 1 << 20,
    limits,
    getCredential: async (id) => credentials[id] ?? {},
    // The deployment's API URL is under the endpoint rule: loopback only in a local environment.
    services: { GITHUB_API_BASE_URL: githubUrl(), ENVIRONMENT: "test" },
  });
const sources = async (config: Record<string, unknown>) => (await load(config)).map((d) => d.metadata.source).sort();
type Received = { path: string; headers: Record<string, string> };
/** What the stand-in received for `repo`, after the first `skip` requests (other files' calls share the stand-in). */
const received = async (repo: string, skip = 0): Promise<Received[]> =>
  ((await (await fetch(`${githubUrl()}/requests`)).json()) as Received[]).slice(skip).filter((r) => r.path.includes(`/${repo}/`));
const receivedCount = async (): Promise<number> => ((await (await fetch(`${githubUrl()}/requests`)).json()) as Received[]).length;

describe("github loader", () => {
  it("loads every text file of the branch when recursive, with LangChain's metadata; binaries and submodules are left out", async () => {
    const docs = await load({ repoLink: "https://github.com/acme/docs", recursive: true });
    expect(docs.map((d) => d.metadata.source).sort()).toEqual([
      "README.md",
      "docs/guide/faq.md",
      "docs/guide/usage.md",
      "docs/install.md",
      "src/index.ts",
    ]);
    const install = docs.find((d) => d.metadata.source === "docs/install.md")!;
    expect(install.pageContent).toContain("npm install acme-rain");
    expect(install.metadata).toEqual({ source: "docs/install.md", repository: "https://github.com/acme/docs", branch: "main" });
  });

  it("not recursive: the top folder only; a /tree/<branch>/<folder> link: that folder; ignorePath patterns", async () => {
    expect(await sources({ repoLink: "https://github.com/acme/docs" })).toEqual(["README.md"]);
    expect(await sources({ repoLink: "https://github.com/acme/docs/tree/main/docs", recursive: true })).toEqual([
      "docs/guide/faq.md",
      "docs/guide/usage.md",
      "docs/install.md",
    ]);
    expect(await sources({ repoLink: "https://github.com/acme/docs/tree/main/docs" })).toEqual(["docs/install.md"]);
    expect(await sources({ repoLink: "https://github.com/acme/docs", recursive: true, ignorePath: '["*.ts", "docs/guide/"]' })).toEqual([
      "README.md",
      "docs/install.md",
    ]);
    expect(
      await sources({ repoLink: "https://github.com/acme/docs", recursive: true, ignorePath: '["**/*.md", "!docs/guide/faq.md"]' }),
    ).toEqual(["docs/guide/faq.md", "src/index.ts"]);
    expect(
      await sources({
        repoLink: "https://github.com/acme/docs.git",
        recursive: true,
        ignorePath: '["/README.md", "src"]',
        metadata: '{"team":"rain"}',
      }),
    ).toHaveLength(3);
  });

  it("sends the githubApi token as a bearer token (a private repository needs it); without one, a 400 that says so", async () => {
    const before = await receivedCount();
    expect(await sources({ repoLink: "https://github.com/acme/private", credential: "gh" })).toEqual(["README.md"]);
    const calls = await received("private", before);
    expect(calls.length).toBeGreaterThan(0);
    for (const r of calls) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const without = await err(load({ repoLink: "https://github.com/acme/private" }));
    expect(without).toMatchObject({
      status: 400,
      message: 'GitHub: repository acme/private at branch "main" not found (a private repository needs a githubApi credential)',
    });
    const wrong = await err(load({ repoLink: "https://github.com/acme/private", credential: "bad" }));
    expect(wrong.status).toBe(400);
    expect(wrong.message).not.toContain("ghp-wrong-token-1234");
  });

  it("retries a failing GitHub maxRetries times; then 502 naming GitHub; an unknown branch or a bad link is a 400", async () => {
    const flaky = `flaky-${marker()}`;
    expect(await sources({ repoLink: `https://github.com/acme/${flaky}`, maxRetries: "2" })).toEqual(["README.md"]);
    expect((await received(flaky)).filter((r) => r.path.includes("/git/trees/"))).toHaveLength(3);
    const again = `flaky-${marker()}`;
    expect(await err(load({ repoLink: `https://github.com/acme/${again}`, maxRetries: 1 }))).toMatchObject({
      status: 502,
      message: `GitHub answered 502 (repository acme/${again} at branch "main"): Server Error`,
    });
    expect(await err(load({ repoLink: "https://github.com/acme/down", maxRetries: 0 }))).toMatchObject({
      status: 502,
      message: 'GitHub answered 500 (repository acme/down at branch "main"): GitHub is having a bad day',
    });
    expect(await err(load({ repoLink: "https://github.com/acme/docs", branch: "nope" }))).toMatchObject({
      status: 400,
      message: 'GitHub: repository acme/docs at branch "nope" not found (a private repository needs a githubApi credential)',
    });
    expect((await err(load({ repoLink: "https://github.com/acme" }))).status).toBe(400);
    expect((await err(load({ repoLink: "https://github.com/acme/docs", ignorePath: "*.md" }))).message).toContain(
      "ignorePath must be a JSON array",
    );
    expect((await err(load({ repoLink: "https://github.com/acme/docs", maxConcurrency: "0" }))).status).toBe(400);
  });

  it("a repository over the chunk or text limit is refused (413) from its listing, before any file is fetched", async () => {
    const repo = `big-${marker()}`;
    const e = await err(load({ repoLink: `https://github.com/acme/${repo}`, recursive: true }, { ...workLimits({}), chunks: 3 }));
    expect(e).toMatchObject({ status: 413, message: `Repository acme/${repo}: more than 3 chunks (MAX_CHUNKS_PER_UPSERT); it has 5` });
    expect((await received(repo)).filter((r) => r.path.includes("/contents/"))).toHaveLength(0);
  });

  it("a listing GitHub truncated (over 100,000 entries or 7 MB) is read folder by folder, not loaded in part", async () => {
    const repo = `huge-${marker()}`;
    expect(await sources({ repoLink: `https://github.com/acme/${repo}`, recursive: true })).toEqual([
      "README.md",
      "docs/guide/faq.md",
      "docs/guide/usage.md",
      "docs/install.md",
      "src/index.ts",
    ]);
    // A folder link, not recursive: the trees on the way to it and its own, nothing below.
    expect(await sources({ repoLink: `https://github.com/acme/${repo}/tree/main/docs` })).toEqual(["docs/install.md"]);
    const trees = (await received(repo)).filter((r) => r.path.includes("/git/trees/")).map((r) => r.path.replace(/.*\/git\/trees\//, ""));
    expect(trees.filter((t) => t.includes("recursive"))).toEqual(["main?recursive=1", "main?recursive=1"]);
    expect(trees.filter((t) => !t.includes("recursive"))).toHaveLength(5 + 2);
  });

  it("githubInstanceApi (the flow's own API URL) goes through the outbound policy", async () => {
    const e = await err(load({ repoLink: "https://github.com/acme/docs", githubInstanceApi: githubUrl() }));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/loopback/);
  });
});

describe("Github Docs QnA template", () => {
  const flowData = async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-test-openai" });
    return flowDataOf(githubDocsQna as unknown as Fixture, (n) => {
      pointAtStandin(n.get("chatOpenAI_0")!, cred);
      const emb = n.get("openAIEmbeddings_0")!;
      emb.data.inputs = { ...emb.data.inputs, basepath: `${standinUrl()}/v1` };
      emb.data.credential = cred;
    });
  };

  it("saves without a warning", () => {
    expect(flowDataWarning(flowDataOf(githubDocsQna as unknown as Fixture))).toBeUndefined();
  });

  it("upserts the repository's markdown through GitHub's API, then answers from it with sources", async () => {
    const data = await flowData();
    const runtime = runtimeWith({ GITHUB_API_BASE_URL: githubUrl() });
    const chatflowid = crypto.randomUUID();
    const { graph, plan } = planFlowUpsert(data);
    const counts = await runUpsert(graph, plan, makeCtx("", { chatflowid, runtime }));
    expect(counts.numAdded).toBe(5);
    expect((await received("FlowiseDocs")).some((r) => r.path === "/repos/FlowiseAI/FlowiseDocs/git/trees/main?recursive=1")).toBe(true);

    const m = marker();
    const result = await runFlow(data, makeCtx(`How do I install Acme? ${m}`, { chatflowid, runtime }));
    expect(result.sourceDocuments?.[0]).toMatchObject({
      metadata: { source: "docs/install.md", repository: "https://github.com/FlowiseAI/FlowiseDocs", branch: "main" },
    });
    const chat = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
    expect(chat.at(-1)?.body.messages[0].content).toContain("npm install acme-rain");
  });
});
