import type { Document } from "@langchain/core/documents";
import type { WorkLimits } from "../../lib/limits";

/** A file a loader reads: an upload, or one kept in R2 from an earlier upsert. */
export interface LoaderFile {
  name: string;
  mime: string;
  bytes: Uint8Array;
}

export interface LoaderInput {
  /** The loader's config (Flowise inputs), file fields already resolved into `files`. */
  config: Record<string, unknown>;
  files: LoaderFile[];
  /** The outbound URL policy's settings (OUTBOUND_ALLOW) for loaders that fetch URLs. */
  outbound: { OUTBOUND_ALLOW?: string };
  /** Largest file or page accepted, in bytes. */
  maxBytes: number;
  /** Bounds on the work a file may cause (pages, rows, columns, unzipped size, text, documents). */
  limits: WorkLimits;
  /** Decrypted credential values by id, for loaders behind a service (github). */
  getCredential?(id: string, options?: { oauth2?: boolean }): Promise<Record<string, unknown>>;
  /** Service base URLs the deployment sets (tests: stand-ins), and ENVIRONMENT for the endpoint rule (lib/outbound). */
  services?: {
    GITHUB_API_BASE_URL?: string;
    SERPAPI_BASE_URL?: string;
    BRAVE_SEARCH_BASE_URL?: string;
    SEARCHAPI_BASE_URL?: string;
    SPIDER_BASE_URL?: string;
    NOTION_BASE_URL?: string;
    AIRTABLE_BASE_URL?: string;
    FIGMA_BASE_URL?: string;
    OXYLABS_BASE_URL?: string;
    APIFY_BASE_URL?: string;
    /** S3's base URL (s3 and s3Directory; providers/aws/client.ts). */
    AWS_S3_BASE_URL?: string;
    /** Google Drive's and Sheets' API hosts (googleDrive and googleSheets; providers/loaders/google). */
    GOOGLE_DRIVE_BASE_URL?: string;
    GOOGLE_SHEETS_BASE_URL?: string;
    /** Cloudflare Browser Rendering's REST API (playwrightWebScraper, puppeteerWebScraper; browser-rendering.ts). */
    BROWSER_RENDERING_ACCOUNT_ID?: string;
    BROWSER_RENDERING_API_TOKEN?: string;
    BROWSER_RENDERING_BASE_URL?: string;
    ENVIRONMENT?: string;
  };
}

export interface LoaderDefinition {
  /** Flowise node name, e.g. `pdfFile`. */
  name: string;
  aliases?: string[];
  /** Flowise's display label, stored as the loader's `loaderName`. */
  label: string;
  /** The config field that holds its files (`txtFile`, `pdfFile`, …); absent for non-file loaders. */
  fileField?: string;
  /**
   * A document store reads this loader's files a window at a time instead of whole (`load` stays
   * for chatflow upserts): `text` one text, `lines` one document per JSON Lines line.
   */
  windows?: "text" | "lines";
  /**
   * Takes uploads of any kind (fileLoader, unstructuredFileLoader): a chatflow upsert sends it the
   * files no loader of its kind in the branch reads, as Flowise hands them the other file inputs.
   */
  anyUpload?: boolean;
  /** Whether an uploaded file is of a kind this loader reads (else 415). */
  accepts?(file: { name: string; mime: string }): boolean;
  load(input: LoaderInput): Promise<Document[]>;
}
