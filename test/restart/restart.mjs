// A real restart (issue 28), not a replay: the built worker under `npm start` on a fresh local
// state runs three async runs — an agentflow whose second LLM node streams slowly from the
// stand-in, a chatflow streaming slowly, and an agentflow paused for human input — and its whole
// process group is killed 1.2 s into the slow streams, while the callback receiver is down too.
// Started again on the same state, the runs must end within 90 s: the agentflow woken by reads of
// GET /executions/{id}, the chatflow by the Cron Trigger's sweep (a list read does not wake it),
// the pause TIMEOUT once HUMAN_INPUT_TIMEOUT_MS passed. Each run's first node is not asked again,
// its messages are stored once, its event log repeats no frame, and its callback comes once.
// Prints the time from restart to FINISHED, and ends with `N passed, N failed` (exit 1 on a failure).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../e2e/servers.mjs";
import { benchTokens, startStandin } from "../standin/server.mjs";
import * as h from "./harness.mjs";

const LIMIT_MS = 90_000;
// A short stall and human-input timeout, so the test takes seconds; the callback receiver on loopback allowed.
const vars = (receiver) => ({ DETACHED_STALL_MS: "3000", HUMAN_INPUT_TIMEOUT_MS: "6000", OUTBOUND_ALLOW: new URL(receiver.url).host });
const TOKENS = 30;
const SLOW = `[bench:${TOKENS}:100]`; // 30 tokens, 100 ms apart: 3 s of streaming
const ANSWER = benchTokens(TOKENS).join("");

const results = [];
async function check(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`  ✓ ${name}`);
  } catch (err) {
    results.push(false);
    console.log(
      `  ✗ ${name}\n    ${String(err?.stack ?? err)
        .split("\n")
        .slice(0, 4)
        .join("\n    ")}`,
    );
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}
async function until(what, fn, ms = LIMIT_MS, every = 250) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await h.sleep(every);
  }
}

const standin = await startStandin();
const receiver = await h.callbackReceiver();
const VARS = vars(receiver);
const state = mkdtempSync(join(tmpdir(), "edgeflow-restart-"));
const port = Number(process.env.RESTART_PORT ?? (await freePort()));
let server;
const cleanup = async () => {
  await server?.stop().catch(() => {});
  await standin.close();
  await receiver.down().catch(() => {});
  rmSync(state, { recursive: true, force: true });
};

try {
  const t0 = Date.now();
  server = await h.startServer({ port, state, vars: VARS });
  console.log(`restart: npm start ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const key = h.adminKey();
  const base = () => server.url;
  const api = h.apiOf(base, key);
  const basepath = `${standin.url}/v1`;
  const tag = `restart-${Date.now()}`;
  // The model calls whose last message asks `marker` (a later node's request carries the earlier ones in its history).
  const lastText = (r) => {
    const content = r.body?.messages?.at(-1)?.content;
    return typeof content === "string" ? content : JSON.stringify(content ?? "");
  };
  const asked = (marker) => standin.requests.filter((r) => lastText(r).includes(marker));

  const cred = await api("POST", "/credentials", { name: "stand-in", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-r" } });
  const flows = {
    agentflow: await api("POST", "/chatflows", {
      name: "restart agentflow",
      type: "AGENTFLOW",
      flowData: h.twoLlmAgentflow(cred.id, basepath, `${tag} first`, `${tag} second ${SLOW}`),
    }),
    chatflow: await api("POST", "/chatflows", { name: "restart chatflow", flowData: h.llmChainChatflow(cred.id, basepath) }),
    paused: await api("POST", "/chatflows", { name: "restart pause", type: "AGENTFLOW", flowData: h.humanInputAgentflow() }),
  };
  const callbackUrl = receiver.url;
  const runs = {
    agentflow: await api("POST", `/prediction/${flows.agentflow.id}`, { question: `${tag} agentflow`, async: true, callbackUrl }),
    chatflow: await api("POST", `/prediction/${flows.chatflow.id}`, { question: `${tag} chatflow ${SLOW}`, async: true, callbackUrl }),
    paused: await api("POST", `/prediction/${flows.paused.id}`, { question: `${tag} pause`, async: true }),
  };
  const get = (run) => api("GET", `/executions/${run.executionId}`);

  // Into the slow streams: the agentflow's second node and the chatflow are streaming, the pause waits.
  await until("the slow requests", () => asked(`${tag} second`).length && asked(`${tag} chatflow`).length, 60_000);
  await until("the pause", async () => (await get(runs.paused)).state === "STOPPED", 60_000);
  await h.sleep(1200);
  const sent = [asked(`${tag} second`)[0].stream.sent, asked(`${tag} chatflow`)[0].stream.sent];
  await receiver.down();
  await server.crash();
  console.log(`restart: process group killed with ${sent.join(" and ")} of ${TOKENS} tokens sent`);

  const crashedAt = Date.now();
  server = await h.startServer({ port, state, vars: VARS, build: false });
  const restartedAt = Date.now();
  console.log(`restart: started again on the same state in ${((restartedAt - crashedAt) / 1000).toFixed(1)} s`);
  await receiver.up();

  await check("the cut-off streams were mid-way when the process died", () => {
    for (const n of sent) assert(n > 0 && n < TOKENS, `tokens sent before the kill: ${sent}`);
  });

  let agentflowDone;
  await check("the agentflow, woken by reads of its execution, ends FINISHED with the last node's answer", async () => {
    agentflowDone = await until("the agentflow FINISHED", async () => {
      const row = await get(runs.agentflow);
      assert(row.state === "INPROGRESS" || row.state === "FINISHED", `agentflow ended ${row.state}: ${row.error}`);
      return row.state === "FINISHED" && row;
    });
    console.log(`    restart → FINISHED: ${((Date.now() - restartedAt) / 1000).toFixed(1)} s`);
    assert(agentflowDone.result?.text === ANSWER, `answer: ${JSON.stringify(agentflowDone.result?.text)}`);
  });

  const listed = async (flowId, id) =>
    (await api("GET", `/executions?agentflowId=${flowId}`)).data.find((e) => e.id === id) ?? { state: "missing" };
  let chatflowDone;
  await check("the chatflow, not woken by list reads, is woken by the Cron Trigger's sweep and ends FINISHED", async () => {
    const before = await listed(flows.chatflow.id, runs.chatflow.executionId);
    assert(before.state === "INPROGRESS", `before the sweep: ${before.state}`);
    assert(asked(`${tag} chatflow`).length === 1, "the chatflow ran again before the sweep");
    const tick = await fetch(
      `${base().replace(/\/api\/v1$/, "")}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*&time=${Math.floor(Date.now() / 1000)}`,
    );
    const report = await tick.json();
    assert(report.wake?.woken >= 1, `the sweep woke none: ${JSON.stringify(report)}`);
    chatflowDone = await until("the chatflow FINISHED", async () => {
      const row = await listed(flows.chatflow.id, runs.chatflow.executionId);
      assert(row.state === "INPROGRESS" || row.state === "FINISHED", `chatflow ended ${row.state}: ${row.error}`);
      return row.state === "FINISHED" && row;
    });
    console.log(`    restart → FINISHED: ${((Date.now() - restartedAt) / 1000).toFixed(1)} s`);
    assert(chatflowDone.result?.text === ANSWER, `answer: ${JSON.stringify(chatflowDone.result?.text)}`);
  });

  await check("a node that finished before the restart is not asked again; the cut-off ones run again once", () => {
    assert(asked(`${tag} first`).length === 1, `first node asked ${asked(`${tag} first`).length} times`);
    assert(asked(`${tag} second`).length === 2, `second node asked ${asked(`${tag} second`).length} times`);
    assert(asked(`${tag} chatflow`).length === 2, `chatflow asked ${asked(`${tag} chatflow`).length} times`);
  });

  for (const kind of ["agentflow", "chatflow"]) {
    const run = runs[kind];
    await check(`the ${kind}'s question and answer are stored once`, async () => {
      const messages = await api("GET", `/chatmessage/${flows[kind].id}?chatId=${run.chatId}`);
      assert(messages.map((m) => m.role).join() === "userMessage,apiMessage", `messages: ${messages.map((m) => m.role)}`);
      assert(messages[1].content === ANSWER, `stored answer: ${messages[1].content}`);
    });
    await check(`the ${kind}'s event log shows each frame once`, async () => {
      const frames = await h.framesOf(base, key, run.executionId);
      const seen = new Set();
      for (const f of frames) {
        const k = JSON.stringify([f.event, f.data]);
        assert(!seen.has(k), `repeated frame ${k}`);
        seen.add(k);
      }
      const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
      assert(tokens.join("") === ANSWER, `tokens: ${tokens.join("")}`);
      assert(frames.filter((f) => f.event === "end").length === 1 && frames.at(-1).event === "end", "one end, last");
    });
    await check(`the ${kind}'s callback, whose receiver was down during the restart, comes once`, async () => {
      const mine = () => receiver.received.filter((r) => r.body.executionId === run.executionId);
      await until("the callback", () => mine().length, 20_000);
      await h.sleep(kind === "agentflow" ? 2000 : 0); // time for a second one to come (the chatflow's had it)
      assert(mine().length === 1, `${mine().length} callbacks`);
      assert(mine()[0].body.status === "SUCCESS" && mine()[0].body.data?.text === ANSWER, JSON.stringify(mine()[0].body));
    });
  }

  await check("a pause whose HUMAN_INPUT_TIMEOUT_MS passed across the restart ends TIMEOUT and closes its event log", async () => {
    const row = await until("the pause TIMEOUT", async () => {
      const r = await get(runs.paused);
      return r.state !== "STOPPED" && r;
    });
    assert(row.state === "TIMEOUT" && /HUMAN_INPUT_TIMEOUT_MS/.test(row.error ?? ""), `${row.state}: ${row.error}`);
    const frames = await h.framesOf(base, key, runs.paused.executionId);
    assert(frames.filter((f) => f.event === "end").length === 1, `frames: ${frames.map((f) => f.event)}`);
  });
} catch (err) {
  results.push(false);
  console.log(
    `  ✗ the restart test could not run: ${String(err?.stack ?? err)
      .split("\n")
      .slice(0, 6)
      .join("\n    ")}`,
  );
} finally {
  await cleanup();
}

const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length - passed ? 1 : 0);
