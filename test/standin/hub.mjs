// LangChain Hub's HTTP API stand-in (what langchainhub's Client and Flowise call):
//   GET /repos/?limit&tags…&has_commits&sort_field&sort_direction&is_archived → {repos: [...], total}
//       (the repos carrying every `tags` value asked for)
//   GET /commits/OWNER/REPO/COMMIT → {commit_hash, manifest, examples}; 404 {detail} for an unknown prompt;
//       owner "broken" → 500. A prompt without an owner is asked as owner "-".
// GET /requests lists what was received.
import { serveStandin } from "./base.mjs";

const repo = (owner, handle, tags, likes) => ({
  id: `${owner}-${handle}`,
  owner,
  repo_handle: handle,
  full_name: `${owner}/${handle}`,
  description: `The ${handle} prompt`,
  readme: `# ${handle}\n\nA prompt for tests.`,
  tags,
  num_likes: likes,
  num_downloads: likes * 10,
  num_views: likes * 100,
  is_public: true,
  is_archived: false,
  last_commit_hash: "abc123",
  updated_at: "2026-01-01T00:00:00Z",
});

const REPOS = [
  repo("hwchase17", "react", ["StringPromptTemplate", "Agents", "English"], 900),
  repo("rlm", "rag-prompt", ["ChatPromptTemplate", "QA over documents", "openai:gpt-4"], 1200),
  repo("acme", "support-bot", ["ChatPromptTemplate", "Chatbots"], 15),
];

const messageTemplate = (kind, template) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "prompts", "chat", kind],
  kwargs: { prompt: { lc: 1, type: "constructor", id: ["langchain_core", "prompts", "prompt", "PromptTemplate"], kwargs: { template } } },
});

const MANIFESTS = {
  "hwchase17/react": {
    lc: 1,
    type: "constructor",
    id: ["langchain", "prompts", "prompt", "PromptTemplate"],
    kwargs: { input_variables: ["input"], template: "Answer the following questions: {input}", template_format: "f-string" },
  },
  "rlm/rag-prompt": {
    lc: 1,
    type: "constructor",
    id: ["langchain", "prompts", "chat", "ChatPromptTemplate"],
    kwargs: {
      input_variables: ["context", "question"],
      messages: [
        messageTemplate("SystemMessagePromptTemplate", "You answer from the context: {context}"),
        messageTemplate("HumanMessagePromptTemplate", "{question}"),
        messageTemplate("AIMessagePromptTemplate", "Let me look."),
      ],
    },
  },
  "-/solo": { lc: 1, type: "constructor", id: ["langchain", "prompts", "prompt", "PromptTemplate"], kwargs: { template: "Solo {x}" } },
};

export function startHubStandin() {
  return serveStandin(async ({ req, url, json }) => {
    if (req.method !== "GET") return json(405, { detail: "Method not allowed" });
    if (url.pathname === "/repos/" || url.pathname === "/repos") {
      const tags = url.searchParams.getAll("tags");
      const repos = REPOS.filter((r) => tags.every((t) => r.tags.includes(t))).sort((a, b) => b.num_likes - a.num_likes);
      return json(200, { repos, total: repos.length });
    }
    const m = /^\/commits\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (m) {
      const [owner, name, commit] = m.slice(1).map(decodeURIComponent);
      if (owner === "broken") return json(500, { detail: "The hub is having a bad day" });
      const manifest = MANIFESTS[`${owner}/${name}`];
      if (!manifest) return json(404, { detail: "Prompt not found" });
      return json(200, { commit_hash: commit === "latest" ? "abc123" : commit, manifest, examples: [] });
    }
    return json(404, { detail: "Not found" });
  });
}
