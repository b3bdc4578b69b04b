// One of edgeflow's own templates used as a person does: Marketplaces → the Voice Assistant card →
// Use Template lands on an unsaved canvas; its Workers AI model is pointed at the stand-in (under
// `npm run dev` the worker has no AI binding, so the node goes over Cloudflare's OpenAI-compatible
// REST API: a Cloudflare API credential made from the node's own drop-down, and Base URL under
// Additional Parameters); saved; its test chat streams the stand-in's answer. Then Settings → Save
// As Template posts it as a custom template, which the Marketplaces page lists under My Templates.
import { chat, nodeBoxes, pick, saveNew } from "./studio-canvas.mjs";
import { assert } from "./studio-watch.mjs";

const TEMPLATE = "Voice Assistant with Workers AI";
const FLOW = "e2e from a template";
const CUSTOM = "e2e custom template";
const TOKEN = "cf-e2e-template-token";

const flowOf = (stored) => JSON.parse(stored.flowData);
const nodeNames = (flow) => flow.nodes.map((n) => n.data.name).sort();

/** The /api/v1 answers of 404 or 5xx the page gets while `fn` runs (any step's watcher fails on 4xx too). */
async function noApiFailures(page, fn) {
  const failed = [];
  const onResponse = (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/api/v1/") && (r.status() === 404 || r.status() >= 500)) failed.push(`${r.status()} ${path}`);
  };
  page.on("response", onResponse);
  try {
    await fn();
  } finally {
    page.off("response", onResponse);
  }
  assert(!failed.length, `API calls answered 404/5xx: ${failed.join(", ")}`);
}

/** Marketplaces → the template → Use Template, pointed at the stand-in, saved and test-chatted. */
export function templateUsedSavedAndRun(ctx) {
  return noApiFailures(ctx.page, () => useTemplate(ctx));
}

async function useTemplate(ctx) {
  const { page, origin, api, standinUrl } = ctx;
  await page.goto(`${origin}/marketplaces`);
  await page.getByText(TEMPLATE, { exact: true }).first().click();
  await page.waitForURL(/\/marketplace\/[\w-]+$/);
  await page.getByRole("button", { name: "Use Template" }).click();
  await page.waitForURL(/\/canvas$/);
  const model = page.locator(".react-flow__node").filter({ hasText: "Cloudflare Workers AI" });
  await model.waitFor();
  const boxes = await nodeBoxes(page);
  const over = boxes.flatMap((a, i) =>
    boxes
      .slice(i + 1)
      .filter((b) => a.x < b.right && b.x < a.right && a.y < b.bottom && b.y < a.bottom)
      .map((b) => `${a.id}/${b.id}`),
  );
  assert(boxes.length === 3 && !over.length, `the canvas shows ${boxes.length} nodes, drawn over each other: ${over.join(", ")}`);

  // The credential, made from the model's own drop-down with the studio's Cloudflare API form.
  await pick(page, model.locator("#credential"), "- Create New -");
  const dialog = page.getByRole("dialog");
  await dialog.locator("#credName").fill("e2e cloudflare");
  await dialog.locator("#cloudflareAccountId").fill("e2e-account");
  await dialog.locator("#cloudflareApiToken").fill(TOKEN);
  await dialog.getByRole("button", { name: "Add" }).click();
  await dialog.waitFor({ state: "hidden" });
  await model.getByRole("button", { name: "Additional Parameters" }).click();
  await dialog.locator("#baseUrl").fill(`${standinUrl}/v1`);
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });

  const id = await saveNew(page, "Save Chatflow", FLOW);
  ctx.templateFlowId = id;
  const stored = await api("GET", `/chatflows/${id}`);
  const flow = flowOf(stored);
  const template = (await api("GET", "/marketplaces/templates")).find((t) => t.templateName === TEMPLATE);
  const expected = flowOf(template);
  assert(stored.name === FLOW && stored.type === "CHATFLOW", `stored: ${stored.name} (${stored.type})`);
  assert(nodeNames(flow).join() === nodeNames(expected).join(), `nodes: ${nodeNames(flow)} (the template's: ${nodeNames(expected)})`);
  const links = (f) =>
    f.edges
      .map((e) => `${e.source}>${e.target}`)
      .sort()
      .join();
  assert(links(flow) === links(expected), `edges: ${links(flow)} (the template's: ${links(expected)})`);
  const saved = flow.nodes.find((n) => n.data.name === "chatCloudflareWorkersAI").data;
  const credential = (await api("GET", "/credentials")).find((c) => c.name === "e2e cloudflare");
  assert(credential?.credentialName === "cloudflareApi" && saved.credential === credential.id, `credential: ${saved.credential}`);
  assert(saved.inputs.baseUrl === `${standinUrl}/v1`, `the model's Base URL: ${saved.inputs.baseUrl}`);

  const question = "[slow] a template's answer for the e2e";
  const seen = await chat(page, question, "for the e2e");
  assert(seen.at(-1).includes(`echo: ${question}`) && seen.length > 1, `answer: ${JSON.stringify(seen)}`);
  const calls = await (await fetch(`${standinUrl}/requests?contains=${encodeURIComponent(question)}`)).json();
  assert(calls.length === 1 && calls[0].headers.authorization === `Bearer ${TOKEN}`, `the stand-in got ${JSON.stringify(calls)}`);
}

/** Settings → Save As Template on the saved flow; the custom template is then on Marketplaces → My Templates. */
export function savedAsCustomTemplate(ctx) {
  return noApiFailures(ctx.page, () => saveAsTemplate(ctx));
}

async function saveAsTemplate({ page, origin, api, templateFlowId }) {
  assert(templateFlowId, "cannot run: no flow was saved from a template");
  if (!new URL(page.url()).pathname.endsWith(templateFlowId)) await page.goto(`${origin}/canvas/${templateFlowId}`);
  await page.keyboard.press("Escape"); // the chat pop-up, if open
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByText("Save As Template", { exact: true }).click();
  const dialog = page.getByRole("dialog");
  await dialog.locator("#name").fill(CUSTOM);
  await dialog.locator("#description").fill("Saved from the canvas by the e2e");
  const posted = page.waitForResponse(
    (r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/api/v1/marketplaces/custom",
  );
  await dialog.getByRole("button", { name: "Save Template" }).click();
  assert((await posted).status() === 200, `POST /marketplaces/custom answered ${(await posted).status()}`);
  const custom = (await api("GET", "/marketplaces/custom")).find((t) => t.name === CUSTOM);
  assert(custom, "the custom template is not stored");
  assert(nodeNames(flowOf(custom)).join() === "bufferMemory,chatCloudflareWorkersAI,conversationChain", `nodes: ${custom.flowData}`);
  assert(!custom.flowData.includes('credential":"'), "the custom template carries the credential");

  await page.goto(`${origin}/marketplaces`);
  await page.getByRole("tab", { name: "My Templates" }).click();
  await page.getByText(CUSTOM, { exact: true }).first().waitFor();
}
