// What the studio's dialogs call besides the chat itself: a web loader's "Get links"
// (GET /fetch-links), a JavaScript input's "Execute" (POST /node-custom-function), View Messages'
// "Export" (POST /export-import/chatflow-messages) and the LangChain Hub prompt picker
// (POST /prompts-list, POST /load-prompt). Thin: services/chat-extras/ holds the rules.
import { z } from "@hono/zod-openapi";
import { type Guard, accessFrom, can } from "../auth/guard";
import { onRecords, peekBody } from "../auth/record-guards";
import { ExportBody } from "../schemas/chat-extras";
import { text } from "../schemas/common";
import { allowsAny, isFull } from "../services/callers/access";
import { findConversationOwner } from "../services/chatflows";
import { executeCustomFunction } from "../services/chat-extras/custom-function";
import { listHubPrompts, loadHubPrompt } from "../services/chat-extras/hub";
import { LINK_METHODS, MAX_LINKS, fetchLinks } from "../services/chat-extras/links";
import { exportChatflowMessages } from "../services/chat-extras/messages-export";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["studio"];
const EDIT_FLOWS = ["chatflows:create", "chatflows:update", "agentflows:create", "agentflows:update"];
/** The web loader's "Get links" is on the canvas and in a document store's loader settings. */
const EDIT_LOADERS: Guard = can(...EDIT_FLOWS, "documentStores:create", "documentStores:update", "documentStores:add-loader");

const LinksQuery = z.object({
  url: z.string().min(1).max(2048).openapi({ description: "The start page (webCrawl) or the sitemap (xmlScrape)" }),
  relativeLinksMethod: z.enum(LINK_METHODS),
  // The page sends `limit=undefined` (or `NaN`, parseInt of an empty input) when the node's input is empty: the default.
  limit: z
    .preprocess(
      (v) => (v === "" || v === "undefined" || v === "null" || v === "NaN" ? undefined : v),
      z.coerce.number().int().min(0).optional(),
    )
    .openapi({ description: `Most links answered (0: ${MAX_LINKS}, also the cap); default 10` }),
});

const Conversation = z
  .object({
    id: z.string(),
    source: z.string(),
    sessionId: z.string().nullable(),
    memoryType: z.string().nullable(),
    email: z.string().nullable(),
    messages: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("ExportedConversation");

const Template = z.object({ type: z.string(), typeDisplay: z.string(), template: z.string() });

export const chatExtraRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/fetch-links",
      permission: EDIT_LOADERS,
      tags,
      summary: "The links of a site (webCrawl: its pages reached from url) or of a sitemap (xmlScrape)",
      description: "Every page fetched under the outbound policy (private addresses refused); at most 100 links, within 30 s.",
      request: { query: LinksQuery },
      responses: jsonResponse(z.object({ status: z.literal("OK"), links: z.array(z.string()) })),
    }),
    async (c) => {
      const { url, relativeLinksMethod, limit } = c.req.valid("query");
      return c.json(await fetchLinks({ OUTBOUND_ALLOW: c.env.OUTBOUND_ALLOW }, url, relativeLinksMethod, limit ?? 10), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/node-custom-function",
      permission: can(...EDIT_FLOWS),
      tags,
      summary: "Run a custom function's JavaScript in the sandbox and answer its value",
      description:
        "Other body fields, and functionInputVariables' entries, are the function's $<name> variables; $vars only for a " +
        "caller who may view variables. The sandbox's limits apply (TOOL_TIMEOUT_MS, memory, fetch under the outbound policy).",
      request: {
        body: jsonBody(
          z
            .object({ javascriptFunction: z.string().min(1).max(100_000) })
            .passthrough()
            .openapi("CustomFunctionRequest"),
        ),
      },
      responses: jsonResponse(z.unknown().openapi({ description: 'The function\'s return value ("" when it returns nothing)' })),
    }),
    async (c) => {
      const access = await accessFrom(c);
      const withVariables = isFull(access) || allowsAny(access, ["variables:view"]);
      const value = await executeCustomFunction(c.var.services, c.req.valid("json"), { withVariables, signal: c.req.raw.signal });
      return c.json((value ?? "") as never, 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/export-import/chatflow-messages",
      permission: onRecords(async (c) => [String((await peekBody(c)).chatflowId ?? "")], "view"),
      tags,
      summary: "A chatflow's messages as View Messages exports them: conversations, messages, feedback, files",
      request: { body: jsonBody(ExportBody) },
      responses: jsonResponse(z.array(Conversation)),
    }),
    async (c) => {
      const { chatflowId, chatType, feedbackType, startDate, endDate } = c.req.valid("json");
      const owner = await findConversationOwner(c.var.services, chatflowId);
      const filter = { chatflowId: owner.id, chatTypes: chatType as never, feedbackTypes: feedbackType, startDate, endDate };
      const body = await exportChatflowMessages(c.var.services, filter, new URL(c.req.url).origin);
      c.header("content-disposition", `attachment; filename="${owner.id}-Message.json"`);
      return c.json(body, 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/prompts-list",
      permission: can(...EDIT_FLOWS),
      tags,
      summary: "LangChain Hub's public prompts with these tags, most liked first",
      description: "Read from LANGCHAIN_HUB_URL; 502 naming the hub when it fails or cannot be reached, 504 when it is slow.",
      request: {
        body: jsonBody(
          z.object({ tags: z.union([text(2000), z.array(text(200)).max(50)]).optional() }).openapi("PromptsListRequest", {
            description: "tags: Flowise's picker sends `StringPromptTemplate&tags=openai:gpt-4&`",
          }),
        ),
      },
      responses: jsonResponse(z.object({ status: z.literal("OK"), repos: z.array(z.record(z.string(), z.unknown())) })),
    }),
    async (c) => c.json(await listHubPrompts(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/load-prompt",
      permission: can(...EDIT_FLOWS),
      tags,
      summary: "One LangChain Hub prompt's templates (owner/name[:commit])",
      description: "404 when the hub has no such prompt; 502 naming the hub when it fails or cannot be reached.",
      request: { body: jsonBody(z.object({ promptName: text(400) }).openapi("LoadPromptRequest")) },
      responses: jsonResponse(z.object({ status: z.literal("OK"), prompt: z.string(), templates: z.array(Template) })),
    }),
    async (c) => c.json(await loadHubPrompt(c.var.services, c.req.valid("json").promptName), 200),
  );
