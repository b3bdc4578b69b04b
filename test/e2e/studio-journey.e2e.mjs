// The studio's journey in Chromium, signed in (studio.e2e.mjs runs it after opening every page, on
// the same watched page: any /api/v1 call answered 4xx/5xx fails the run): the credentials dialog,
// an API key made and revealed behind the eye icon (and the revealed key works), a variable, a
// document store made, opened and filled through its wizard (studio-wizard.mjs), a custom
// assistant, the test chat on a chatflow (streamed, its history reloaded) and an agentflow's human
// input answered there, then shown on the Executions page.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./servers.mjs";
import { savedAsCustomTemplate, templateUsedSavedAndRun } from "./studio-template.mjs";
import { assistantPreviewAnswers, documentStoreWizard, toolDescriptionGenerated } from "./studio-wizard.mjs";

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** Calls the API with the admin key (to set up flows and check what the pages stored). */
function adminApi(apiUrl, adminKey) {
  return async (method, path, body) => {
    const res = await fetch(apiUrl + path, {
      method,
      headers: { Authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

const listOf = (answer) => (Array.isArray(answer) ? answer : answer.data);
const dialog = (page) => page.locator(".MuiDialog-root");

async function open(page, origin, path, api) {
  const loaded = api ? page.waitForResponse((r) => new URL(r.url()).pathname === api, { timeout: 20_000 }) : null;
  await page.goto(`${origin}${path}`);
  await (loaded ?? page.waitForTimeout(1000));
}

async function credentialsDialog({ page, origin, api }) {
  // The page fetches the credential types once, when it opens, and Add Credential shows the list it
  // has then: a click before they arrive opens an empty dialog for good (seen on a busy machine).
  const listed = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/components-credentials", { timeout: 20_000 });
  await open(page, origin, "/credentials", "/api/v1/credentials");
  await listed;
  await page.getByRole("button", { name: "Add Credential" }).click();
  // Flowise's search matches the type's name (not its label) 500 ms after typing: "OpenAI API" would
  // empty the list then, and a click racing that (the full grid's ~100 icons still loading) lost.
  await dialog(page).getByPlaceholder("Search credential").fill("openAIApi");
  await page.waitForTimeout(800);
  await dialog(page).getByText("OpenAI API", { exact: true }).click();
  const inputs = dialog(page).locator("input");
  await inputs.nth(0).fill("e2e stand-in");
  await inputs.nth(1).fill("sk-e2e-studio");
  await dialog(page).getByRole("button", { name: "Add" }).click();
  await page.getByText("e2e stand-in").first().waitFor({ timeout: 10_000 });
  const stored = (await api("GET", "/credentials")).find((c) => c.name === "e2e stand-in");
  assert(stored?.credentialName === "openAIApi", `credential: ${JSON.stringify(stored)}`);
  return stored.id;
}

async function apiKeyRevealed({ page, origin, apiUrl }) {
  await open(page, origin, "/apikey", "/api/v1/apikey");
  await page.getByRole("button", { name: "Create Key" }).click();
  await dialog(page).locator("input").first().fill("e2e key");
  await dialog(page).getByRole("button", { name: "Select All" }).first().click();
  await dialog(page).getByRole("button", { name: "Add" }).click();
  const row = page.locator("tr", { hasText: "e2e key" });
  await row.waitFor({ timeout: 10_000 });
  assert((await row.innerText()).includes("••••"), `the key is not masked before the eye icon: ${await row.innerText()}`);
  await row.locator("button[title=Show]").click();
  const key = (await row.innerText()).split(/\s+/).find((word) => /^[\w-]{40,}$/.test(word));
  assert(key, `the eye icon revealed no key: ${await row.innerText()}`);
  const res = await fetch(`${apiUrl}/chatflows`, { headers: { Authorization: `Bearer ${key}` } });
  assert(res.status === 200, `the revealed key does not work as a bearer token: ${res.status}`);
}

async function variableMade({ page, origin, api }) {
  await open(page, origin, "/variables", "/api/v1/variables");
  await page.getByRole("button", { name: "Add Variable" }).click();
  const inputs = dialog(page).locator("input");
  await inputs.nth(0).fill("e2e_var");
  await inputs.nth(2).fill("studio value");
  await dialog(page).getByRole("button", { name: "Add" }).click();
  await page.locator("tr", { hasText: "e2e_var" }).waitFor({ timeout: 10_000 });
  const stored = (await api("GET", "/variables")).find((v) => v.name === "e2e_var");
  assert(stored?.value === "studio value", `variable: ${JSON.stringify(stored)}`);
}

async function documentStoreOpened({ page, origin }) {
  await open(page, origin, "/document-stores", "/api/v1/document-store/store");
  await page.getByRole("button", { name: "Add New" }).click();
  await dialog(page).locator("input").first().fill("e2e store");
  await dialog(page).getByRole("button", { name: "Add" }).click();
  await page.getByText("e2e store").first().click({ timeout: 10_000 });
  await page.waitForURL(/\/document-stores\/[0-9a-f-]{36}$/, { timeout: 10_000 });
  // The store's own page (a white page when loaders/whereUsed are not arrays).
  await page.getByText("e2e store").first().waitFor({ timeout: 10_000 });
}

async function customAssistant({ page, origin }) {
  await open(page, origin, "/assistants/custom", "/api/v1/assistants");
  await page.getByRole("button", { name: "Add" }).click();
  await dialog(page).locator("input").first().fill("e2e assistant");
  await dialog(page).getByRole("button", { name: "Add" }).click();
  await page.waitForURL(/\/assistants\/custom\/[0-9a-f-]{36}$/, { timeout: 10_000 });
  await page.getByText("Select Model").first().waitFor({ timeout: 10_000 });
  await page.getByText("e2e assistant").first().waitFor({ timeout: 10_000 });
}

/** Sends a question in the canvas's test chat. */
async function ask(page, question) {
  const box = page.getByPlaceholder("Type your question...");
  await box.waitFor({ timeout: 10_000 });
  await box.fill(question);
  await box.press("Enter");
}

async function testChat({ page, origin, api, standinUrl, credential }) {
  const template = JSON.parse(readFileSync(join(root, "test/engine/fixtures/llm-chain.json"), "utf8"));
  for (const node of template.nodes) {
    if (node.data.category !== "Chat Models") continue;
    node.data.inputs.basepath = `${standinUrl}/v1`;
    node.data.credential = credential;
  }
  const flow = await api("POST", "/chatflows", { name: "e2e test chat", flowData: JSON.stringify(template) });
  await open(page, origin, `/canvas/${flow.id}`, "/api/v1/nodes");
  await page.locator("button[title=Chat]").click();
  await ask(page, "[slow] studio socks");
  const answer = "echo: What is a good name for a company that makes [slow] studio socks?";
  await page.getByText(answer).waitFor({ timeout: 20_000 });
  const stored = await api("GET", `/chatmessage/${flow.id}`);
  assert(
    stored.length === 2 && stored.every((m) => m.chatType === "INTERNAL") && stored[1].content === answer,
    `stored: ${JSON.stringify(stored.map((m) => [m.chatType, m.content]))}`,
  );
  // The chat's history, read again when the page opens the flow anew.
  await open(page, origin, `/canvas/${flow.id}`, "/api/v1/nodes");
  const history = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/v1/internal-chatmessage/${flow.id}`);
  await page.locator("button[title=Chat]").click();
  await history;
  await page.getByText(answer).waitFor({ timeout: 10_000 });
}

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

async function humanInput({ page, origin, api }) {
  const nodes = [
    afNode("startAgentflow_0", "Start", { startInputType: "chatInput" }),
    afNode("humanInputAgentflow_0", "Human Input 0", {
      humanInputDescriptionType: "fixed",
      humanInputDescription: "Ship the e2e order?",
      humanInputEnableFeedback: false,
    }),
    afNode("directReplyAgentflow_0", "Shipped", { directReplyMessage: "The e2e order is on its way." }),
    afNode("directReplyAgentflow_1", "Held", { directReplyMessage: "The e2e order is on hold." }),
  ];
  const edges = [
    afEdge("startAgentflow_0", "humanInputAgentflow_0"),
    afEdge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
    afEdge("humanInputAgentflow_0", "directReplyAgentflow_1", 1),
  ];
  const flow = await api("POST", "/chatflows", { name: "e2e approval", type: "AGENTFLOW", flowData: JSON.stringify({ nodes, edges }) });
  await open(page, origin, `/v2/agentcanvas/${flow.id}`, "/api/v1/nodes");
  await page.locator("button[title=Chat]").click();
  await ask(page, "order 42");
  await page.getByText("Ship the e2e order?").first().waitFor({ timeout: 20_000 });
  await page
    .getByRole("button", { name: /Proceed/i })
    .last()
    .click();
  await page.getByText("The e2e order is on its way.").waitFor({ timeout: 20_000 });

  await open(page, origin, "/executions", "/api/v1/executions");
  await page.locator("tr", { hasText: "e2e approval" }).waitFor({ timeout: 10_000 });
  const executions = listOf(await api("GET", `/executions?agentflowId=${flow.id}`));
  assert(executions.length === 1 && executions[0].state === "FINISHED", `executions: ${JSON.stringify(executions)}`);
}

/** The journey's steps, in order (later ones use what earlier ones made). */
export async function studioJourney(page, { origin, apiUrl, adminKey, standinUrl }, step) {
  const ctx = { page, origin, apiUrl, standinUrl, api: adminApi(apiUrl, adminKey) };
  await step("studio: Add Credential stores an OpenAI credential", async () => {
    ctx.credential = await credentialsDialog(ctx);
  });
  await step("studio: an API key made, revealed behind the eye icon, and the revealed key works", () => apiKeyRevealed(ctx));
  await step("studio: a variable made", () => variableMade(ctx));
  await step("studio: a document store made and opened", () => documentStoreOpened(ctx));
  await step("studio: the document store wizard — a PDF previewed, processed, upserted (local embeddings + record manager), queried", () =>
    documentStoreWizard(ctx),
  );
  await step("studio: the store's tool description written by a chosen model on a custom assistant's page", () =>
    toolDescriptionGenerated(ctx, "e2e stand-in", "e2e store"),
  );
  await step("studio: that assistant saved; its Preview chat (the embedded widget, cookie only) answers", () =>
    assistantPreviewAnswers(ctx),
  );
  await step("studio: a custom assistant made and opened", () => customAssistant(ctx));
  await step("studio: the test chat answers a chatflow (stored as INTERNAL) and reloads its history", () => testChat(ctx));
  await step("studio: a template from Marketplaces used, pointed at the stand-in, saved and run in the test chat", () =>
    templateUsedSavedAndRun(ctx),
  );
  await step("studio: Save As Template from the canvas; the template on Marketplaces → My Templates", () => savedAsCustomTemplate(ctx));
  await step("studio: an agentflow's human input answered in the test chat, the run on the Executions page", () => humanInput(ctx));
}
