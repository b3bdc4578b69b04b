// googleDrive (Flowise's Google Drive loader, credential googleDriveOAuth2) over Drive API v3
// (GOOGLE_DRIVE_BASE_URL, else https://www.googleapis.com):
//   the chosen files (selectedFiles: GET /drive/v3/files/{id}?fields=…), else a folder's
//   (folderId: GET /drive/v3/files?q='<id>' in parents and trashed = false [and the file types],
//   pages of at most maxFiles (default 50), subfolders too with includeSubfolders), filtered by
//   fileTypes; then each file read:
//   - text files (text/plain, csv, html, markdown, json, xml…): GET …/files/{id}?alt=media, one document;
//   - Google Docs and Slides exported as text/plain, Sheets as text/csv (the first sheet: Drive's CSV
//     export; one document per row) and Drawings as PDF (GET …/files/{id}/export?mimeType=…),
//     where Flowise exports Office files: the text is what the Office parse would give, with less work;
//   - PDF, Word, Excel and PowerPoint files downloaded and read by our file loaders (fileLoader).
//   Drive's metadata on every document (source = webViewLink, fileId, fileName, mimeType, size…).
// Files of other kinds, or that our loaders cannot read, are skipped, as Flowise does; Drive's
// failures are 502s with its message. Mended from Flowise: includeSubfolders also finds folders
// when file types are chosen (Flowise's type filter hides them), and PowerPoint files are read
// (Flowise offers the type, then skips the files).
import { Document } from "@langchain/core/documents";
import { ApiError, fail } from "../../../errors";
import { bool, num, str } from "../../../lib/inputs";
import { megabytes, overLimit } from "../../../lib/limits";
import { fileLoader } from "../file-loader";
import { extensionOf } from "../text-util";
import type { LoaderDefinition, LoaderInput } from "../types";
import { type GoogleApi, googleApi, googleGet, googleJson, idList } from "./api";

const API = "/drive/v3/files";
const FOLDER = "application/vnd.google-apps.folder";
const FILE_FIELDS = "id, name, mimeType, size, createdTime, modifiedTime, parents, webViewLink, driveId";
/** Folder listings a load may make (pages and subfolders together). */
const MAX_LISTINGS = 200;

interface DriveFile {
  id: string;
  name?: string;
  mimeType?: string;
  size?: string;
  createdTime?: string;
  modifiedTime?: string;
  parents?: string[];
  webViewLink?: string;
  driveId?: string;
}

/** Text files downloaded as they are (Flowise's isTextBasedFile). */
const TEXT = new Set([
  "text/plain",
  "text/html",
  "text/css",
  "text/javascript",
  "text/csv",
  "text/xml",
  "application/json",
  "application/xml",
  "text/markdown",
  "text/x-markdown",
]);

/** Google Workspace files: the export's type and the extension our file loaders read it by. */
const EXPORTS: Record<string, [mime: string, ext: string]> = {
  "application/vnd.google-apps.document": ["text/plain", "txt"],
  "application/vnd.google-apps.spreadsheet": ["text/csv", "csv"],
  "application/vnd.google-apps.presentation": ["text/plain", "txt"],
  "application/vnd.google-apps.drawing": ["application/pdf", "pdf"],
};

/** Other files downloaded and read by our file loaders, by the extension they read them by. */
const BINARY: Record<string, string> = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.ms-powerpoint": "ppt",
};

const driveContext = (f: DriveFile) => (f.driveId ? " (Shared Drive)" : " (My Drive)");

function driveMetadata(f: DriveFile): Record<string, unknown> {
  const size = Number.parseInt(f.size ?? "", 10);
  return {
    source: f.webViewLink || `https://drive.google.com/file/d/${f.id}/view`,
    fileId: f.id,
    fileName: f.name,
    mimeType: f.mimeType,
    size: Number.isFinite(size) ? size : undefined,
    createdTime: f.createdTime,
    modifiedTime: f.modifiedTime,
    parents: f.parents,
  };
}

const shared = (includeShared: boolean) => (includeShared ? { supportsAllDrives: "true", includeItemsFromAllDrives: "true" } : {});

/** The folder's files (and its subfolders' when asked), up to `max`, in Drive's pages. */
async function folderFiles(api: GoogleApi, folderId: string, types: string[], subfolders: boolean, includeShared: boolean, max: number) {
  const files: DriveFile[] = [];
  const queue = [folderId];
  let listings = 0;
  for (let folder = queue.shift(); folder !== undefined && files.length < max; folder = queue.shift()) {
    const kinds = subfolders && types.length ? [...types, FOLDER] : types;
    let q = `'${folder.replaceAll("'", "\\'")}' in parents and trashed = false`;
    if (kinds.length) q += ` and (${kinds.map((t) => `mimeType='${t}'`).join(" or ")})`;
    let pageToken: string | undefined;
    do {
      if (++listings > MAX_LISTINGS)
        throw fail("LIMIT_EXCEEDED", `googleDrive: folder ${folderId} needs more than ${MAX_LISTINGS} listings`);
      const page = await googleJson<{ files?: DriveFile[]; nextPageToken?: string }>(api, API, {
        q,
        pageSize: String(Math.min(max - files.length, 1000)),
        fields: `nextPageToken, files(${FILE_FIELDS})`,
        ...shared(includeShared),
        pageToken,
      });
      for (const f of page.files ?? []) {
        if (f.mimeType === FOLDER) {
          if (subfolders) queue.push(f.id);
          if (types.length) continue;
        }
        if (files.length < max) files.push(f);
      }
      pageToken = page.nextPageToken;
    } while (pageToken && files.length < max);
  }
  return files;
}

/** A file's documents; [] for a kind no loader reads (skipped, as Flowise). */
async function readFile(api: GoogleApi, input: LoaderInput, f: DriveFile): Promise<Document[]> {
  const mime = f.mimeType ?? "";
  const meta = driveMetadata(f);
  if (TEXT.has(mime)) {
    const { bytes } = await googleGet(api, `${API}/${encodeURIComponent(f.id)}`, { alt: "media" });
    const pageContent = new TextDecoder().decode(bytes);
    return [new Document({ pageContent, metadata: { ...meta, driveId: f.driveId, driveContext: driveContext(f) } })];
  }
  const exported = EXPORTS[mime];
  const ext = exported?.[1] ?? BINARY[mime];
  if (!ext) return [];
  const { bytes } = exported
    ? await googleGet(api, `${API}/${encodeURIComponent(f.id)}/export`, { mimeType: exported[0] })
    : await googleGet(api, `${API}/${encodeURIComponent(f.id)}`, { alt: "media" });
  const base = f.name || f.id;
  const name = extensionOf(base) === ext ? base : `${base}.${ext}`;
  let docs: Document[];
  try {
    docs = await fileLoader.load({ ...input, config: { usage: "perPage" }, files: [{ name, mime: exported?.[0] ?? mime, bytes }] });
  } catch (err) {
    // A file our loaders cannot read (a legacy .doc, no text) is skipped; limits and the rest stand.
    if (err instanceof ApiError && (err.code === "INVALID_INPUT" || err.code === "UNSUPPORTED_MEDIA_TYPE")) return [];
    throw err;
  }
  return docs.map(
    (d, pageIndex) =>
      new Document({
        pageContent: d.pageContent,
        metadata: { ...d.metadata, ...meta, totalPages: docs.length, pageIndex, driveId: f.driveId, driveContext: driveContext(f) },
      }),
  );
}

export const googleDriveLoader: LoaderDefinition = {
  name: "googleDrive",
  label: "Google Drive",
  async load(input) {
    const { config, limits } = input;
    const selected = idList(config.selectedFiles);
    const folderId = str(config.folderId);
    if (!selected.length && !folderId)
      throw fail("INVALID_INPUT", "googleDrive needs Select Files (selectedFiles) or a Folder ID (folderId)");
    const api = await googleApi(input, "googleDrive", "googleDriveOAuth2", {
      service: "Google Drive",
      field: "GOOGLE_DRIVE_BASE_URL",
      host: "https://www.googleapis.com",
    });
    const types = idList(config.fileTypes);
    const includeShared = bool(config.includeSharedDrives);
    const max = Math.min(Math.max(Math.floor(num(config.maxFiles) || 50), 1), 1000);
    let files: DriveFile[];
    if (selected.length) {
      files = [];
      for (const id of selected.slice(0, 1000)) {
        const f = await googleJson<DriveFile>(api, `${API}/${encodeURIComponent(id)}`, {
          fields: FILE_FIELDS,
          ...(includeShared ? { supportsAllDrives: "true" } : {}),
        });
        if (!types.length || types.includes(f.mimeType ?? "")) files.push(f);
      }
    } else {
      files = await folderFiles(api, folderId as string, types, bool(config.includeSubfolders), includeShared, max);
    }
    const docs: Document[] = [];
    let chars = 0;
    for (const f of files) {
      for (const d of await readFile(api, input, f)) {
        chars += d.pageContent.length;
        if (chars > megabytes(limits.textMb)) throw overLimit(limits, "textMb", "What googleDrive read");
        if (d.pageContent.trim()) docs.push(d);
      }
    }
    return docs;
  },
};
