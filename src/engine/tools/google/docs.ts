// Flowise's Google Docs tool (googleDocsTool, credential googleDocsOAuth2): the chosen actions (all
// nine when none is chosen, as Flowise), each one tool, over Docs API v1 (GOOGLE_DOCS_BASE_URL, else
// https://docs.googleapis.com; paths /v1/documents…):
//   create_document (POST, then one batchUpdate for its text, image and table), get_document,
//   update_document, insert_text, replace_text, append_text (the body's end index read first),
//   get_text_content ({textContent}: the paragraphs' text runs, tabs included when asked),
//   insert_image, create_table. An image URL is fetched by Google, not by us.
import { z } from "zod";
import { isObject } from "../../core/inputs";
import { type OAuth2Api, apiCall, chosenActions } from "../oauth2/api";
import { ToolCallError } from "../service";
import { type Args, type DefaultParam, action, googleFilesTool, seg, text } from "./drive-common";

const API = "/v1/documents";

const documentId = (what: string) => z.string().describe(what);
const index = (what: string) => z.number().optional().default(1).describe(what);
const WHERE = "Index where to insert text or media (1-based, default: 1 for beginning)";

type Doc = Record<string, unknown>;

const batchUpdate = (api: OAuth2Api, id: unknown, requests: unknown[]) =>
  apiCall(api, { method: "POST", path: `${API}/${seg(id)}:batchUpdate`, body: { requests } });

/** The document, with all its tabs when the node asks (includeTabsContent). */
const getDocument = (api: OAuth2Api, a: Args) =>
  apiCall(api, {
    path: `${API}/${seg(a.documentId)}`,
    query: { includeTabsContent: a.includeTabsContent === true || a.includeTabsContent === "true" ? "true" : undefined },
  }) as Promise<Doc>;

// Docs indexes are whole UTF-16 offsets and 0 is the body's section break, not a paragraph: an index
// under 1 is refused ("The insertion index must be inside the bounds of an existing paragraph") and a
// fraction is not an int32, so the index sent is a whole number ≥ 1.
const at = (a: Args) => ({ index: Math.max(1, Math.floor(Number(a.index)) || 1) });

/** Flowise's content requests from one set of arguments: text, a text replacement, an image, a table. */
function contentRequests(a: Args, replace: boolean): unknown[] {
  const requests: unknown[] = [];
  if (text(a.text)) requests.push({ insertText: { location: at(a), text: a.text } });
  if (replace && text(a.replaceText) && text(a.newText))
    requests.push({
      replaceAllText: {
        containsText: { text: a.replaceText, matchCase: a.matchCase === true || a.matchCase === "true" },
        replaceText: a.newText,
      },
    });
  if (text(a.imageUrl)) requests.push({ insertInlineImage: { location: at(a), uri: a.imageUrl } });
  if (Number(a.rows) && Number(a.columns))
    requests.push({ insertTable: { location: at(a), rows: Number(a.rows), columns: Number(a.columns) } });
  return requests;
}

const contentOf = (value: unknown): Doc[] => (Array.isArray(value) ? value.filter(isObject) : []);

/** The text runs of the body's paragraphs (every tab and child tab when the document has tabs). */
function textContent(doc: Doc): string {
  let out = "";
  const paragraphs = (content: unknown) => {
    for (const element of contentOf(content)) {
      const paragraph = element.paragraph;
      if (!isObject(paragraph)) continue;
      for (const run of contentOf(paragraph.elements)) {
        const textRun = run.textRun;
        if (isObject(textRun) && typeof textRun.content === "string") out += textRun.content;
      }
    }
  };
  const tabs = (list: unknown) => {
    for (const tab of contentOf(list)) {
      const body = isObject(tab.documentTab) && isObject(tab.documentTab.body) ? tab.documentTab.body : undefined;
      paragraphs(body?.content);
      tabs(tab.childTabs);
    }
  };
  if (contentOf(doc.tabs).length) tabs(doc.tabs);
  else paragraphs(isObject(doc.body) ? doc.body.content : undefined);
  return out;
}

const ACTIONS = {
  createDocument: action(
    "create_document",
    "Create a new Google Docs document",
    "Error creating document",
    z.object({
      title: z.string().describe("Document title"),
      text: z.string().optional().describe("Text content to insert after creating document"),
      index: index(WHERE),
      imageUrl: z.string().optional().describe("URL of the image to insert after creating document"),
      rows: z.number().optional().describe("Number of rows in the table to create"),
      columns: z.number().optional().describe("Number of columns in the table to create"),
    }),
    async (a, api) => {
      const created = (await apiCall(api, { method: "POST", path: API, body: { title: a.title } })) as Doc;
      // A new document is one empty paragraph (end index 2): its content goes at index 1 whatever the
      // node's Index (set for inserts into existing documents) says; a later index is a 400.
      const requests = contentRequests({ ...a, index: 1 }, false);
      if (requests.length) await batchUpdate(api, created.documentId, requests);
      return created;
    },
  ),
  getDocument: action(
    "get_document",
    "Get a Google Docs document by ID",
    "Error getting document",
    z.object({ documentId: documentId("Document ID to retrieve") }),
    (a, api) => getDocument(api, a),
  ),
  updateDocument: action(
    "update_document",
    "Update a Google Docs document with batch requests",
    "Error updating document",
    z.object({
      documentId: documentId("Document ID to update"),
      text: z.string().optional().describe("Text content to insert"),
      index: index(WHERE),
      replaceText: z.string().optional().describe("Text to replace"),
      newText: z.string().optional().describe("New text to replace with"),
      matchCase: z.boolean().optional().default(false).describe("Whether the search should be case-sensitive"),
      imageUrl: z.string().optional().describe("URL of the image to insert"),
      rows: z.number().optional().describe("Number of rows in the table to create"),
      columns: z.number().optional().describe("Number of columns in the table to create"),
    }),
    async (a, api) => {
      const requests = contentRequests(a, true);
      return requests.length ? batchUpdate(api, a.documentId, requests) : "No updates specified";
    },
  ),
  insertText: action(
    "insert_text",
    "Insert text into a Google Docs document",
    "Error inserting text",
    z.object({
      documentId: documentId("Document ID"),
      text: z.string().describe("Text to insert"),
      index: index("Index where to insert text (1-based, default: 1 for beginning)"),
    }),
    (a, api) => batchUpdate(api, a.documentId, [{ insertText: { location: at(a), text: a.text } }]),
  ),
  replaceText: action(
    "replace_text",
    "Replace text in a Google Docs document",
    "Error replacing text",
    z.object({
      documentId: documentId("Document ID"),
      replaceText: z.string().describe("Text to replace"),
      newText: z.string().describe("New text to replace with"),
      matchCase: z.boolean().optional().default(false).describe("Whether the search should be case-sensitive"),
    }),
    (a, api) =>
      batchUpdate(api, a.documentId, [
        {
          replaceAllText: {
            containsText: { text: a.replaceText, matchCase: a.matchCase === true || a.matchCase === "true" },
            replaceText: a.newText,
          },
        },
      ]),
  ),
  appendText: action(
    "append_text",
    "Append text to the end of a Google Docs document",
    "Error appending text",
    z.object({ documentId: documentId("Document ID"), text: z.string().describe("Text to append to the document") }),
    async (a, api) => {
      const doc = (await apiCall(api, { path: `${API}/${seg(a.documentId)}` })) as Doc;
      const content = contentOf(isObject(doc.body) ? doc.body.content : undefined);
      const end = Number(content[content.length - 1]?.endIndex);
      if (!Number.isFinite(end)) throw new ToolCallError("the document has no body content to append to");
      return batchUpdate(api, a.documentId, [{ insertText: { location: { index: end - 1 }, text: a.text } }]);
    },
  ),
  getTextContent: action(
    "get_text_content",
    "Get the text content from a Google Docs document",
    "Error getting text content",
    z.object({ documentId: documentId("Document ID to get text content from") }),
    async (a, api) => ({ textContent: textContent(await getDocument(api, a)) }),
  ),
  insertImage: action(
    "insert_image",
    "Insert an image into a Google Docs document",
    "Error inserting image",
    z.object({
      documentId: documentId("Document ID"),
      imageUrl: z.string().describe("URL of the image to insert"),
      index: index("Index where to insert image (1-based)"),
    }),
    (a, api) => batchUpdate(api, a.documentId, [{ insertInlineImage: { location: at(a), uri: a.imageUrl } }]),
  ),
  createTable: action(
    "create_table",
    "Create a table in a Google Docs document",
    "Error creating table",
    z.object({
      documentId: documentId("Document ID"),
      rows: z.number().describe("Number of rows in the table"),
      columns: z.number().describe("Number of columns in the table"),
      index: index("Index where to insert table (1-based)"),
    }),
    (a, api) => batchUpdate(api, a.documentId, [{ insertTable: { location: at(a), rows: Number(a.rows), columns: Number(a.columns) } }]),
  ),
};

/** Flowise's transformNodeInputsToToolArgs. */
const DEFAULTS: DefaultParam[] = [
  ["documentId", "documentId", "str"],
  ["title", "title", "str"],
  ["text", "text", "str"],
  ["index", "index", "num"],
  ["replaceText", "replaceText", "str"],
  ["newText", "newText", "str"],
  ["matchCase", "matchCase", "bool"],
  ["includeTabsContent", "includeTabsContent", "bool"],
  ["imageUrl", "imageUrl", "str"],
  ["rows", "rows", "num"],
  ["columns", "columns", "num"],
];

export const googleDocsTool = googleFilesTool({
  service: "Google Docs",
  credentialName: "googleDocsOAuth2",
  field: "GOOGLE_DOCS_BASE_URL",
  host: "https://docs.googleapis.com",
  actions: ACTIONS,
  chosen: (inputs) => chosenActions(inputs.actions),
  allWhenNone: true,
  defaults: DEFAULTS,
});
