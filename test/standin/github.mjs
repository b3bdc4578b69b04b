// GitHub REST API stand-in: every repository holds the same small tree (any owner/name), except
//   …/private   answers 404 unless sent `Authorization: Bearer ghp-stand-in-token` (as GitHub hides private repos)
//   …/down      answers 500 always;  …/flaky-*  answers 500 to its first two tree requests, then as usual
//   …/huge-*    stands for a repository over GitHub's recursive-listing limit (100,000 entries or 7 MB):
//               its recursive listing is cut short with `truncated: true`; folder by folder it is whole
//   GET /repos/O/R/git/trees/REF?recursive=1   → {sha, tree: [{path, type, sha, size}], truncated}: every path
//   GET /repos/O/R/git/trees/REF               → the entries of that one tree, paths relative to it; REF the
//                                                branch or a tree's sha (a `tree` entry's `sha`)
//   GET /repos/O/R/contents/PATH?ref=BRANCH (raw)    → the file's bytes
// ("recursive" set to any value lists recursively, as GitHub documents.) Only branch "main" exists.
// GET /requests lists what was received.
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
const SUBMODULES = ["vendor/lib"];
const flaky = new Map();
/** A folder's tree sha ("" is the root). */
const treeSha = (folder) => `tree-${Buffer.from(folder).toString("hex")}`;
const folderOf = (sha) => (sha === "main" ? "" : sha.startsWith("tree-") ? Buffer.from(sha.slice(5), "hex").toString() : undefined);

/** Every entry of the repository, recursive-listing style (full paths). */
function allEntries() {
  const folders = new Set();
  for (const p of [...Object.keys(FILES), ...SUBMODULES]) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  return [
    ...[...folders].map((path) => ({ path, mode: "040000", type: "tree", sha: treeSha(path) })),
    ...SUBMODULES.map((path) => ({ path, mode: "160000", type: "commit", sha: "0" })),
    ...Object.keys(FILES).map((path) => ({ path, mode: "100644", type: "blob", sha: "0", size: Buffer.byteLength(FILES[path]) })),
  ].sort((a, b) => a.path.localeCompare(b.path));
}

/** The entries directly in `folder`, their paths relative to it (as a non-recursive listing gives them). */
const entriesOf = (folder) => {
  const prefix = folder ? `${folder}/` : "";
  return allEntries()
    .filter((e) => e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes("/"))
    .map((e) => ({ ...e, path: e.path.slice(prefix.length) }));
};

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
      const folder = folderOf(rest);
      if (folder === undefined) return json(404, { message: "Not Found" });
      if (!url.searchParams.has("recursive")) return json(200, { sha: treeSha(folder), tree: entriesOf(folder), truncated: false });
      const prefix = folder ? `${folder}/` : "";
      const all = allEntries()
        .filter((e) => e.path.startsWith(prefix))
        .map((e) => ({ ...e, path: e.path.slice(prefix.length) }));
      if (repo.startsWith("huge-")) return json(200, { sha: treeSha(folder), tree: all.slice(0, 2), truncated: true });
      return json(200, { sha: treeSha(folder), tree: all, truncated: false });
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
