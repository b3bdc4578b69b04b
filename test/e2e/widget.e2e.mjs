// End to end with Flowise's real chat widget: Debian's Chromium, driven by playwright-core, loads
// flowise-embed's web.js from a page on another origin and chats with a public chatflow served
// by `npm run dev` (local D1/R2), its model the OpenAI-compatible stand-in. Ends with the
// `N passed, N failed` line; exit code 1 on any failure.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startStandin } from "../standin/server.mjs";
import { checkDocsOffline } from "./docs.e2e.mjs";
import { STUDIO_VARS, checkStudio } from "./studio.e2e.mjs";
import { root, startEdgeflow, startPageServer, widgetPage } from "./servers.mjs";
import { VOICE_ARGS, widgetVoice } from "./studio-voice.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// Flags for a closed network: without the background-networking ones Chromium keeps dialling out.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  ...VOICE_ARGS,
];

const results = [];
async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`  ✓ ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    results.push({ name, ok: false });
    console.log(
      `  ✗ ${name}\n    ${String(err?.stack ?? err)
        .split("\n")
        .slice(0, 6)
        .join("\n    ")}`,
    );
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * The texts the last bubble containing `marker` showed, read every 50 ms until it contains `done`
 * (reading once right after the first token raced the stream on a busy machine).
 */
async function streamedTexts(bubbles, marker, done) {
  const seen = [];
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const text = (await bubbles.allInnerTexts()).filter((t) => t.includes(marker)).at(-1);
    if (text !== undefined && text !== seen.at(-1)) seen.push(text);
    if (text?.includes(done)) return seen;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the answer never showed ${JSON.stringify(done)} (seen ${JSON.stringify(seen)})`);
}

if (!existsSync(CHROMIUM)) {
  console.log(`Chromium not found at ${CHROMIUM} (install Debian's chromium, or set CHROMIUM_PATH)`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}

const standin = await startStandin();
const edgeflow = await startEdgeflow({ vars: STUDIO_VARS });
const apiHost = edgeflow.url.replace(/\/api\/v1$/, "");
const headers = { Authorization: `Bearer ${edgeflow.adminKey}`, "content-type": "application/json" };
async function api(method, path, body) {
  const res = await fetch(edgeflow.url + path, { method, headers, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// A public llm-chain chatflow (the marketplace template) with feedback and lead capture switched on.
const credential = await api("POST", "/credentials", {
  name: "stand-in",
  credentialName: "openAIApi",
  plainDataObj: { openAIApiKey: "sk-e2e" },
});
const template = JSON.parse(readFileSync(join(root, "test/engine/fixtures/llm-chain.json"), "utf8"));
for (const node of template.nodes) {
  if (node.data.category === "Chat Models") {
    node.data.inputs.basepath = `${standin.url}/v1`;
    node.data.credential = credential.id;
  }
}
const flowData = JSON.stringify({ nodes: template.nodes, edges: template.edges });
const leads = { status: true, title: "Who are you?", name: true, email: true, phone: false, successMessage: "Thanks!" };
const open = await api("POST", "/chatflows", {
  name: "widget e2e",
  isPublic: true,
  flowData,
  chatbotConfig: JSON.stringify({ chatFeedback: { status: true }, leads }),
});
const guarded = await api("POST", "/chatflows", {
  name: "widget e2e (origins)",
  isPublic: true,
  flowData,
  chatbotConfig: JSON.stringify({
    allowedOrigins: ["https://only-this-site.example"],
    allowedOriginsError: "This chatbot is not available on this site",
  }),
});

// Two public agentflows: Start → LLM, and Start → Human Input → Proceed: Direct Reply / Reject: Direct Reply.
const afNode = (id, label, inputs) => ({
  id,
  type: "agentFlow",
  position: { x: 0, y: 0 },
  data: { id, name: id.replace(/_\d+$/, ""), label, category: "Agent Flows", inputs },
});
const afEdge = (source, target, branch) => ({
  id: `${source}-${target}`,
  source,
  target,
  targetHandle: target,
  type: "agentFlow",
  sourceHandle: branch === undefined ? `${source}-output-${source.replace(/_\d+$/, "")}` : `${source}-output-${branch}`,
});
const startNode = afNode("startAgentflow_0", "Start", { startInputType: "chatInput" });
const llmNode = afNode("llmAgentflow_0", "LLM 0", {
  llmModel: "chatOpenAI",
  llmMessages: [],
  llmEnableMemory: true,
  llmModelConfig: { modelName: "gpt-standin", basepath: `${standin.url}/v1`, streaming: true, FLOWISE_CREDENTIAL_ID: credential.id },
});
const agentflow = await api("POST", "/chatflows", {
  name: "widget e2e (agentflow)",
  type: "AGENTFLOW",
  isPublic: true,
  flowData: JSON.stringify({ nodes: [startNode, llmNode], edges: [afEdge("startAgentflow_0", "llmAgentflow_0")] }),
});
const approval = await api("POST", "/chatflows", {
  name: "widget e2e (human input)",
  type: "AGENTFLOW",
  isPublic: true,
  flowData: JSON.stringify({
    nodes: [
      startNode,
      afNode("humanInputAgentflow_0", "Human Input 0", {
        humanInputDescriptionType: "fixed",
        humanInputDescription: "Ship the order?",
        humanInputEnableFeedback: false,
      }),
      afNode("directReplyAgentflow_0", "Shipped", { directReplyMessage: "The order is on its way." }),
      afNode("directReplyAgentflow_1", "Held", { directReplyMessage: "The order is on hold." }),
    ],
    edges: [
      afEdge("startAgentflow_0", "humanInputAgentflow_0"),
      afEdge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
      afEdge("humanInputAgentflow_0", "directReplyAgentflow_1", 1),
    ],
  }),
});
// Start in form mode → Direct Reply: the widget finds the form in /public-chatbotConfig's flowData.
const ordering = await api("POST", "/chatflows", {
  name: "widget e2e (form)",
  type: "AGENTFLOW",
  isPublic: true,
  flowData: JSON.stringify({
    nodes: [
      afNode("startAgentflow_0", "Start", {
        startInputType: "formInput",
        formTitle: "Order form",
        formDescription: "What shall we send?",
        formInputTypes: [{ type: "string", label: "Item", name: "item" }],
      }),
      afNode("directReplyAgentflow_0", "Reply", { directReplyMessage: "Ordered {{ $form.item }}." }),
    ],
    edges: [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
  }),
});
for (const flow of [agentflow, approval, ordering]) assert(!flow.warning, `agentflow saved with a warning: ${flow.warning}`);

const pages = await startPageServer({
  "/": widgetPage(open.id, apiHost),
  "/guarded": widgetPage(guarded.id, apiHost),
  "/agentflow": widgetPage(agentflow.id, apiHost),
  "/approval": widgetPage(approval.id, apiHost),
  "/form": widgetPage(ordering.id, apiHost),
});
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
console.log(`widget e2e: page ${pages.origin}, API ${apiHost}, Chromium ${browser.version()}`);

try {
  const page = await browser.newPage();
  const botBubbles = page.locator('[data-testid="host-bubble"]');
  await page.goto(`${pages.origin}/`);

  await step("the lead form is shown and its lead is stored", async () => {
    await page.locator('input[name="name"]').fill("Ada Lovelace");
    await page.locator('input[name="email"]').fill("ada@example.com");
    await page.locator('form button[type="submit"]').click();
    await page.getByText("Thanks!").waitFor({ timeout: 10_000 });
    const stored = await api("GET", `/leads/${open.id}`);
    assert(
      stored.length === 1 && stored[0].name === "Ada Lovelace" && stored[0].email === "ada@example.com",
      `leads: ${JSON.stringify(stored)}`,
    );
  });

  let finalText = "";
  await step("a question gets its answer streamed in, token by token", async () => {
    const input = page.locator("textarea");
    await input.waitFor({ state: "visible" });
    await page.waitForFunction(
      () => !document.querySelector("flowise-fullchatbot")?.shadowRoot?.querySelector("textarea")?.disabled,
      null,
      { timeout: 10_000 },
    );
    await input.fill("[slow] bright socks");
    await input.press("Enter");
    const answer = botBubbles.filter({ hasText: "company that makes" }).last();
    await answer.waitFor({ timeout: 15_000 });
    // The stand-in sends a token every 300 ms: a partial answer must be visible before the whole.
    const partial = await answer.innerText();
    await botBubbles.filter({ hasText: "bright socks?" }).last().waitFor({ timeout: 15_000 });
    finalText = await answer.innerText();
    assert(finalText.includes("echo: What is a good name for a company that makes [slow] bright socks?"), `answer: ${finalText}`);
    assert(partial.length < finalText.length, `no partial answer seen (partial ${JSON.stringify(partial)})`);
    const messages = await api("GET", `/chatmessage/${open.id}`);
    assert(messages.length === 2 && messages[1].content === finalText.trim(), `stored: ${JSON.stringify(messages.map((m) => m.content))}`);
  });

  await step("thumbs-up on the answer stores the feedback", async () => {
    const thumbsUp = page.locator('button[title="Thumbs Up"]').last();
    await thumbsUp.waitFor({ timeout: 10_000 });
    await thumbsUp.click();
    let feedback = [];
    for (let i = 0; i < 40 && !feedback.length; i++) {
      await new Promise((r) => setTimeout(r, 250));
      feedback = await api("GET", `/feedback/${open.id}`);
    }
    const [answerMessage] = (await api("GET", `/chatmessage/${open.id}`)).filter((m) => m.role === "apiMessage");
    assert(
      feedback.length === 1 && feedback[0].rating === "THUMBS_UP" && feedback[0].messageId === answerMessage.id,
      `feedback: ${JSON.stringify(feedback)}`,
    );
  });

  await step("a page whose origin is not allowed sees the allowedOriginsError message", async () => {
    const other = await browser.newPage();
    await other.goto(`${pages.origin}/guarded`);
    const input = other.locator("textarea");
    await input.waitFor({ state: "visible" });
    await input.fill("hello?");
    await input.press("Enter");
    await other
      .locator('[data-testid="host-bubble"]')
      .filter({ hasText: "This chatbot is not available on this site" })
      .waitFor({ timeout: 10_000 });
    const messages = await api("GET", `/chatmessage/${guarded.id}`);
    assert(messages.length === 0, "nothing may be stored for a refused origin");
  });

  await step("an agentflow's answer is streamed in, token by token", async () => {
    const af = await browser.newPage();
    // The widget asks whether the flow streams while it loads and sends streaming: false until it
    // knows: a question typed before that answer arrives gets a JSON answer (whole, no partials).
    const streamingKnown = af.waitForResponse((r) => r.url().includes("/chatflows-streaming/"), { timeout: 15_000 });
    await af.goto(`${pages.origin}/agentflow`);
    const input = af.locator("textarea");
    await input.waitFor({ state: "visible" });
    assert((await (await streamingKnown).json()).isStreaming === true, "the widget was told the agentflow does not stream");
    await input.fill("[slow] agent socks in many bright colours for every season");
    await input.press("Enter");
    const seen = await streamedTexts(af.locator('[data-testid="host-bubble"]'), "echo:", "every season");
    const full = seen.at(-1).trim();
    assert(full.includes("echo: [slow] agent socks in many bright colours for every season"), `answer: ${full}`);
    // The stand-in sends a token every 300 ms: shorter texts must have shown before the whole.
    assert(seen.length > 1 && seen[0].trim().length < full.length, `no partial answer seen (seen ${JSON.stringify(seen)})`);
    const executions = await api("GET", `/executions?agentflowId=${agentflow.id}`);
    assert(
      executions.total === 1 && executions.data[0].state === "FINISHED",
      `executions: ${JSON.stringify(executions.data.map((e) => e.state))}`,
    );
  });

  await step("a paused agentflow shows Proceed/Reject; Proceed resumes it and the answer appears", async () => {
    const af = await browser.newPage();
    await af.goto(`${pages.origin}/approval`);
    const input = af.locator("textarea");
    await input.waitFor({ state: "visible" });
    await input.fill("order 42 is packed");
    await input.press("Enter");
    const proceed = af.getByRole("button", { name: "Proceed" });
    await proceed.waitFor({ timeout: 15_000 });
    await af.getByRole("button", { name: "Reject" }).waitFor({ timeout: 1_000 });
    const paused = await api("GET", `/executions?agentflowId=${approval.id}`);
    assert(paused.data[0]?.state === "STOPPED", `execution before Proceed: ${paused.data[0]?.state}`);
    await proceed.click();
    await af.locator('[data-testid="host-bubble"]').filter({ hasText: "The order is on its way." }).waitFor({ timeout: 15_000 });
    const done = await api("GET", `/executions?agentflowId=${approval.id}`);
    assert(
      done.total === 1 && done.data[0].state === "FINISHED",
      `execution after Proceed: ${JSON.stringify(done.data.map((e) => e.state))}`,
    );
    const messages = await api("GET", `/chatmessage/${approval.id}`);
    assert(
      messages.length === 4 && messages[3].content === "The order is on its way." && !messages[1].action,
      `stored: ${JSON.stringify(messages.map((m) => [m.content, !!m.action]))}`,
    );
  });

  await step("an agentflow whose Start takes a form shows that form; submitting it runs the flow", async () => {
    const af = await browser.newPage();
    await af.goto(`${pages.origin}/form`);
    await af.getByText("Order form").waitFor({ timeout: 15_000 });
    await af.locator("input").first().fill("blue socks");
    await af.getByRole("button", { name: "Submit" }).click();
    await af.locator('[data-testid="host-bubble"]').filter({ hasText: "Ordered blue socks." }).waitFor({ timeout: 15_000 });
    const messages = await api("GET", `/chatmessage/${ordering.id}`);
    assert(messages.at(-1)?.content === "Ordered blue socks.", `stored: ${JSON.stringify(messages.map((m) => m.content))}`);
    await af.close();
  });

  await widgetVoice(browser, edgeflow, standin, step);
  await checkDocsOffline(browser, edgeflow.url, step);
  await checkStudio(browser, edgeflow, standin, step);
} finally {
  await browser.close();
  await pages.close();
  edgeflow.stop();
  await standin.close();
}

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
