import type { Deps } from "../deps";
import { ApiError, badRequest, payloadTooLarge } from "../../errors";
import { newId } from "../../lib/ids";
import { readSections } from "../../lib/json-sections";
import { type ImportWarning, Ledger } from "./ledger";
import { RecordError } from "./record-schemas";
import { SECTIONS, type Section, readRecord } from "./records";
import { STAGE_PART_BYTES, Stager, commitStaged, countReplaced } from "./stage";
import { TABLE_ORDER, type TableName } from "./tables";

/** What the answer counts, by the names the API uses for each kind of record. */
const COUNTED: Array<[string, TableName]> = [
  ["chatflows", "chat_flow"],
  ["assistants", "assistant"],
  ["tools", "tool"],
  ["variables", "variable"],
  ["documentStores", "document_store"],
  ["documentStoreLoaders", "document_store_loader"],
  ["chunks", "document_store_file_chunk"],
  ["executions", "execution"],
  ["chatMessages", "chat_message"],
  ["feedback", "chat_message_feedback"],
  ["mcpServers", "mcp_server"],
  ["customTemplates", "custom_template"],
];

export interface ImportResult {
  message: "success";
  /** Records written, by kind. */
  imported: Record<string, number>;
  /** Of those, records that replaced one stored under the same id. */
  replaced: Record<string, number>;
  /** Records of sections edgeflow does not know (a later Flowise's), by section. */
  skipped: Record<string, number>;
  /** Flows saved as they are that will not run as they are (what POST /chatflows would warn). */
  warnings: ImportWarning[];
}

/** The body, counted: past `maxBytes` a 413 (MAX_IMPORT_MB). */
function limited(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes)
          controller.error(
            payloadTooLarge(`The import file is larger than the limit of ${Math.round(maxBytes / 1024 / 1024)} MB (MAX_IMPORT_MB)`),
          );
        else controller.enqueue(chunk);
      },
    }),
  );
}

const isSection = (name: string): name is Section => (SECTIONS as readonly string[]).includes(name);

/** `env`: the outbound policy's settings the imported flows' endpoints are checked against. */
export async function importFile(
  { db, env }: Deps<"db" | "env">,
  body: ReadableStream<Uint8Array>,
  options: { maxBytes: number },
): Promise<ImportResult> {
  const stager = new Stager(db, newId());
  const ledger = new Ledger(env);
  const skipped: Record<string, number> = {};
  const rows: Array<[TableName, unknown[]]> = [];
  try {
    for await (const record of readSections(limited(body, options.maxBytes), STAGE_PART_BYTES)) {
      if (!isSection(record.section)) {
        skipped[record.section] = (skipped[record.section] ?? 0) + 1;
        continue;
      }
      let raw: unknown;
      try {
        raw = JSON.parse(record.text);
      } catch {
        throw badRequest(`${record.section}[${record.index}] is not valid JSON`);
      }
      try {
        await readRecord(record.section, record.index, raw, (table, row) => rows.push([table, row]), ledger);
      } catch (err) {
        if (err instanceof RecordError) throw badRequest(`Nothing was imported: ${err.message}`);
        throw err;
      }
      for (const [table, row] of rows) await stager.add(table, row, `${record.section}[${record.index}]`);
      rows.length = 0;
    }
    await stager.flush();
    await ledger.verify(db).catch((err: unknown) => {
      throw err instanceof ApiError && err.status === 400 ? badRequest(`Nothing was imported: ${err.message}`) : err;
    });
    const tables = new Set(TABLE_ORDER.filter((t) => stager.rows[t] > 0));
    const replaced = tables.size ? await countReplaced({ db }, stager.importId, [...tables]) : ({} as Record<TableName, number>);
    if (tables.size) await commitStaged({ db }, stager.importId, tables);
    return {
      message: "success",
      imported: Object.fromEntries(COUNTED.map(([name, t]) => [name, stager.rows[t]])),
      replaced: Object.fromEntries(COUNTED.map(([name, t]) => [name, replaced[t] ?? 0])),
      skipped,
      warnings: ledger.warnings,
    };
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && !err.message.startsWith("Nothing was imported"))
      throw badRequest(`Nothing was imported: ${err.message}`);
    throw err;
  } finally {
    await stager
      .drop()
      .catch((err: unknown) => console.error(`import ${stager.importId}: its staged rows were not removed (swept later): ${String(err)}`));
  }
}
