// Work limits: what one request may make the worker do, each a deployment var with a default. One
// table, so the code, its error messages and the README name the same vars. Exceeding a limit is a
// 413 naming it, raised before anything is stored. (JSON nested too deeply is malformed input
// rather than too much of it: a 400, src/lib/json-depth.ts.)
import { type ApiError, fail } from "../errors";
import { perEnv } from "../config";

interface LimitSpec {
  /** The var that sets it. */
  env: string;
  fallback: number;
  /** What it counts, as the error message says it. */
  unit: string;
}

const WORK_LIMITS = {
  /** Bytes unzipped from a DOCX (its text part, word/document.xml), in MB. */
  docxUnzippedMb: { env: "DOCX_MAX_UNZIPPED_MB", fallback: 50, unit: "MB unzipped" },
  /** Entries in a DOCX (zip) archive. */
  docxEntries: { env: "DOCX_MAX_ENTRIES", fallback: 5_000, unit: "zip entries" },
  pdfPages: { env: "PDF_MAX_PAGES", fallback: 1_000, unit: "pages" },
  csvColumns: { env: "CSV_MAX_COLUMNS", fallback: 2_000, unit: "columns" },
  csvRows: { env: "CSV_MAX_ROWS", fallback: 20_000, unit: "rows" },
  /**
   * Text a loader holds whole (CSV and JSON files, a chatflow's text files, text out of PDF and
   * DOCX; a JSON Lines line), in MB. A document store's text and JSON Lines files are read in
   * windows instead, up to streamedFileMb.
   */
  textMb: { env: "MAX_TEXT_MB", fallback: 10, unit: "MB of text" },
  /** Chunks of an upsert held in memory together (loaders that read whole files). */
  chunks: { env: "MAX_CHUNKS_PER_UPSERT", fallback: 20_000, unit: "chunks" },
  /** A text or JSON Lines file a document store reads in windows (never whole), in MB. */
  streamedFileMb: { env: "MAX_STREAMED_FILE_MB", fallback: 128, unit: "MB" },
  /** Chunks of one loader whose files are read in windows (stored window by window, not held). */
  streamedChunks: { env: "MAX_STREAMED_CHUNKS", fallback: 500_000, unit: "chunks" },
  /** Text read, split and embedded at a time from a streamed file, in MB: what memory holds of it. */
  windowMb: { env: "UPSERT_WINDOW_MB", fallback: 2, unit: "MB per window" },
  /** Rows of a sqlDatabaseChain query's result read and shown to the model (the rest is cut). */
  sqlRows: { env: "SQL_MAX_ROWS", fallback: 100, unit: "rows" },
  /** How long a sqlDatabaseChain's Postgres or MySQL server has to accept and sign in, in ms. */
  sqlConnectMs: { env: "SQL_CONNECT_TIMEOUT_MS", fallback: 10_000, unit: "ms" },
  /** A document store upsert with more chunks than this runs through the upsert queue. */
  queueChunks: { env: "UPSERT_QUEUE_CHUNKS", fallback: 5_000, unit: "chunks" },
  /** … as does one whose streamed files are larger than this together, in MB. */
  queueMb: { env: "UPSERT_QUEUE_MB", fallback: 32, unit: "MB" },
  /** Of a streamed file, what one queue message reads before it queues the rest as another message, in MB. */
  messageMb: { env: "UPSERT_MESSAGE_MB", fallback: 16, unit: "MB" },
} satisfies Record<string, LimitSpec>;

export type LimitName = keyof typeof WORK_LIMITS;
export type WorkLimits = Record<LimitName, number>;

/** Every limit, from its var when that is a positive number, else its default. */
/** The work limits of an env (parsed once per env object, not per run). */
export const workLimits: (env: object) => Readonly<WorkLimits> = perEnv((env) => Object.freeze(parseLimits(env)));

function parseLimits(env: object): WorkLimits {
  const vars = env as Record<string, unknown>;
  const out = {} as WorkLimits;
  for (const [name, spec] of Object.entries(WORK_LIMITS) as Array<[LimitName, LimitSpec]>) {
    const raw = vars[spec.env];
    const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() ? Number(raw) : NaN;
    out[name] = Number.isFinite(n) && n > 0 ? n : spec.fallback;
  }
  return out;
}

/** MB limits in bytes. */
export const megabytes = (mb: number): number => Math.floor(mb * 1024 * 1024);

/**
 * The error for `subject` going over a limit, e.g. "PDF big.pdf: more than 1000 pages (PDF_MAX_PAGES);
 * it has 5000". `actual` when it is known (work may stop as soon as the limit is passed), or a
 * bound on it ("at least 5000").
 */
export function overLimit(limits: WorkLimits, name: LimitName, subject: string, actual?: number | string): ApiError {
  const spec = WORK_LIMITS[name];
  return fail(
    "LIMIT_EXCEEDED",
    `${subject}: more than ${limits[name]} ${spec.unit} (${spec.env})${actual !== undefined ? `; it has ${actual}` : ""}`,
  );
}
