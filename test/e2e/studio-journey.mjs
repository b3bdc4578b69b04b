// The studio's building steps, driven through Flowise's own pages: a chatflow built on the canvas
// (ChatOpenAI + Buffer Memory + Conversation Chain, its model the stand-in), saved, test-chatted,
// changed and saved again; an agentflow (Start → LLM) built and run from its chat; an API key made
// on its page and used. Each step checks what the page showed AND what the API stored or the
// stand-in received.
import { addNode, chat, connect, makeRoom, pick, saveNew } from "./studio-canvas.mjs";
import { assert, eventually, need } from "./studio-watch.mjs";

const CREDENTIAL = "stand-in key";
const MODEL_KEY = "sk-studio-e2e";
const CHATFLOW = "Studio e2e chatflow";
const AGENTFLOW = "Studio e2e agentflow";
const KEY_NAME = "canvas journey key";

const flowOf = (stored) => JSON.parse(stored.flowData);
const names = (flow) => flow.nodes.map((n) => n.data.name).sort();

/** What the stand-in received for the answer to `question`: one streamed completion, with the credential's key. */
function modelCall(standin, question) {
  const calls = standin.requests.filter((r) => r.path.endsWith("/chat/completions") && r.raw.includes(question));
  assert(calls.length === 1, `the stand-in got ${calls.length} calls for ${JSON.stringify(question)}`);
  const [call] = calls;
  assert(call.headers.authorization === `Bearer ${MODEL_KEY}`, `the model was called with ${call.headers.authorization}`);
  assert(call.body.stream === true, "the model was not asked to stream");
  return call;
}

/** The answer streamed: shorter texts showed before the whole, which is the stand-in's echo. */
function assertStreamed(seen, question) {
  const full = seen.at(-1).trim();
  assert(full.includes(`echo: ${question}`), `answer: ${full}`);
  assert(seen.length > 1 && seen[0].trim().length < full.length, `no partial answer seen (${JSON.stringify(seen)})`);
  return full;
}

export async function buildChatflow({ page, origin, api, standin, j }) {
  await page.goto(`${origin}/canvas`);
  await page.locator(".react-flow__pane").waitFor();
  const model = await addNode(page, "ChatOpenAI", "OpenAI");
  await makeRoom(page);
  const memory = await addNode(page, "Buffer Memory", "Buffer Memory");
  const chain = await addNode(page, "Conversation Chain", "Conversation Chain");
  await connect(page, `${model}-output-`, `${chain}-input-model-`);
  await connect(page, `${memory}-output-`, `${chain}-input-memory-`);

  // The credential, created from the model's own drop-down.
  const modelNode = page.getByTestId(`rf__node-${model}`);
  await pick(page, modelNode.locator("#credential"), "- Create New -");
  const dialog = page.getByRole("dialog");
  await dialog.locator("#credName").fill(CREDENTIAL);
  await dialog.locator("#openAIApiKey").fill(MODEL_KEY);
  await dialog.getByRole("button", { name: "Add" }).click();
  await dialog.waitFor({ state: "hidden" });
  await eventually("the new credential is not selected", async () => (await modelNode.locator("#credential").inputValue()) === CREDENTIAL);

  // Base Path, among the model's additional parameters.
  await modelNode.getByRole("button", { name: "Additional Parameters" }).click();
  await dialog.locator("#basepath").fill(`${standin.url}/v1`);
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });

  j.chatflowId = await saveNew(page, "Save Chatflow", CHATFLOW);
  const stored = await api("GET", `/chatflows/${j.chatflowId}`);
  const flow = flowOf(stored);
  assert(stored.name === CHATFLOW && stored.type === "CHATFLOW", `stored: ${stored.name} (${stored.type})`);
  assert(names(flow).join() === "bufferMemory,chatOpenAI,conversationChain", `nodes: ${names(flow)}`);
  const links = flow.edges.map((e) => `${e.source}>${e.target}`).sort();
  assert(links.join() === [`${model}>${chain}`, `${memory}>${chain}`].sort().join(), `edges: ${links}`);
  const [credential] = (await api("GET", "/credentials")).filter((c) => c.name === CREDENTIAL);
  assert(credential?.credentialName === "openAIApi", `credential: ${JSON.stringify(credential)}`);
  const saved = flow.nodes.find((n) => n.id === model).data;
  assert(saved.credential === credential.id, `the model's credential: ${saved.credential}`);
  assert(saved.inputs.basepath === `${standin.url}/v1`, `the model's base path: ${saved.inputs.basepath}`);
  j.credentialId = credential.id;
  j.model = model;
}

export async function testChatChatflow({ page, api, standin, j }) {
  const id = need(j.chatflowId, "no chatflow was saved");
  const question = "[slow] bright studio socks for every season";
  const seen = await chat(page, question, "every season");
  const full = assertStreamed(seen, question);
  modelCall(standin, question);
  const messages = await api("GET", `/chatmessage/${id}`);
  assert(
    messages.length === 2 && messages[1].content === full && messages.every((m) => m.chatType === "INTERNAL"),
    `stored: ${JSON.stringify(messages.map((m) => [m.role, m.chatType, m.content]))}`,
  );
}

/**
 * The Share Chatbot page (/chatbot/{id}) of the chatflow, made public: the page reads
 * /public-chatflows/{id}, then its chat streams the stand-in's answer (stored as chatType EXTERNAL).
 */
export async function sharedChatbotPage({ page, origin, api, j }) {
  const id = need(j.chatflowId, "no chatflow was saved");
  await api("PUT", `/chatflows/${id}`, { isPublic: true });
  try {
    const read = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/v1/public-chatflows/${id}`);
    await page.goto(`${origin}/chatbot/${id}`);
    assert((await read).status() === 200, `GET /public-chatflows/${id} answered ${(await read).status()}`);
    const input = page.locator("flowise-fullchatbot textarea");
    await input.waitFor({ state: "visible", timeout: 20_000 });
    await page.waitForFunction(() => !document.querySelector("flowise-fullchatbot")?.shadowRoot?.querySelector("textarea")?.disabled);
    const question = "shared page socks";
    await input.fill(question);
    await input.press("Enter");
    const answer = page.locator('[data-testid="host-bubble"]').filter({ hasText: question }).last();
    await answer.waitFor({ timeout: 15_000 });
    const stored = await eventually("the shared page's messages stored", async () => {
      const messages = (await api("GET", `/chatmessage/${id}`)).filter((m) => m.chatType === "EXTERNAL");
      return messages.length === 2 && messages;
    });
    assert(stored[1].content === (await answer.innerText()).trim(), `stored ${JSON.stringify(stored[1].content)}`);
  } finally {
    await api("PUT", `/chatflows/${id}`, { isPublic: false });
  }
}

export async function resaveChatflow({ page, api, j }) {
  const id = need(j.chatflowId, "no chatflow was saved");
  const before = await api("GET", `/chatflows/${id}`);
  const temperature = page.getByTestId(`rf__node-${need(j.model, "no model node")}`).locator("#temperature");
  // As a person does: click into the field (which selects the node), then type. Typing without the
  // click sometimes (2 runs in 7) stored the old value after the page's PUT.
  await temperature.click();
  await temperature.fill("0.3");
  const put = page.waitForResponse((r) => r.request().method() === "PUT" && new URL(r.url()).pathname === `/api/v1/chatflows/${id}`);
  await page.getByRole("button", { name: "Save Chatflow" }).click();
  assert((await put).status() === 200, `the re-save's PUT answered ${(await put).status()}`);
  const after = await api("GET", `/chatflows/${id}`);
  assert(after.updatedDate !== before.updatedDate, "the re-save left updatedDate as it was");
  const flow = flowOf(after);
  const model = flow.nodes.find((n) => n.id === j.model);
  const sent = flowOf(JSON.parse((await put).request().postData())).nodes.find((n) => n.id === j.model);
  assert(
    Number(model?.data.inputs.temperature) === 0.3,
    `temperature stored: ${model?.data.inputs.temperature} (the page showed ${await temperature.inputValue()}, sent ${sent?.data.inputs.temperature})`,
  );
  assert(flow.nodes.length === 3 && flow.edges.length === 2, `after the re-save: ${flow.nodes.length} nodes, ${flow.edges.length} edges`);
  assert(after.name === CHATFLOW && new URL(page.url()).pathname === `/canvas/${id}`, `re-saved as ${after.name} at ${page.url()}`);
  const flows = await api("GET", "/chatflows");
  assert(flows.filter((f) => f.name === CHATFLOW).length === 1, "the re-save made another chatflow");
}

export async function buildAgentflow({ page, origin, api, standin, j }) {
  const credentialId = need(j.credentialId, "no credential was created (chatflow step)");
  await page.goto(`${origin}/v2/agentcanvas`);
  await page.getByTestId("rf__node-startAgentflow_0").waitFor({ timeout: 20_000 });
  const llm = await addNode(page, "LLM", "LLM");
  await connect(page, "startAgentflow_0-output-", llm);

  await page.getByTestId(`rf__node-${llm}`).dblclick();
  const dialog = page.getByRole("dialog");
  await pick(page, dialog.locator("#llmModel"), "OpenAI");
  const parameters = dialog.getByText("OpenAI Parameters");
  await parameters.waitFor();
  if (!(await dialog.locator("#credential").isVisible())) await parameters.click(); // a folded accordion
  await pick(page, dialog.locator("#credential"), CREDENTIAL);
  await dialog.locator("#basepath").fill(`${standin.url}/v1`);
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });

  j.agentflowId = await saveNew(page, "Save Agents", AGENTFLOW);
  const stored = await api("GET", `/chatflows/${j.agentflowId}`);
  const flow = flowOf(stored);
  assert(stored.name === AGENTFLOW && stored.type === "AGENTFLOW", `stored: ${stored.name} (${stored.type})`);
  assert(names(flow).join() === "llmAgentflow,startAgentflow", `nodes: ${names(flow)}`);
  assert(
    flow.edges.length === 1 && flow.edges[0].source === "startAgentflow_0" && flow.edges[0].target === llm,
    `edges: ${JSON.stringify(flow.edges.map((e) => [e.source, e.target]))}`,
  );
  const inputs = flow.nodes.find((n) => n.id === llm).data.inputs;
  const config = inputs.llmModelConfig ?? {};
  assert(inputs.llmModel === "chatOpenAI" && config.basepath === `${standin.url}/v1`, `LLM inputs: ${JSON.stringify(inputs)}`);
  assert([config.credential, config.FLOWISE_CREDENTIAL_ID].includes(credentialId), `LLM credential: ${JSON.stringify(config)}`);
}

export async function runAgentflow({ page, api, standin, j }) {
  const id = need(j.agentflowId, "no agentflow was saved");
  const question = "[slow] an agent answer for every season";
  const seen = await chat(page, question, "every season");
  assertStreamed(seen, question);
  modelCall(standin, question);
  const executions = await api("GET", `/executions?agentflowId=${id}`);
  assert(
    executions.total === 1 && executions.data[0].state === "FINISHED",
    `executions: ${JSON.stringify(executions.data.map((e) => e.state))}`,
  );
}

/** An API key made on the API Keys page with one permission, its value read from the page, then used. */
export async function createAndUseApiKey({ page, origin, api, j }) {
  const chatflowId = need(j.chatflowId, "no chatflow was saved");
  await page.goto(`${origin}/apikey`);
  await page.getByRole("button", { name: "Create Key" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByPlaceholder("My New Key").fill(KEY_NAME);
  await dialog.getByRole("checkbox", { name: "View" }).first().check(); // Chatflows: View
  await dialog.getByRole("button", { name: "Add" }).click();
  await dialog.waitFor({ state: "hidden" });
  const row = page.getByRole("row").filter({ hasText: KEY_NAME });
  await row.getByTitle("Show").click();
  const key = (await row.getByRole("cell").nth(1).innerText()).trim();
  assert(/^[\w-]{20,}$/.test(key), `the page shows the key as ${JSON.stringify(key)}`);

  const bearer = (path) => fetch(`${origin}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
  const list = await bearer("/chatflows");
  const flows = list.ok ? await list.json() : [];
  assert(list.status === 200 && flows.some((f) => f.id === chatflowId), `GET /chatflows with the key: ${list.status}`);
  const denied = await bearer("/credentials");
  assert(denied.status === 403, `GET /credentials with a key that may only view chatflows: ${denied.status}`);
  const anonymous = await fetch(`${origin}/api/v1/chatflows`);
  assert(anonymous.status === 401, `GET /chatflows with no key: ${anonymous.status}`);
  const stored = (await api("GET", "/apikey")).find((k) => k.keyName === KEY_NAME);
  assert(stored?.permissions?.join() === "chatflows:view", `stored key: ${JSON.stringify(stored)}`);
}
