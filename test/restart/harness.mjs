// What the restart test (restart.mjs) runs against: the built worker under `npm start` on a state
// directory of its own, stopped the hard way (its whole process group killed, as a crash or a
// power cut would) and started again on the same state; a callback receiver that can be down and
// up again on the same port; the API with the development admin key; and the flows it runs.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { freePort } from "../e2e/servers.mjs";

export const root = resolve(import.meta.dirname, "../..");
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `npm start` (scripts/start.mjs) on `port` and `state`, in a process group of its own; resolves
 * once /ping answers. `build: false` serves the bundle the first start built (a restart in seconds).
 */
export async function startServer({ port, state, vars, build = true }) {
  const args = ["scripts/start.mjs", "--port", String(port), "--persist-to", state, "--log-level", "error"];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  if (!build) args.push("--no-build");
  const log = [];
  const child = spawn(process.execPath, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  const keep = (d) => (process.env.RESTART_VERBOSE ? process.stderr.write(d) : log.push(String(d)));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const url = `http://127.0.0.1:${port}/api/v1`;
  const kill = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {}
  };
  const exited = new Promise((r) => child.once("exit", r));
  // Never left running: whatever ends this process ends the server's group too.
  const orphan = () => kill("SIGKILL");
  process.once("exit", orphan);
  exited.then(() => process.off("exit", orphan));
  for (let i = 0; i < 480 && child.exitCode === null; i++) {
    try {
      if ((await fetch(`${url}/ping`)).ok) {
        return { url, crash: async () => (kill("SIGKILL"), await exited), stop: async () => (kill("SIGTERM"), await exited) };
      }
    } catch {}
    await sleep(250);
  }
  kill("SIGKILL");
  throw new Error(`the server did not start:\n${log.join("").slice(-3000)}`);
}

export const adminKey = () => /^ADMIN_API_KEY=(.*)$/m.exec(readFileSync(join(root, ".dev.vars"), "utf8"))?.[1]?.trim();

/** The API at `base` (changes when the server restarts on another port: it does not here). */
export function apiOf(base, key) {
  const headers = { Authorization: `Bearer ${key}`, "content-type": "application/json" };
  return async (method, path, body, expected = [200, 201, 202]) => {
    const res = await fetch(base() + path, { method, headers, body: body && JSON.stringify(body) });
    const text = await res.text();
    if (!expected.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
  };
}

/**
 * A callback receiver on a fixed port that can go down and come back: every POST it got, by the
 * executionId in its body. Answers {url, received, up(), down()}.
 */
export async function callbackReceiver() {
  const port = await freePort();
  const received = [];
  let server;
  const up = () =>
    new Promise((r) => {
      server = createServer(async (req, res) => {
        let raw = "";
        for await (const c of req) raw += c;
        received.push({ at: Date.now(), body: JSON.parse(raw) });
        res.writeHead(200).end("ok");
      });
      server.listen(port, "127.0.0.1", r);
    });
  const down = () =>
    new Promise((r) => {
      server.closeAllConnections?.();
      server.close(() => r());
    });
  await up();
  return { url: `http://127.0.0.1:${port}/callback`, received, up, down };
}

/**
 * SSE frames of GET /executions/{id}/events, with their ids: an ended run's replay closes by itself;
 * one that did not end is read for `ms` (its stream stays open for what comes next).
 */
export async function framesOf(base, key, id, ms = 5000) {
  const res = await fetch(`${base()}/executions/${id}/events`, { headers: { Authorization: `Bearer ${key}` } });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), ms);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // cancelled at the deadline: what arrived is the answer
  } finally {
    clearTimeout(deadline);
  }
  return text
    .split("\n\n")
    .filter((b) => b.includes("data:"))
    .map((b) => ({ id: Number(/^id:(\d+)$/m.exec(b)?.[1]), ...JSON.parse(/^data:(.*)$/m.exec(b)[1]) }));
}

const afNode = (id, label, inputs) => ({
  id,
  type: "agentFlow",
  position: { x: 0, y: 0 },
  data: { id, name: id.replace(/_\d+$/, ""), label, category: "Agent Flows", version: 1, inputs, outputs: {}, outputAnchors: [] },
});
const afEdge = (source, target) => ({
  id: `${source}-${target}`,
  source,
  sourceHandle: `${source}-output-${source.replace(/_\d+$/, "")}`,
  target,
  targetHandle: target,
  type: "agentFlow",
  data: {},
});
const llm = (id, credential, basepath, userMessage) =>
  afNode(id, `LLM ${id.slice(-1)}`, {
    llmModel: "chatOpenAI",
    llmModelConfig: { modelName: "gpt-standin", basepath, streaming: true, FLOWISE_CREDENTIAL_ID: credential },
    llmMessages: [],
    llmEnableMemory: true,
    llmUserMessage: userMessage,
  });

/** Start → LLM (asks `first`) → LLM (asks `second`). */
export function twoLlmAgentflow(credential, basepath, first, second) {
  const nodes = [
    afNode("startAgentflow_0", "Start", { startInputType: "chatInput" }),
    llm("llmAgentflow_1", credential, basepath, first),
    llm("llmAgentflow_2", credential, basepath, second),
  ];
  const edges = [afEdge("startAgentflow_0", "llmAgentflow_1"), afEdge("llmAgentflow_1", "llmAgentflow_2")];
  return JSON.stringify({ nodes, edges });
}

/** Start → Human Input (pauses). */
export function humanInputAgentflow() {
  const nodes = [
    afNode("startAgentflow_0", "Start", { startInputType: "chatInput" }),
    afNode("humanInputAgentflow_0", "Human Input 0", {
      humanInputDescriptionType: "fixed",
      humanInputDescription: "Proceed?",
      humanInputEnableFeedback: true,
    }),
  ];
  return JSON.stringify({ nodes, edges: [afEdge("startAgentflow_0", "humanInputAgentflow_0")] });
}

/** The marketplace's LLM chain chatflow, its model the stand-in. */
export function llmChainChatflow(credential, basepath) {
  const template = JSON.parse(readFileSync(join(root, "test/engine/fixtures/llm-chain.json"), "utf8"));
  for (const node of template.nodes) {
    if (node.data.category === "Chat Models") {
      node.data.inputs.basepath = basepath;
      node.data.inputs.streaming = true;
      node.data.credential = credential;
    }
  }
  return JSON.stringify({ nodes: template.nodes, edges: template.edges });
}
