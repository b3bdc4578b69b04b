// Flowise's googleDriveTool, googleSheetsTool and googleDocsTool (engine/tools/google/drive.ts,
// sheets.ts, docs.ts) and the googleDrive and googleSheets loaders (providers/loaders/google/)
// against the Drive/Sheets/Docs stand-in (test/standin/google-files.mjs): tools in a Tool Agent saved
// as a chatflow and run through POST /prediction (the scripted model calls them) and built from the
// tool registry with a run's context; loaders through the document store's preview and loadDocuments.
// What the stand-in received (method, path, query, body, bearer token), what reached the model or the
// documents, a credential refreshed at the OAuth2 token endpoint first, and failures: Google's errors
// as Flowise's text for the model (502 for a loader), the token never shown, bad config a 400.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { afterEach, describe, expect, inject, it } from "vitest";
import { buildTool } from "../../src/engine/tools/registry";
import { workLimits } from "../../src/lib/limits";
import { loadDocuments } from "../../src/providers/loaders/registry";
import { call, json } from "../helpers";
import { newStore } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker } from "./helpers";

const google = () => inject("googleFilesUrl");
const oauth = () => inject("oauth2Url");

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});
const vars = (extra: Record<string, string> = {}) => {
  restore?.();
  restore = setVars({ GOOGLE_DRIVE_BASE_URL: google(), GOOGLE_SHEETS_BASE_URL: google(), GOOGLE_DOCS_BASE_URL: google(), ...extra });
};

type Received = { method: string; path: string; auth: string; contentType: string; body: string };
const received = async (m: string): Promise<Received[]> => (await fetch(`${google()}/requests?contains=${encodeURIComponent(m)}`)).json();
const query = (r: Received) => Object.fromEntries(new URL(r.path, "http://x").searchParams);
const pathOf = (r: Received) => decodeURIComponent(new URL(r.path, "http://x").pathname);

const future = () => new Date(Date.now() + 3600_000).toISOString();
const token = () => `at-${marker()}-secret`;
const cred = (type: string, accessToken: string) => credential(type, { access_token: accessToken, expires_at: future() });

async function save(name: string, inputs: Record<string, unknown>, credentialId: string): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-google-files" });
  const flow = JSON.parse(
    toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [{ id: `${name}_0`, name, inputs }] }),
  );
  flow.nodes.find((n: { id: string }) => n.id === `${name}_0`).data.credential = credentialId;
  return (await json("POST", "/chatflows", { body: { name: `google files ${name}`, flowData: JSON.stringify(flow) } })).id;
}
const predict = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });

async function tools(name: string, inputs: Record<string, unknown>): Promise<Map<string, StructuredToolInterface>> {
  const built = await buildTool(name, inputs, { ctx: makeCtx("q"), label: `${name} (${name}_0)` });
  return new Map((Array.isArray(built) ? built : [built]).map((t) => [t.name, t]));
}

describe("googleDriveTool", () => {
  it("list_files and create_file through POST /prediction: Drive's query, the node's Max Results, a multipart upload", async () => {
    vars();
    const at = token();
    const inputs = { driveType: "file", fileActions: '["listFiles","createFile"]', maxResults: "5", orderBy: "modifiedTime" };
    const id = await save("googleDriveTool", inputs, await cred("googleDriveOAuth2", at));
    const m = marker();
    const q = `name contains '${m}'`;
    const create = { name: `notes-${m}.txt`, content: `Hello ${m}`, mimeType: "text/plain", parents: "p1, p2" };
    const answer = await predict(id, `Drive ${m} ${callOf("list_files", { query: q })} ${callOf("create_file", create)}`);
    const [list, upload, ...more] = await received(m);
    expect(more).toHaveLength(0);
    expect(list).toMatchObject({ method: "GET", auth: `Bearer ${at}` });
    expect(pathOf(list)).toBe("/drive/v3/files");
    expect(query(list)).toEqual({ pageSize: "5", orderBy: "modifiedTime", q, spaces: "drive" });
    expect(upload).toMatchObject({
      method: "POST",
      auth: `Bearer ${at}`,
      contentType: 'multipart/related; boundary="-------314159265358979323846"',
    });
    expect(upload.path).toBe("/upload/drive/v3/files?uploadType=multipart");
    const metadata = { name: `notes-${m}.txt`, parents: ["p1", "p2"], mimeType: "text/plain" };
    expect(upload.body).toBe(
      `---------314159265358979323846\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(metadata)}\r\n` +
        `---------314159265358979323846\r\nContent-Type: text/plain\r\n\r\nHello ${m}\r\n---------314159265358979323846--`,
    );
    expect(answer.text).toContain('"id":"uploaded-1"');
    expect(answer.text).toContain(`"name":"notes-${m}.txt"`);
  });

  it("every operation's call: the node's File ID over the model's, flags only when true, deletes answered in Flowise's words", async () => {
    vars();
    const m = marker();
    const cid = await cred("googleDriveOAuth2", token());
    const run = async (type: string, actions: string[], inputs: Record<string, unknown>, tool: string, args: Record<string, unknown>) => {
      const t = await tools("googleDriveTool", {
        credential: cid,
        driveType: type,
        [`${type}Actions`]: JSON.stringify(actions),
        ...inputs,
      });
      return String(await t.get(tool)!.invoke(args));
    };
    const node = { fileId: `node-${m}` };
    expect(await run("file", ["getFile"], { ...node, fields: "id,name" }, "get_file", {})).toContain(`"id":"node-${m}"`);
    expect(await run("file", ["downloadFile"], node, "download_file", { fileId: "ignored" })).toBe(`Text of node-${m}.txt`);
    await run("file", ["updateFile"], {}, "update_file", { fileId: `f-${m}`, name: "New", starred: true, parents: "p9" });
    expect(await run("file", ["deleteFile"], {}, "delete_file", { fileId: `f-${m}`, supportsAllDrives: true })).toBe(
      "File deleted successfully",
    );
    await run("file", ["copyFile"], {}, "copy_file", { fileId: `f-${m}`, name: "Copy" });
    await run("folder", ["createFolder"], { parentFolderId: `root-${m}` }, "create_folder", { name: "Reports" });
    await run("folder", ["listFolderContents"], {}, "list_folder_contents", { folderId: `fold-${m}` });
    expect(await run("folder", ["deleteFolder"], {}, "delete_folder", { folderId: `fold-${m}` })).toBe("Folder deleted successfully");
    await run("search", ["searchFiles"], { includeItemsFromAllDrives: true }, "search_files", { query: `fullText contains '${m}'` });
    const share = { fileId: `f-${m}`, role: "writer", type: "user", emailAddress: "ana@example.com" };
    await run("share", ["shareFile"], { sendNotificationEmail: false }, "share_file", share);
    await run("share", ["getPermissions"], {}, "get_permissions", { fileId: `f-${m}` });
    expect(await run("share", ["removePermission"], {}, "remove_permission", { fileId: `f-${m}`, permissionId: "perm-1" })).toBe(
      "Permission removed successfully",
    );
    const calls = (await received(m)).map((r) => [r.method, pathOf(r), query(r), r.body ? JSON.parse(r.body) : undefined]);
    expect(calls).toEqual([
      ["GET", `/drive/v3/files/node-${m}`, { fields: "id,name" }, undefined],
      ["GET", `/drive/v3/files/node-${m}`, { alt: "media" }, undefined],
      ["PATCH", `/drive/v3/files/f-${m}`, { addParents: "p9" }, { name: "New", starred: true }],
      ["DELETE", `/drive/v3/files/f-${m}`, { supportsAllDrives: "true" }, undefined],
      ["POST", `/drive/v3/files/f-${m}/copy`, {}, { name: "Copy" }],
      ["POST", "/drive/v3/files", {}, { name: "Reports", mimeType: "application/vnd.google-apps.folder", parents: [`root-${m}`] }],
      ["GET", "/drive/v3/files", { q: `'fold-${m}' in parents`, pageSize: "10" }, undefined],
      ["DELETE", `/drive/v3/files/fold-${m}`, {}, undefined],
      ["GET", "/drive/v3/files", { q: `fullText contains '${m}'`, pageSize: "10", includeItemsFromAllDrives: "true" }, undefined],
      [
        "POST",
        `/drive/v3/files/f-${m}/permissions`,
        { sendNotificationEmail: "false" },
        { role: "writer", type: "user", emailAddress: "ana@example.com" },
      ],
      ["GET", `/drive/v3/files/f-${m}/permissions`, {}, undefined],
      ["DELETE", `/drive/v3/files/f-${m}/permissions/perm-1`, {}, undefined],
    ]);
  });

  it("an expired credential is refreshed at its token endpoint first; the API gets the new token", async () => {
    vars();
    const m = marker();
    const id = await credential("googleDriveOAuth2", {
      access_token: `at-old-${m}`,
      expires_at: new Date(Date.now() - 60_000).toISOString(),
      refresh_token: `rt-${m}`,
      clientId: "oauth-client",
      clientSecret: "oauth-secret",
      accessTokenUrl: `${oauth()}/token`,
    });
    const t = await tools("googleDriveTool", { credential: id, driveType: "file", fileActions: '["getFile"]' });
    await t.get("get_file")!.invoke({ fileId: `f-${m}` });
    const [req] = await received(m);
    expect(req.auth).toMatch(/^Bearer at-refreshed-\d+$/);
  });

  it("Google's errors are Flowise's text for the model, never the token; no Type is a 400; no credential a 400", async () => {
    vars();
    const at = token();
    const id = await save("googleDriveTool", { driveType: "file", fileActions: '["getFile"]' }, await cred("googleDriveOAuth2", at));
    const m = marker();
    const denied = await predict(id, `File ${m} ${callOf("get_file", { fileId: `denied-${m}` })}`);
    expect(denied.text).toBe(
      `tools said: Error getting file: Google Drive answered 403: The user does not have sufficient permissions for file denied-${m}.`,
    );
    const echoed = await predict(id, `File ${m} ${callOf("get_file", { fileId: `echo-${m}` })}`);
    expect(echoed.text).toContain("Error getting file: Google Drive answered 500: Internal error for token [redacted]");
    expect(JSON.stringify(echoed)).not.toContain(at);

    const noType = await save("googleDriveTool", { fileActions: '["getFile"]' }, await cred("googleDriveOAuth2", at));
    const res = await call("POST", `/prediction/${noType}`, { body: { question: "hi" } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("has no operations chosen");
    await expect(
      buildTool("googleDriveTool", { driveType: "file", fileActions: '["getFile"]' }, { ctx: makeCtx("q"), label: "Drive" }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("needs a googleDriveOAuth2 credential"),
    });
  });

  it("a base URL var on a private address is a 400 when the flow is built", async () => {
    vars({ GOOGLE_DRIVE_BASE_URL: "http://10.1.2.3" });
    const id = await save("googleDriveTool", { driveType: "file", fileActions: '["getFile"]' }, await cred("googleDriveOAuth2", token()));
    const res = await call("POST", `/prediction/${id}`, { body: { question: "hi" } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("GOOGLE_DRIVE_BASE_URL refused by the outbound policy: 10.1.2.3 is a private address");
  });
});

describe("googleSheetsTool", () => {
  it("update_values through POST /prediction: the node's spreadsheet (the model need not name it), the range encoded, JSON values", async () => {
    vars();
    const at = token();
    const m = marker();
    const inputs = {
      sheetsType: "values",
      valuesActions: '["updateValues","batchGetValues"]',
      spreadsheetId: `ss-${m}`,
      valueInputOption: "RAW",
    };
    const id = await save("googleSheetsTool", inputs, await cred("googleSheetsOAuth2", at));
    const args = { range: "Sheet 1!A1:B2", values: '[["a","b"],[1,2]]' };
    const get = { ranges: "A1:B2, Sheet2!C1" };
    const answer = await predict(id, `Write ${m} ${callOf("update_values", args)} ${callOf("batch_get_values", get)}`);
    const [put, batch] = await received(m);
    expect(put).toMatchObject({ method: "PUT", auth: `Bearer ${at}` });
    // A sheet name with a space is quoted (Sheets cannot parse "Sheet 1!A1:B2").
    expect(put.path).toBe(`/v4/spreadsheets/ss-${m}/values/'Sheet%201'!A1%3AB2?valueInputOption=RAW`);
    expect(JSON.parse(put.body)).toEqual({
      values: [
        ["a", "b"],
        [1, 2],
      ],
      majorDimension: "ROWS",
    });
    expect(batch.path).toBe(
      `/v4/spreadsheets/ss-${m}/values:batchGet?ranges=A1%3AB2&ranges=Sheet2%21C1&valueRenderOption=FORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING&majorDimension=ROWS`,
    );
    expect(answer.text).toContain(`"spreadsheetId":"ss-${m}"`);
  });

  it("the spreadsheet operations and the rest of the values ones; bad JSON values are an error the model reads", async () => {
    vars();
    const m = marker();
    const cid = await cred("googleSheetsOAuth2", token());
    const t = await tools("googleSheetsTool", {
      credential: cid,
      sheetsType: "spreadsheet",
      spreadsheetActions: '["createSpreadsheet","getSpreadsheet","updateSpreadsheet"]',
    });
    await t.get("create_spreadsheet")!.invoke({ title: `Budget ${m}`, sheetCount: 2, locale: "en_GB" });
    await t.get("get_spreadsheet")!.invoke({ spreadsheetId: `ss-${m}`, ranges: "A1, B2", includeGridData: true });
    await t.get("update_spreadsheet")!.invoke({ spreadsheetId: `ss-${m}`, title: "Renamed" });
    const v = await tools("googleSheetsTool", {
      credential: cid,
      sheetsType: "values",
      valuesActions: '["appendValues","clearValues","batchUpdateValues","batchClearValues","getValues"]',
    });
    await v.get("append_values")!.invoke({ spreadsheetId: `ss-${m}`, range: "A1", values: '[["x"]]' });
    await v.get("clear_values")!.invoke({ spreadsheetId: `ss-${m}`, range: "A1:C3" });
    await v.get("batch_update_values")!.invoke({ spreadsheetId: `ss-${m}`, values: '[{"range":"A1","values":[["y"]]}]' });
    await v.get("batch_clear_values")!.invoke({ spreadsheetId: `ss-${m}`, ranges: "A1, B1" });
    expect(String(await v.get("append_values")!.invoke({ spreadsheetId: `ss-${m}`, range: "A1", values: "not json" }))).toBe(
      "Error appending values: Values must be a valid JSON array",
    );
    const calls = (await received(m)).map((r) => [r.method, r.path, r.body ? JSON.parse(r.body) : undefined]);
    expect(calls).toEqual([
      [
        "POST",
        "/v4/spreadsheets",
        {
          properties: { title: `Budget ${m}`, locale: "en_GB" },
          sheets: [{ properties: { title: "Sheet1" } }, { properties: { title: "Sheet2" } }],
        },
      ],
      ["GET", `/v4/spreadsheets/ss-${m}?ranges=A1&ranges=B2&includeGridData=true`, undefined],
      [
        "POST",
        `/v4/spreadsheets/ss-${m}:batchUpdate`,
        { requests: [{ updateSpreadsheetProperties: { properties: { title: "Renamed" }, fields: "title" } }] },
      ],
      [
        "POST",
        `/v4/spreadsheets/ss-${m}/values/A1:append?valueInputOption=USER_ENTERED&insertDataOption=OVERWRITE`,
        { values: [["x"]], majorDimension: "ROWS" },
      ],
      ["POST", `/v4/spreadsheets/ss-${m}/values/A1%3AC3:clear`, {}],
      [
        "POST",
        `/v4/spreadsheets/ss-${m}/values:batchUpdate`,
        { valueInputOption: "USER_ENTERED", data: [{ range: "A1", values: [["y"]] }], includeValuesInResponse: false },
      ],
      ["POST", `/v4/spreadsheets/ss-${m}/values:batchClear`, { ranges: ["A1", "B1"] }],
    ]);
  });
});

describe("googleDocsTool", () => {
  it("get_text_content and append_text through POST /prediction (all nine tools when none is chosen)", async () => {
    vars();
    const at = token();
    const m = marker();
    const id = await save("googleDocsTool", { documentId: `doc-${m}` }, await cred("googleDocsOAuth2", at));
    const answer = await predict(id, `Doc ${m} ${callOf("get_text_content", {})} ${callOf("append_text", { text: `More ${m}` })}`);
    expect(answer.text).toContain(`{"textContent":"Hello from doc-${m}\\n"}`);
    const [read, end, update] = await received(m);
    expect(read).toMatchObject({ method: "GET", path: `/v1/documents/doc-${m}`, auth: `Bearer ${at}` });
    expect(end).toMatchObject({ method: "GET", path: `/v1/documents/doc-${m}` });
    expect(update.path).toBe(`/v1/documents/doc-${m}:batchUpdate`);
    const endIndex = 1 + `Hello from doc-${m}\n`.length;
    expect(JSON.parse(update.body)).toEqual({ requests: [{ insertText: { location: { index: endIndex - 1 }, text: `More ${m}` } }] });
  });

  it("create_document then its content in one batchUpdate; tabs read with includeTabsContent; replace, image, table", async () => {
    vars();
    const m = marker();
    const cid = await cred("googleDocsOAuth2", token());
    const t = await tools("googleDocsTool", { credential: cid, includeTabsContent: true });
    expect(t.size).toBe(9);
    const created = JSON.parse(String(await t.get("create_document")!.invoke({ title: `T-${m}`, text: "Intro", rows: 2, columns: 3 })));
    expect(created).toEqual({ documentId: `doc-T-${m}`, title: `T-${m}` });
    expect(JSON.parse(String(await t.get("get_text_content")!.invoke({ documentId: `d-${m}` })))).toEqual({
      textContent: `Hello from d-${m}\nChild tab\n`,
    });
    await t.get("replace_text")!.invoke({ documentId: `d-${m}`, replaceText: "a", newText: "b", matchCase: true });
    await t.get("insert_image")!.invoke({ documentId: `d-${m}`, imageUrl: "https://example.com/i.png", index: 4 });
    expect(String(await t.get("update_document")!.invoke({ documentId: `d-${m}` }))).toBe("No updates specified");
    const calls = (await received(m)).map((r) => [r.method, r.path, r.body ? JSON.parse(r.body) : undefined]);
    expect(calls).toEqual([
      ["POST", "/v1/documents", { title: `T-${m}` }],
      [
        "POST",
        `/v1/documents/doc-T-${m}:batchUpdate`,
        {
          requests: [
            { insertText: { location: { index: 1 }, text: "Intro" } },
            { insertTable: { location: { index: 1 }, rows: 2, columns: 3 } },
          ],
        },
      ],
      ["GET", `/v1/documents/d-${m}?includeTabsContent=true`, undefined],
      [
        "POST",
        `/v1/documents/d-${m}:batchUpdate`,
        { requests: [{ replaceAllText: { containsText: { text: "a", matchCase: true }, replaceText: "b" } }] },
      ],
      [
        "POST",
        `/v1/documents/d-${m}:batchUpdate`,
        { requests: [{ insertInlineImage: { location: { index: 4 }, uri: "https://example.com/i.png" } }] },
      ],
    ]);
  });
});

const load = (name: string, config: Record<string, unknown>, credentials: Record<string, Record<string, unknown>>) => {
  const asked: unknown[] = [];
  const docs = loadDocuments(name, {
    config,
    files: [],
    outbound: {},
    maxBytes: 1 << 20,
    limits: workLimits({}),
    getCredential: async (id, options) => {
      asked.push(options);
      return credentials[id] ?? {};
    },
    services: { GOOGLE_DRIVE_BASE_URL: google(), GOOGLE_SHEETS_BASE_URL: google(), ENVIRONMENT: "test" },
  });
  return { docs, asked };
};

describe("googleDrive loader", () => {
  it("a folder with subfolders: Docs and Slides exported as text, a Sheet as CSV rows, text files downloaded, other kinds skipped", async () => {
    const m = marker();
    const at = token();
    const types = [
      "application/vnd.google-apps.document",
      "application/vnd.google-apps.spreadsheet",
      "application/vnd.google-apps.presentation",
      "text/plain",
      "text/markdown",
    ];
    const { docs, asked } = load(
      "googleDrive",
      { credential: "c", folderId: `fold-${m}`, fileTypes: JSON.stringify(types), includeSubfolders: true },
      { c: { access_token: at } },
    );
    const read = await docs;
    expect(asked).toEqual([{ oauth2: true }]);
    expect(read.map((d) => [d.metadata.fileName, d.pageContent])).toEqual([
      [`Plan ${m}`, `Exported text of Plan ${m}`],
      [`Stock ${m}`, "Name: apple\nQty: 3"],
      [`Stock ${m}`, "Name: pear\nQty: 5"],
      [`Deck ${m}`, `Exported text of Deck ${m}`],
      [`notes-${m}.txt`, `Text of notes-${m}.txt`],
      [`deep-${m}.md`, `Text of deep-${m}.md`],
    ]);
    expect(read[4].metadata).toMatchObject({
      source: `https://drive.google.com/file/d/notes-${m}/view`,
      fileId: `notes-${m}`,
      mimeType: "text/plain",
      size: 21,
      parents: [`fold-${m}`],
      driveContext: " (My Drive)",
    });
    expect(read[1].metadata).toMatchObject({
      fileId: `gsheet-${m}`,
      totalPages: 2,
      pageIndex: 0,
      mimeType: "application/vnd.google-apps.spreadsheet",
    });
    const calls = (await received(m)).map((r) => [pathOf(r), query(r)]);
    const typeQuery = [...types, "application/vnd.google-apps.folder"].map((t) => `mimeType='${t}'`).join(" or ");
    expect(calls[0]).toEqual([
      "/drive/v3/files",
      {
        q: `'fold-${m}' in parents and trashed = false and (${typeQuery})`,
        pageSize: "50",
        fields: "nextPageToken, files(id, name, mimeType, size, createdTime, modifiedTime, parents, webViewLink, driveId)",
      },
    ]);
    expect(calls).toContainEqual([`/drive/v3/files/gdoc-${m}/export`, { mimeType: "text/plain" }]);
    expect(calls).toContainEqual([`/drive/v3/files/gsheet-${m}/export`, { mimeType: "text/csv" }]);
    expect(calls).toContainEqual([`/drive/v3/files/notes-${m}`, { alt: "media" }]);
    expect((await received(m)).every((r) => r.auth === `Bearer ${at}`)).toBe(true);
  });

  it("chosen files through the document store's preview, with the credential refreshed; Drive's 403 a 502 without the token", async () => {
    vars();
    const m = marker();
    const store = await newStore(`drive ${m}`);
    const id = await credential("googleDriveOAuth2", {
      access_token: `at-old-${m}`,
      expires_at: new Date(Date.now() - 60_000).toISOString(),
      refresh_token: `rt-${m}`,
      clientId: "oauth-client",
      clientSecret: "oauth-secret",
      accessTokenUrl: `${oauth()}/token`,
    });
    const body = (selectedFiles: string) => ({
      storeId: store.id,
      loaderId: "googleDrive",
      loaderName: "Drive",
      loaderConfig: { selectedFiles, credential: id, fileTypes: "", maxFiles: 50, textSplitter: "", metadata: "", omitMetadataKeys: "" },
      previewChunkCount: 5,
    });
    const preview = await json("POST", "/document-store/loader/preview", { body: body(JSON.stringify([`a-${m}`, `b-${m}`])) });
    expect(preview.chunks.map((c: { pageContent: string }) => c.pageContent)).toEqual([`Text of a-${m}.txt`, `Text of b-${m}.txt`]);
    const sent = await received(m);
    expect(sent.map((r) => r.path)).toEqual([
      `/drive/v3/files/a-${m}?fields=id%2C+name%2C+mimeType%2C+size%2C+createdTime%2C+modifiedTime%2C+parents%2C+webViewLink%2C+driveId`,
      `/drive/v3/files/b-${m}?fields=id%2C+name%2C+mimeType%2C+size%2C+createdTime%2C+modifiedTime%2C+parents%2C+webViewLink%2C+driveId`,
      `/drive/v3/files/a-${m}?alt=media`,
      `/drive/v3/files/b-${m}?alt=media`,
    ]);
    expect(sent.every((r) => /^Bearer at-refreshed-\d+$/.test(r.auth))).toBe(true);
    const res = await call("POST", "/document-store/loader/preview", { body: body(`echo-${m}`) });
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(text).toContain("Google Drive answered 500: Internal error for token [redacted]");
    expect(text).not.toMatch(/at-refreshed/);
  });

  it("needs files or a folder (400) and a credential with a token (400)", async () => {
    await expect(load("googleDrive", { credential: "c" }, { c: { access_token: "at-x" } }).docs).rejects.toMatchObject({ status: 400 });
    await expect(load("googleDrive", { credential: "c", folderId: "f" }, { c: {} }).docs).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("has no access token"),
    });
  });
});

describe("the Google loaders' pickers (POST /node-load-method)", () => {
  it("listFiles and listSpreadsheets list the credential's files as Flowise's options; none without a credential", async () => {
    vars();
    const at = token();
    const m = at.split("-")[1];
    const drive = await cred("googleDriveOAuth2", at);
    const files = await json("POST", "/node-load-method/googleDrive", { body: { loadMethod: "listFiles", credential: drive, inputs: {} } });
    expect(files).toEqual([
      { name: "listed-1", label: "Listed notes", description: "Type: Text File (My Drive) | Modified: 2026-02-03" },
      { name: "listed-2", label: "Stock listed", description: "Type: Google Sheet (Shared Drive) | Modified: 2026-02-03" },
    ]);
    const sheets = await json("POST", "/node-load-method/googleSheets", {
      body: { loadMethod: "listSpreadsheets", credential: await cred("googleSheetsOAuth2", at), inputs: {} },
    });
    expect(sheets).toEqual([{ name: "listed-2", label: "Stock listed", description: "Modified: 2026-02-03" }]);
    const [list, sheetList] = await received(m);
    expect(query(list)).toMatchObject({ q: "trashed = false", pageSize: "100", orderBy: "modifiedTime desc" });
    expect(query(sheetList)).toMatchObject({
      q: "mimeType='application/vnd.google-apps.spreadsheet' and trashed = false",
      pageSize: "100",
    });
    expect(await json("POST", "/node-load-method/googleDrive", { body: { loadMethod: "listFiles", inputs: {} } })).toEqual([]);
  });
});

describe("googleSheets loader", () => {
  it("every sheet of each spreadsheet as a Markdown table with Flowise's metadata; empty sheets give none", async () => {
    const m = marker();
    const at = token();
    const { docs } = load(
      "googleSheets",
      { credential: "c", spreadsheetIds: `["ss-${m}"]`, includeHeaders: true, valueRenderOption: "FORMULA" },
      { c: { access_token: at } },
    );
    const read = await docs;
    expect(read).toHaveLength(1);
    expect(read[0].pageContent).toBe("| Name | Qty |\n| --- | --- |\n| apple | 3 |\n| pear |  |\n");
    expect(read[0].metadata).toEqual({
      source: `Google Sheets: Stock ss-${m} - Sheet1`,
      spreadsheetId: `ss-${m}`,
      sheetName: "Sheet1",
      spreadsheetTitle: `Stock ss-${m}`,
      spreadsheetUrl: `https://docs.google.com/spreadsheets/d/ss-${m}`,
      range: "'Sheet1'!A1:B3",
      rowCount: 3,
      columnCount: 2,
      headers: ["Name", "Qty"],
      totalDataRows: 2,
    });
    const calls = (await received(m)).map((r) => r.path);
    expect(calls).toEqual([
      `/v4/spreadsheets/ss-${m}`,
      `/v4/spreadsheets/ss-${m}/values/Sheet1?valueRenderOption=FORMULA&dateTimeRenderOption=FORMATTED_STRING&majorDimension=ROWS`,
      `/v4/spreadsheets/ss-${m}/values/Empty?valueRenderOption=FORMULA&dateTimeRenderOption=FORMATTED_STRING&majorDimension=ROWS`,
    ]);
  });

  it("named sheets with a range and letters for headers; Google's 403 is a 502", async () => {
    const m = marker();
    const { docs } = load(
      "googleSheets",
      { credential: "c", spreadsheetIds: `ss-${m}`, sheetNames: "Sheet1", range: "A1:B3" },
      { c: { access_token: "at-x" } },
    );
    const [doc] = await docs;
    expect(doc.pageContent).toBe("| A | B |\n| --- | --- |\n| Name | Qty |\n| apple | 3 |\n| pear |  |\n");
    expect(doc.metadata.headers).toBeUndefined();
    expect((await received(m)).map((r) => r.path)[1]).toBe(
      `/v4/spreadsheets/ss-${m}/values/Sheet1!A1%3AB3?valueRenderOption=FORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING&majorDimension=ROWS`,
    );
    await expect(
      load("googleSheets", { credential: "c", spreadsheetIds: `denied-${m}` }, { c: { access_token: "at-x" } }).docs,
    ).rejects.toMatchObject({
      status: 502,
      message: `Google Sheets answered 403: The user does not have sufficient permissions for file denied-${m}.`,
    });
  });
});

describe("Google's documented ranges and syntax (the strict stand-in)", () => {
  const build = async (name: string, inputs: Record<string, unknown>, type: string) =>
    tools(name, { credential: await cred(type, token()), ...inputs });

  it("Drive: a Max Results over 1000 is read in pages of at most 1000, short pages followed by nextPageToken", async () => {
    vars();
    const m = marker();
    const t = await build(
      "googleDriveTool",
      { driveType: "folder", folderActions: '["listFolderContents"]', maxResults: "1001" },
      "googleDriveOAuth2",
    );
    const answer = JSON.parse(String(await t.get("list_folder_contents")!.invoke({ folderId: `many-1002-${m}` })));
    expect(answer.files).toHaveLength(1001);
    expect(new Set(answer.files.map((f: { id: string }) => f.id)).size).toBe(1001);
    expect(answer.nextPageToken).toBe("1001");
    // The stand-in serves at most 400 a page (Drive's partial pages): each page asks only for what is left.
    expect((await received(m)).map((r) => [query(r).pageSize, query(r).pageToken])).toEqual([
      ["1000", undefined],
      ["601", "400"],
      ["201", "800"],
    ]);
  });

  it("Drive: list_files with the model's `fields` keeps nextPageToken in it, so a short page is not read as the last", async () => {
    vars();
    const m = marker();
    const t = await build("googleDriveTool", { driveType: "file", fileActions: '["listFiles"]' }, "googleDriveOAuth2");
    const args = { query: `'many-500-${m}' in parents`, pageSize: 450, fields: "files(id,name)" };
    const answer = JSON.parse(String(await t.get("list_files")!.invoke(args)));
    expect(answer.files).toHaveLength(450);
    const sent = (await received(m)).map(query);
    expect(sent.map((q) => [q.fields, q.pageSize, q.pageToken])).toEqual([
      ["nextPageToken,files(id,name)", "450", undefined],
      ["nextPageToken,files(id,name)", "50", "400"],
    ]);
  });

  it("Drive: a folder id with a quote or a backslash is escaped in q; the node's orderBy is dropped on a fullText search", async () => {
    vars();
    const m = marker();
    const folder = await build("googleDriveTool", { driveType: "folder", folderActions: '["listFolderContents"]' }, "googleDriveOAuth2");
    const listed = String(await folder.get("list_folder_contents")!.invoke({ folderId: `O'Brien\\${m}` }));
    expect(listed).toBe('{"files":[]}');
    const search = await build(
      "googleDriveTool",
      { driveType: "search", searchActions: '["searchFiles"]', orderBy: "modifiedTime" },
      "googleDriveOAuth2",
    );
    const found = String(await search.get("search_files")!.invoke({ query: `fullText contains 'Grüße ${m}'` }));
    expect(found).not.toContain("Error");
    const name = await build(
      "googleDriveTool",
      { driveType: "search", searchActions: '["searchFiles"]', orderBy: "name" },
      "googleDriveOAuth2",
    );
    await name.get("search_files")!.invoke({ query: `name contains 'n-${m}'` });
    expect((await received(m)).map(query)).toEqual([
      { q: `'O\\'Brien\\\\${m}' in parents`, pageSize: "10" },
      { q: `fullText contains 'Grüße ${m}'`, pageSize: "10" },
      { q: `name contains 'n-${m}'`, pageSize: "10", orderBy: "name" },
    ]);
  });

  it("Sheets: sheet names with spaces, quotes or commas are quoted in every range (Sheets cannot parse them bare)", async () => {
    vars();
    const m = marker();
    const t = await build(
      "googleSheetsTool",
      { sheetsType: "values", valuesActions: '["getValues","batchGetValues","batchUpdateValues","clearValues"]', spreadsheetId: `ss-${m}` },
      "googleSheetsOAuth2",
    );
    expect(String(await t.get("get_values")!.invoke({ range: "Q1 Report!A1:B2" }))).toContain('"values"');
    await t.get("batch_get_values")!.invoke({ ranges: "'Jon's Data'!A1, Sheet1!B2, 'a, b'!C3" });
    const data = JSON.stringify([{ range: "Año 2026!A1", values: [["x"]] }]);
    expect(String(await t.get("batch_update_values")!.invoke({ values: data }))).not.toContain("Error");
    await t.get("clear_values")!.invoke({ range: "Totals 2026" });
    const sent = await received(m);
    const path = (r: Received) => decodeURIComponent(r.path.split("?")[0]);
    expect(path(sent[0])).toBe(`/v4/spreadsheets/ss-${m}/values/'Q1 Report'!A1:B2`);
    expect(new URL(sent[1].path, "http://x").searchParams.getAll("ranges")).toEqual(["'Jon''s Data'!A1", "Sheet1!B2", "'a, b'!C3"]);
    expect(JSON.parse(sent[2].body).data[0].range).toBe("'Año 2026'!A1");
    expect(path(sent[3])).toBe(`/v4/spreadsheets/ss-${m}/values/'Totals 2026':clear`);
  });

  it("Docs: an index under 1 or a fraction is sent as a whole index ≥ 1; a new document's content goes at index 1", async () => {
    vars();
    const m = marker();
    const t = await build("googleDocsTool", { index: "5" }, "googleDocsOAuth2");
    const created = String(await t.get("create_document")!.invoke({ title: `New-${m}`, text: "Intro" }));
    expect(created).toBe(`{"documentId":"doc-New-${m}","title":"New-${m}"}`);
    const free = await build("googleDocsTool", { actions: '["insertText"]' }, "googleDocsOAuth2");
    await free.get("insert_text")!.invoke({ documentId: `d-${m}`, text: "a", index: -3 });
    await free.get("insert_text")!.invoke({ documentId: `d-${m}`, text: "b", index: 2.5 });
    const past = String(await free.get("insert_text")!.invoke({ documentId: `d-${m}`, text: "c", index: 500 }));
    const end = 1 + `Hello from d-${m}\n`.length;
    const refused = "Invalid requests[0].insertText: Index 500 must be less than the end index of the referenced segment";
    expect(past).toBe(`Error inserting text: Google Docs answered 400: ${refused}, ${end}.`);
    const batches = (await received(m))
      .filter((r) => r.path.endsWith(":batchUpdate"))
      .map((r) => JSON.parse(r.body).requests[0].insertText.location);
    expect(batches).toEqual([{ index: 1 }, { index: 1 }, { index: 2 }, { index: 500 }]);
  });
});
