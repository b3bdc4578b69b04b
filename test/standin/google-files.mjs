// Google Drive v3, Sheets v4 and Docs v1 on one loopback server (vitest globalSetup), for the
// googleDriveTool, googleSheetsTool and googleDocsTool tools and the googleDrive and googleSheets
// loaders. Routes as Google's (paths from the host: /drive/v3/…, /upload/drive/v3/…, /v4/…, /v1/…).
// Every call needs `Authorization: Bearer at-…` (else 401 UNAUTHENTICATED, Google's error shape).
// Ids script the answers (`<m>` is a test's marker):
//   Drive: folder fold-<m> holds gdoc-<m> (a Google Doc), gsheet-<m> (a Sheet), gslides-<m> (Slides),
//     notes-<m>.txt (text/plain), img-<m> (image/png) and folder sub-<m>, which holds deep-<m>.md
//     (text/markdown); listings filter by the q's parent and mimeType clauses and page by pageSize
//     (pageToken = the offset). Any other id is a text file named <id>.txt. Ids starting denied- answer
//     403; echo- a 500 whose message holds the caller's token (a test checks it never shows).
//   Sheets: any spreadsheet has sheets "Sheet1" (Name/Qty rows) and "Empty" (no values); writes echo.
//   Docs: a document's body is one paragraph "Hello from <id>\n" (endIndex 18+len); tabs with
//     includeTabsContent=true; batchUpdate answers one reply per request.
// A listing without a parent (the loaders' pickers) answers listed-1 (text), listed-2 (a Sheet on a
// shared drive) and listed-3 (an image).
// GET /requests?contains=<marker> lists the requests ({method, path, auth, contentType, body}) whose
// path, body or bearer token holds the marker.
import { createServer } from "node:http";

const FOLDER = "application/vnd.google-apps.folder";

function folderFiles(folder) {
  const m = folder.replace(/^(fold|sub)-/, "");
  if (folder.startsWith("fold-"))
    return [
      { id: `gdoc-${m}`, name: `Plan ${m}`, mimeType: "application/vnd.google-apps.document" },
      { id: `gsheet-${m}`, name: `Stock ${m}`, mimeType: "application/vnd.google-apps.spreadsheet" },
      { id: `gslides-${m}`, name: `Deck ${m}`, mimeType: "application/vnd.google-apps.presentation" },
      { id: `notes-${m}`, name: `notes-${m}.txt`, mimeType: "text/plain", size: "21" },
      { id: `img-${m}`, name: `img-${m}.png`, mimeType: "image/png" },
      { id: `sub-${m}`, name: `Sub ${m}`, mimeType: FOLDER },
    ];
  if (folder.startsWith("sub-")) return [{ id: `deep-${m}`, name: `deep-${m}.md`, mimeType: "text/markdown" }];
  return [];
}

const fileById = (id) => {
  const m = id.replace(/^[a-z]+-/, "");
  const inFolder = [...folderFiles(`fold-${m}`), ...folderFiles(`sub-${m}`)].find((f) => f.id === id);
  return {
    id,
    webViewLink: `https://drive.google.com/file/d/${id}/view`,
    createdTime: "2026-01-02T03:04:05.000Z",
    modifiedTime: "2026-02-03T04:05:06.000Z",
    parents: [id.startsWith("deep-") ? `sub-${m}` : `fold-${m}`],
    ...(inFolder ?? { name: `${id}.txt`, mimeType: "text/plain" }),
  };
};

const googleError = (code, message, status) => ({ error: { code, message, status } });

export function startGoogleFilesStandin() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString("utf8");
    const send = (status, value, type = "application/json") => {
      res.writeHead(status, { "content-type": type });
      res.end(typeof value === "string" ? value : JSON.stringify(value));
    };
    const json = (status, value) => (status === 204 ? (res.writeHead(204), res.end()) : send(status, value));
    if (url.pathname === "/requests") {
      const marker = url.searchParams.get("contains") ?? "";
      return json(
        200,
        requests.filter((r) => decodeURIComponent(r.path).includes(marker) || r.body.includes(marker) || r.auth.includes(marker)),
      );
    }
    const auth = req.headers.authorization ?? "";
    requests.push({ method: req.method, path: url.pathname + url.search, auth, contentType: req.headers["content-type"] ?? "", body: raw });
    const token = auth.replace(/^Bearer /, "");
    if (!auth.startsWith("Bearer at-"))
      return json(401, googleError(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED"));
    const body = (() => {
      try {
        return raw ? JSON.parse(raw) : {};
      } catch {
        return {};
      }
    })();
    const p = url.pathname;
    const q = url.searchParams;
    const segs = p.split("/");
    const id = decodeURIComponent((p.startsWith("/drive/") ? segs[4] : segs[3]) ?? "").split(":")[0];
    if (id.startsWith("denied-"))
      return json(403, googleError(403, `The user does not have sufficient permissions for file ${id}.`, "PERMISSION_DENIED"));
    if (id.startsWith("echo-")) return json(500, googleError(500, `Internal error for token ${token}`, "INTERNAL"));

    // Drive v3
    if (p === "/drive/v3/files" && req.method === "GET") {
      const query = q.get("q") ?? "";
      const parent = /'([^']+)' in parents/.exec(query)?.[1];
      const types = [...query.matchAll(/mimeType='([^']+)'/g)].map((x) => x[1]);
      let files = parent
        ? folderFiles(parent)
        : [
            { id: "listed-1", name: "Listed notes", mimeType: "text/plain" },
            { id: "listed-2", name: "Stock listed", mimeType: "application/vnd.google-apps.spreadsheet", driveId: "team-1" },
            { id: "listed-3", name: "photo.png", mimeType: "image/png" },
          ];
      if (types.length) files = files.filter((f) => types.includes(f.mimeType));
      const from = Number(q.get("pageToken") ?? 0);
      const size = Number(q.get("pageSize") ?? 100);
      const page = files.slice(from, from + size).map((f) => ({ ...fileById(f.id), ...f }));
      return json(200, { files: page, ...(from + size < files.length ? { nextPageToken: String(from + size) } : {}) });
    }
    if (p === "/drive/v3/files" && req.method === "POST") return json(200, { kind: "drive#file", id: "created-1", ...body });
    if (p === "/upload/drive/v3/files" && req.method === "POST") {
      const meta = /\r\n\r\n(\{.*\})\r\n/.exec(raw)?.[1];
      return json(200, { kind: "drive#file", id: "uploaded-1", ...(meta ? JSON.parse(meta) : { name: "Untitled" }) });
    }
    const drive = /^\/drive\/v3\/files\/([^/]+)(\/.*)?$/.exec(p);
    if (drive) {
      const rest = drive[2] ?? "";
      const file = fileById(id);
      if (rest === "" && req.method === "GET") {
        if (q.get("alt") !== "media") return json(200, file);
        return send(200, `Text of ${file.name}`, file.mimeType.startsWith("text/") ? `${file.mimeType}; charset=utf-8` : file.mimeType);
      }
      if (rest === "/export") {
        const as = q.get("mimeType");
        if (file.mimeType.endsWith(".spreadsheet") && as === "text/csv") return send(200, "Name,Qty\r\napple,3\r\npear,5\r\n", "text/csv");
        if (as === "text/plain") return send(200, `\ufeffExported text of ${file.name}`, "text/plain");
        return json(400, googleError(400, `Export only supports Docs Editors files (${as}).`, "FAILED_PRECONDITION"));
      }
      if (rest === "" && req.method === "PATCH") return json(200, { kind: "drive#file", id, ...body });
      if (rest === "" && req.method === "DELETE") return json(204);
      if (rest === "/copy") return json(200, { kind: "drive#file", id: `copy-of-${id}`, name: body.name });
      if (rest === "/permissions" && req.method === "POST") return json(200, { kind: "drive#permission", id: "perm-1", ...body });
      if (rest === "/permissions") return json(200, { permissions: [{ id: "perm-1", role: "owner", type: "user" }] });
      if (rest.startsWith("/permissions/") && req.method === "DELETE") return json(204);
    }

    // Sheets v4
    if (p === "/v4/spreadsheets" && req.method === "POST")
      return json(200, {
        spreadsheetId: "ss-created",
        properties: body.properties,
        sheets: body.sheets ?? [{ properties: { title: "Sheet1" } }],
      });
    const sheets = /^\/v4\/spreadsheets\/([^/:]+)(.*)$/.exec(p);
    if (sheets) {
      const rest = decodeURIComponent(sheets[2]);
      if (rest === "" && req.method === "GET")
        return json(200, {
          spreadsheetId: id,
          properties: { title: `Stock ${id}` },
          sheets: [{ properties: { sheetId: 0, title: "Sheet1" } }, { properties: { sheetId: 1, title: "Empty" } }],
        });
      const values = /^\/values\/(.+)$/.exec(rest);
      if (values && req.method === "GET") {
        const range = values[1];
        if (range.startsWith("Empty")) return json(200, { range: `${range}!A1:Z1000`, majorDimension: "ROWS" });
        return json(200, { range: `'${range}'!A1:B3`, majorDimension: "ROWS", values: [["Name", "Qty"], ["apple", "3"], ["pear"]] });
      }
      return json(200, { spreadsheetId: id, echo: { method: req.method, rest, query: Object.fromEntries(q), body } });
    }

    // Docs v1
    if (p === "/v1/documents" && req.method === "POST") return json(200, { documentId: `doc-${body.title}`, title: body.title });
    const docs = /^\/v1\/documents\/([^/:]+)(:batchUpdate)?$/.exec(p);
    if (docs) {
      if (docs[2]) return json(200, { documentId: id, replies: (body.requests ?? []).map(() => ({})) });
      const text = `Hello from ${id}\n`;
      const content = [
        { endIndex: 1, sectionBreak: {} },
        { startIndex: 1, endIndex: 1 + text.length, paragraph: { elements: [{ textRun: { content: text } }] } },
      ];
      if (q.get("includeTabsContent") === "true")
        return json(200, {
          documentId: id,
          tabs: [
            {
              documentTab: { body: { content } },
              childTabs: [{ documentTab: { body: { content: [{ paragraph: { elements: [{ textRun: { content: "Child tab\n" } }] } }] } } }],
            },
          ],
        });
      return json(200, { documentId: id, title: `Doc ${id}`, body: { content } });
    }
    return json(404, googleError(404, `Not found: ${req.method} ${p}`, "NOT_FOUND"));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
