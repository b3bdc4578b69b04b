// The studio's pickers of the Google loaders (POST /node-load-method: googleDrive's listFiles,
// googleSheets' listSpreadsheets), as Flowise's load methods answer them: the credential's files,
// most recently modified first, each {name: id, label: file name, description}. Anything failing
// (no credential yet, Google refusing) answers no options, as Flowise's do.
import { str } from "../../../lib/inputs";
import type { LoaderInput } from "../types";
import { googleApi, googleJson, idList } from "./api";

export interface LoadOption {
  label: string;
  name: string;
  description?: string;
}

const LABELS: Record<string, string> = {
  "application/vnd.google-apps.document": "Google Doc",
  "application/vnd.google-apps.spreadsheet": "Google Sheet",
  "application/vnd.google-apps.presentation": "Google Slides",
  "application/pdf": "PDF",
  "text/plain": "Text File",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word Doc",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel File",
};

interface Listed {
  files?: Array<{ id: string; name?: string; mimeType?: string; modifiedTime?: string; driveId?: string }>;
}

const day = (time: string | undefined) => (time ? new Date(time).toISOString().slice(0, 10) : "");

/** `method` of node `loader` for the node data the canvas sent (its credential and inputs). */
export async function googleLoaderOptions(
  loader: "googleDrive" | "googleSheets",
  node: { credential?: unknown; inputs?: Record<string, unknown> },
  deps: Pick<LoaderInput, "getCredential" | "outbound" | "services" | "limits">,
): Promise<LoadOption[]> {
  const credential = str(node.credential) ?? str(node.inputs?.credential);
  if (!credential) return [];
  const input: LoaderInput = { ...deps, config: { credential }, files: [], maxBytes: 4 << 20 };
  const drive = loader === "googleDrive";
  try {
    const api = await googleApi(input, loader, drive ? "googleDriveOAuth2" : "googleSheetsOAuth2", {
      service: "Google Drive",
      field: "GOOGLE_DRIVE_BASE_URL",
      host: "https://www.googleapis.com",
    });
    const types = drive ? idList(node.inputs?.fileTypes) : ["application/vnd.google-apps.spreadsheet"];
    let q = drive ? "trashed = false" : `mimeType='${types[0]}' and trashed = false`;
    if (drive && types.length) q += ` and (${types.map((t) => `mimeType='${t}'`).join(" or ")})`;
    const shared = drive && (node.inputs?.includeSharedDrives === true || node.inputs?.includeSharedDrives === "true");
    const max = drive ? Math.min(Number(node.inputs?.maxFiles) || 100, 1000) : 100;
    const listed = await googleJson<Listed>(api, "/drive/v3/files", {
      q,
      pageSize: String(max),
      fields: drive
        ? "files(id, name, mimeType, size, createdTime, modifiedTime, webViewLink, driveId)"
        : "files(id, name, modifiedTime, webViewLink)",
      orderBy: "modifiedTime desc",
      ...(shared ? { supportsAllDrives: "true", includeItemsFromAllDrives: "true" } : {}),
    });
    return (listed.files ?? []).flatMap((f) => {
      if (!drive) return [{ name: f.id, label: f.name ?? f.id, description: `Modified: ${day(f.modifiedTime)}` }];
      const kind = LABELS[f.mimeType ?? ""];
      if (!kind) return [];
      const where = f.driveId ? " (Shared Drive)" : " (My Drive)";
      return [{ name: f.id, label: f.name ?? f.id, description: `Type: ${kind}${where} | Modified: ${day(f.modifiedTime)}` }];
    });
  } catch {
    return [];
  }
}
