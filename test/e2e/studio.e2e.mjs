// The studio (Flowise's web UI at /) against the running worker: which paths the asset layer
// answers and which reach the worker (wrangler.toml's run_worker_first, which the Workers test pool
// cannot show), then one person's journey in Chromium on a fresh state — set up the first account,
// sign out and in, open each page, build, save, test-chat and re-save a chatflow, build and run an
// agentflow, make and use an API key, sign out — with every request to another host refused and
// recorded, and every API refusal failing the step that caused it.
import { studioJourney } from "./studio-journey.e2e.mjs";
import {
  cookieCountsOnlyFromTheStudio,
  setUpFirstAccount,
  signInOnTheSignInPage,
  signOutFromTheMenu,
  wrongPasswordsPauseSignIn,
} from "./studio-account.mjs";
import {
  buildAgentflow,
  buildChatflow,
  createAndUseApiKey,
  resaveChatflow,
  runAgentflow,
  sharedChatbotPage,
  testChatChatflow,
} from "./studio-journey.mjs";
import { mcpServerOnAgentCanvas, mcpServerOnToolsPage } from "./studio-mcp.mjs";
import { oauth2Authenticated } from "./studio-oauth2.mjs";
import { studioVoice } from "./studio-voice.mjs";
import { webhookListenerOnCanvas } from "./studio-webhook.mjs";
import { adminApi, assert, watchedContext, watchedStep } from "./studio-watch.mjs";

/** The worker's vars for the studio's steps: the loopback MCP stand-in is a server the Tools page may add. */
export const STUDIO_VARS = { OUTBOUND_ALLOW: "127.0.0.1" };

// API calls the UI makes that are not there yet: reported, not failed, until they are built;
// anything else answering 4xx/5xx fails the step. Every call the pages make is built now.
const PENDING = [];

// Each page of the open-source UI and the API call that shows it has loaded (null: none; a pause).
// The walk starts on /chatflows, and comes back to it last.
const PAGES = [
  ["/agentflows", "/api/v1/chatflows"],
  ["/executions", "/api/v1/executions"],
  ["/assistants", null],
  ["/marketplaces", "/api/v1/marketplaces/templates"],
  ["/tools", "/api/v1/tools"],
  ["/credentials", "/api/v1/credentials"],
  ["/variables", "/api/v1/variables"],
  ["/apikey", "/api/v1/apikey"],
  ["/document-stores", "/api/v1/document-store/store"],
  ["/canvas", "/api/v1/nodes"],
  ["/v2/agentcanvas", "/api/v1/nodes"],
  ["/account", "/api/v1/user"],
  ["/chatflows", "/api/v1/chatflows"],
];

async function routing(origin) {
  const index = await fetch(`${origin}/`);
  const html = await index.text();
  assert(index.status === 200 && html.includes('<div id="root">'), `/ is not the studio's index.html (${index.status})`);
  const csp = index.headers.get("content-security-policy") ?? "";
  assert(csp.includes("default-src 'self'") && csp.includes("connect-src 'self'"), `/ has no origin-only CSP: ${csp}`);
  assert(index.headers.get("cache-control") === "no-cache", `/ is cached: ${index.headers.get("cache-control")}`);
  const route = await fetch(`${origin}/canvas/3f1c2a8e`);
  assert(route.status === 200 && (await route.text()) === html, "/canvas/:id does not load the app");
  const bundle = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
  const asset = await fetch(`${origin}${bundle}`);
  await asset.arrayBuffer();
  assert(asset.headers.get("cache-control") === "public, max-age=31536000, immutable", `${bundle}: ${asset.headers.get("cache-control")}`);
  assert((await (await fetch(`${origin}/api/v1/ping`)).text()) === "pong", "/api/v1/ping is not the worker's");
  const unknown = await fetch(`${origin}/api/v1/no-such-route`);
  assert(unknown.status === 404 && (await unknown.json()).statusCode === 404, "an unknown /api/v1 path is not the worker's JSON 404");
  const own = await fetch(`${origin}/_edgeflow/tiktoken/gpt2.json`);
  assert(own.status === 404 && (await own.json()).statusCode === 404, "the worker's own files are served at a URL of their own");
}

/**
 * Adds the studio's steps to the browser test (widget.e2e.mjs, or studio.run.mjs alone): the asset
 * layer, then one person's whole journey in one browser, each part a step of its own. `edgeflow` is
 * {url, adminKey} (servers.mjs); `standin` the OpenAI-compatible stand-in (test/standin/server.mjs).
 */
export async function checkStudio(browser, edgeflow, standin, step) {
  const origin = new URL(edgeflow.url).origin;
  await step("the studio: /, client routes and hashed files from the asset layer (CSP, caching); /api/* is the worker", () =>
    routing(origin),
  );

  const { context, page, seen } = await watchedContext(browser, origin, PENDING);
  const s = { page, context, origin, standin, api: adminApi(edgeflow.url, edgeflow.adminKey), j: {} };
  const watched = watchedStep(step, seen, page);
  const t0 = Date.now();
  try {
    await watched("studio: the first account on the setup page; the session cookie HttpOnly, SameSite, Path=/", () => setUpFirstAccount(s));
    await step("studio: the cookie counts only with x-request-from: internal (401 without), and not for another origin's write", () =>
      cookieCountsOnlyFromTheStudio(s),
    );
    await watched("studio: signing out from the menu; the old cookie is refused (401)", () => signOutFromTheMenu(s));
    await watched("studio: signing in on the sign-in page", () => signInOnTheSignInPage(s));
    await watched("studio: every page opens", () => everyPage(s));
    await watched("studio: ChatOpenAI + Buffer Memory + Conversation Chain built on the canvas and saved (3 nodes, 2 edges)", () =>
      buildChatflow(s),
    );
    await watched("studio: the test chat streams the stand-in's answer (chatType INTERNAL)", () => testChatChatflow(s));
    await watched("studio: a change on the canvas saved again, same chatflow", () => resaveChatflow(s));
    await watched("studio: the chatflow's Share Chatbot page (/chatbot/{id}), made public, chats (chatType EXTERNAL)", () =>
      sharedChatbotPage(s),
    );
    await watched("studio: Start → LLM built on the agent canvas and saved", () => buildAgentflow(s));
    await watched("studio: the agentflow's chat streams the answer; its execution FINISHED", () => runAgentflow(s));
    await watched("studio: an API key made on its page, read from it, and used (200; 403 beyond its permission)", () =>
      createAndUseApiKey(s),
    );
    await watched(
      "studio: an MCP server added on the Tools page and connected (4 tools); renamed with its masked URL, still connected",
      () => mcpServerOnToolsPage(s),
    );
    await watched("studio: an Agent's tool on the agent canvas set to that MCP server and its echo action, saved with the flow", () =>
      mcpServerOnAgentCanvas(s),
    );
    await watched("studio: a webhook agentflow's listener panel on the canvas shows a call's run COMPLETED with its answer", () =>
      webhookListenerOnCanvas(s),
    );
    // The pages' own journey: the credentials dialog, an API key revealed and used, a variable, a
    // document store, an assistant, the test chat's history, an agentflow's human input.
    await studioJourney(page, { origin, apiUrl: edgeflow.url, adminKey: edgeflow.adminKey, standinUrl: standin.url }, watched);
    await watched(
      "studio: an OAuth2 credential authenticated through its pop-up (provider's consent, our callback), its tokens stored",
      () => oauth2Authenticated({ ...s, seen }),
    );
    await studioVoice(s, watched); // the test chat's microphone and speaker (studio-voice.mjs)
    await watched("studio: signing out at the end; the old cookie is refused (401)", () => signOutFromTheMenu(s));
    const journeyMs = Date.now() - t0;
    await step("studio: the whole journey asked no other host, got no API refusal and threw no page error", () => {
      if (seen.blocked.length)
        console.log(`    (the CSP blocked ${seen.blocked.length} attempt(s) at other hosts, e.g. ${seen.blocked[0]})`);
      if (seen.pending.size) console.log(`    (not built yet: ${[...seen.pending].join(", ")})`);
      if (seen.upstream.length) console.log(`    (Flowise UI's own audio race, not failed: ${seen.upstream[0]})`);
      console.log(`    (${seen.apiCalls} API calls in ${journeyMs} ms)`);
      assert(!seen.elsewhere.length, `the page asked other hosts: ${[...new Set(seen.elsewhere)].slice(0, 5).join(", ")}`);
      assert(!seen.failing.length, `API calls refused: ${[...new Set(seen.failing)].join(", ")}`);
      assert(!seen.errors.length, `page errors: ${seen.errors.slice(0, 3).join(" | ")}`);
    });
    // Last: it pauses the owner's sign-in for 15 minutes.
    await step("studio: repeated wrong passwords answer 401, then 429 (the right one too) on the API and the sign-in page", () =>
      wrongPasswordsPauseSignIn(s),
    );
  } finally {
    await context.close();
  }
}

/**
 * Each page of the open-source UI, waiting for the API call that shows it has loaded. The app is
 * loaded once and then routed as its own links do (history.pushState): reloading the 5.7 MB bundle
 * for each page made this step take most of a minute on a busy machine.
 */
async function everyPage({ page, origin }) {
  await page.goto(`${origin}/chatflows`);
  await page.getByText("Build single-agent systems").first().waitFor();
  for (const [path, api] of PAGES) {
    const loaded = api ? page.waitForResponse((r) => new URL(r.url()).pathname === api, { timeout: 20_000 }) : null;
    await page.evaluate((to) => {
      history.pushState({}, "", to);
      dispatchEvent(new PopStateEvent("popstate"));
    }, path);
    await (loaded ?? page.waitForTimeout(1500));
    await page.waitForTimeout(300); // the page's other calls
    assert(new URL(page.url()).pathname === path, `${path} sent the page to ${page.url()} (signed out?)`);
  }
}
