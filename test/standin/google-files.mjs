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
// Strict as Google documents (each refusal in Google's error shape):
//   Drive files.list: pageSize 1–1000 ("Acceptable values are 1 to 1000, inclusive": 400 "Invalid
//     value '…'. Values must be within the range: [1, 1000]"); q's strings in single quotes with \' and
//     \\ escaped (a broken string: 400 "Invalid Value", location q); an orderBy with a fullText term:
//     400 "Sorting is not supported for queries with fullText terms. …" (Drive's handle-errors guide);
//     a `fields` without nextPageToken leaves it out. Folder many-<N>-<m> holds N text files (ids and
//     names only) served at most 400 a page ("Partial or empty result pages are possible even before
//     the end of the files list has been reached").
//   Sheets: a range's sheet name with spaces or punctuation must be quoted, a quote inside doubled
//     (A1 notation; else 400 "Unable to parse range: …", in batchUpdate "Invalid data[i]: …"); writes
//     need valueInputOption RAW or USER_ENTERED (400 "'valueInputOption' is required but not specified").
//   Docs batchUpdate: one known request kind per request; insert locations are whole numbers inside the
//     body: under 1 is 400 "Invalid requests[i].insertText: The insertion index must be inside the bounds
//     of an existing paragraph.", at or past its end "… Index N must be less than the end index of the
//     referenced segment, E." A created document is empty (end index 2).
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
  const many = /^many-(\d+)-/.exec(folder);
  if (many)
    return Array.from({ length: Number(many[1]) }, (_, i) => ({ id: `f${i + 1}-${m}`, name: `f${i + 1}.txt`, mimeType: "text/plain" }));
  return [];
}

/** A Drive q's string literals: each a '…' with only \' and \\ escaped; answers their values, or undefined when broken. */
function driveStrings(q) {
  const values = [];
  for (let i = 0; i < q.length; i++) {
    if (q[i] !== "'") continue;
    let value = "";
    for (i++; i < q.length && q[i] !== "'"; i++) {
      if (q[i] === "\\") {
        if (!["'", "\\"].includes(q[i + 1])) return undefined;
        i++;
      }
      value += q[i];
    }
    if (i >= q.length) return undefined;
    values.push(value);
  }
  return values;
}

const driveError = (code, reason, message, location) => ({
  error: { code, message, errors: [{ domain: "global", reason, message, locationType: "parameter", location }] },
});

/** files.list's documented rules; answers [status, error] or undefined. */
function validateFilesList(q) {
  const size = q.get("pageSize");
  if (size !== null && !(/^\d+$/.test(size) && Number(size) >= 1 && Number(size) <= 1000))
    return driveError(400, "invalid", `Invalid value '${size}'. Values must be within the range: [1, 1000]`, "pageSize");
  const query = q.get("q") ?? "";
  if (!driveStrings(query)) return driveError(400, "invalid", "Invalid Value", "q");
  if (q.get("orderBy") && /\bfullText\b/.test(query)) {
    const message = "Sorting is not supported for queries with fullText terms. Results are always in descending relevance order.";
    return driveError(400, "badRequest", message, "orderBy");
  }
  return undefined;
}

/** The folder of a q's "'<id>' in parents" clause (escapes undone). */
const parentOf = (query) => {
  const clause = /'((?:[^'\\]|\\.)*)'\s+in\s+parents/.exec(query);
  return clause?.[1].replace(/\\(.)/g, "$1");
};

/** A sheet name in A1 notation: quoted ('Jon''s Data') or plain word characters; else Sheets cannot parse the range. */
const parsableRange = (range) => {
  const r = String(range);
  if (/^'(?:[^']|'')*'(?:!.*)?$/.test(r)) return true;
  const bang = r.lastIndexOf("!");
  return bang < 0 ? /^[A-Za-z0-9_:$]*$/.test(r) : /^[A-Za-z0-9_]+$/.test(r.slice(0, bang));
};

const INPUT_OPTIONS = ["RAW", "USER_ENTERED"];

/** A values call's ranges and valueInputOption, as Sheets checks them; answers the error or undefined. */
function validateValues(method, rest, q, body) {
  const invalid = (message) => googleError(400, message, "INVALID_ARGUMENT");
  const path = /^\/values\/(.+?)(:append|:clear)?$/.exec(rest);
  const ranges = path ? [path[1]] : [...q.getAll("ranges"), ...(rest === "/values:batchClear" ? (body.ranges ?? []) : [])];
  const bad = ranges.find((r) => !parsableRange(r));
  if (bad !== undefined) return invalid(`Unable to parse range: ${bad}`);
  const writes = (path && (method === "PUT" || path[2] === ":append")) || rest === "/values:batchUpdate";
  if (!writes) return undefined;
  const option = rest === "/values:batchUpdate" ? body.valueInputOption : (q.get("valueInputOption") ?? undefined);
  if (option === undefined) return invalid("'valueInputOption' is required but not specified");
  if (!INPUT_OPTIONS.includes(option)) return invalid(`Invalid value at 'value_input_option' (${option})`);
  const data = rest === "/values:batchUpdate" ? (body.data ?? []) : [];
  const i = data.findIndex((d) => !parsableRange(d?.range ?? ""));
  return i < 0 ? undefined : invalid(`Invalid data[${i}]: Unable to parse range: ${data[i].range}`);
}

const DOC_KINDS = ["insertText", "replaceAllText", "insertInlineImage", "insertTable"];

/** A batchUpdate's requests against a body ending at `end` (each insert grows it); answers the error or undefined. */
function validateDocRequests(requests, end) {
  const invalid = (message) => googleError(400, message, "INVALID_ARGUMENT");
  for (const [i, request] of (requests ?? []).entries()) {
    const kinds = Object.keys(request ?? {});
    const kind = kinds[0];
    if (kinds.length !== 1 || !DOC_KINDS.includes(kind))
      return invalid(`Invalid JSON payload received. Unknown name "${kinds.join(",")}" at 'requests[${i}]': Cannot find field.`);
    const r = request[kind];
    if (kind === "replaceAllText") {
      if (typeof r.containsText?.text !== "string" || typeof r.replaceText !== "string")
        return invalid(`Invalid requests[${i}].replaceAllText: containsText and replaceText are required.`);
      continue;
    }
    const index = r.location?.index;
    if (!Number.isInteger(index)) return invalid(`Invalid value at 'requests[${i}].${kind}.location.index' (TYPE_INT32), ${index}`);
    if (index < 1)
      return invalid(`Invalid requests[${i}].${kind}: The insertion index must be inside the bounds of an existing paragraph.`);
    if (index >= end)
      return invalid(`Invalid requests[${i}].${kind}: Index ${index} must be less than the end index of the referenced segment, ${end}.`);
    // A table's size in the body is generous here (each cell a paragraph, rows and the table's own marks).
    end += kind === "insertText" ? String(r.text ?? "").length : kind === "insertTable" ? 3 + r.rows * (1 + 2 * r.columns) : 1;
  }
  return undefined;
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
  // Documents created here: empty (a section break and one "\n" paragraph, end index 2).
  const created = new Set();
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
      const refused = validateFilesList(q);
      if (refused) return json(400, refused);
      const query = q.get("q") ?? "";
      const parent = parentOf(query);
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
      const many = parent?.startsWith("many-");
      const size = Math.min(Number(q.get("pageSize") ?? 100), many ? 400 : 1000);
      const page = files.slice(from, from + size).map((f) => (many ? f : { ...fileById(f.id), ...f }));
      const fields = q.get("fields");
      const token =
        from + size < files.length && (!fields || /\*|nextPageToken/.test(fields)) ? { nextPageToken: String(from + size) } : {};
      return json(200, { files: page, ...token });
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
      const refused = (rest === "" || rest.startsWith("/values")) && validateValues(req.method, rest, q, body);
      if (refused) return json(400, refused);
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
    if (p === "/v1/documents" && req.method === "POST") {
      created.add(`doc-${body.title}`);
      return json(200, { documentId: `doc-${body.title}`, title: body.title });
    }
    const docs = /^\/v1\/documents\/([^/:]+)(:batchUpdate)?$/.exec(p);
    if (docs) {
      const text = created.has(id) ? "\n" : `Hello from ${id}\n`;
      if (docs[2]) {
        const refused = validateDocRequests(body.requests, 1 + text.length);
        if (refused) return json(400, refused);
        return json(200, { documentId: id, replies: (body.requests ?? []).map(() => ({})) });
      }
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
