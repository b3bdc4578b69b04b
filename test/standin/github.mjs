// GitHub REST API stand-in: every repository holds the same small tree (any owner/name), except
//   …/private   answers 404 unless sent `Authorization: Bearer ghp-stand-in-token` (as GitHub hides private repos)
//   …/down      answers 500 always;  …/flaky-*  answers 500 to its first two tree requests, then as usual
//   GET /repos/O/R/git/trees/BRANCH?recursive=1      → {sha, tree: [{path, type, size}], truncated}
//   GET /repos/O/R/contents/PATH?ref=BRANCH (raw)    → the file's bytes
// Only branch "main" exists. GET /requests lists what was received.
import { serveStandin } from "./base.mjs";

export const GITHUB_TOKEN = "ghp-stand-in-token";
const FILES = {
  "README.md": "# Acme docs\n\nAcme is a tool that turns rain into electricity. Start with docs/install.md.\n",
  "docs/install.md": "# Install\n\nInstall Acme with `npm install acme-rain`. It needs Node 20 and a rain sensor.\n",
  "docs/guide/usage.md": "# Usage\n\nRun `acme collect --bucket 3` to collect rain into three buckets every hour.\n",
  "docs/guide/faq.md": "# FAQ\n\nDoes Acme work in the desert? Only during the monsoon season.\n",
  "docs/logo.png": "\u0089PNG binary",
  "src/index.ts": "export const collect = (buckets: number) => buckets * 42;\n",
};
const flaky = new Map();

const treeOf = () =>
  [
    { path: "README.md", type: "blob" },
    { path: "docs", type: "tree" },
    { path: "docs/guide", type: "tree" },
    { path: "vendor/lib", type: "commit" },
    ...Object.keys(FILES)
      .filter((p) => p !== "README.md")
      .map((path) => ({ path, type: "blob" })),
  ].map((e) => (e.type === "blob" ? { ...e, mode: "100644", sha: "0", size: Buffer.byteLength(FILES[e.path]) } : { ...e, sha: "0" }));

export function startGithubStandin() {
  return serveStandin(async ({ req, res, url, json }) => {
    const m = /^\/repos\/([^/]+)\/([^/]+)\/(git\/trees|contents)\/(.+)$/.exec(url.pathname);
    if (!m || req.method !== "GET") return json(404, { message: "Not Found" });
    const [, , repo, kind, rest] = m.map((s) => (s ? decodeURIComponent(s) : s));
    if (repo === "private" && req.headers.authorization !== `Bearer ${GITHUB_TOKEN}`) return json(404, { message: "Not Found" });
    if (repo === "down") return json(500, { message: "GitHub is having a bad day" });
    if (kind === "git/trees") {
      if (repo.startsWith("flaky-")) {
        const n = (flaky.get(repo) ?? 0) + 1;
        flaky.set(repo, n);
        if (n <= 2) return json(502, { message: "Server Error" });
      }
      if (rest !== "main") return json(404, { message: "Not Found" });
      return json(200, { sha: "abc", tree: treeOf(), truncated: false });
    }
    if ((url.searchParams.get("ref") ?? "main") !== "main") return json(404, { message: "No commit found for the ref" });
    const content = FILES[rest];
    if (content === undefined) return json(404, { message: "Not Found" });
    if (!(req.headers.accept ?? "").includes("raw"))
      return json(200, { type: "file", path: rest, encoding: "base64", content: Buffer.from(content).toString("base64") });
    res.writeHead(200, { "content-type": "application/vnd.github.raw" });
    res.end(content);
  });
}
