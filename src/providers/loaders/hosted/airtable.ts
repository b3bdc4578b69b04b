// airtable (credential airtableApi: accessToken): a table's records through Airtable's REST API
// (POST {AIRTABLE_BASE_URL}/v0/{baseId}/{tableId}/listRecords {view, fields, filterByFormula,
// maxRecords, offset}), following `offset` until the last page — or, unless returnAll, until
// `limit` records. As Flowise's AirtableLoader: one document per record, its fields as pretty JSON,
// metadata {url: https://api.airtable.com/v0/{baseId}/{tableId}/{recordId}}.
// Airtable allows 5 requests a second per base; past that every request is a 429 for 30 s (its API
// reference, "Rate limits"): pages are asked at most PAGE_INTERVAL_MS apart (quick pages of a big table were refused).
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedJson, serviceBase } from "./call";

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const PAGE_INTERVAL_MS = 210;

async function loadAirtable(input: LoaderInput): Promise<Document[]> {
  const { config, limits } = input;
  const baseId = text(config.baseId);
  const tableId = text(config.tableId);
  if (!baseId || !tableId) throw fail("INVALID_INPUT", "airtable needs its baseId and tableId");
  const cred = input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {};
  const token = text((cred as Obj).accessToken);
  if (!token) throw fail("INVALID_INPUT", "airtable needs an airtableApi credential with accessToken");
  const returnAll = config.returnAll === undefined || config.returnAll === "" || config.returnAll === true || config.returnAll === "true";
  const limit = Number(config.limit ?? 100) || 100;
  const fields = text(config.fields)
    ? text(config.fields)
        .split(",")
        .map((f) => f.trim())
        .filter(Boolean)
    : [];
  const body: Obj = { ...(text(config.viewId) ? { view: text(config.viewId) } : {}) };
  if (!returnAll) body.maxRecords = limit;
  if (fields.length) body.fields = fields;
  if (text(config.filterByFormula)) body.filterByFormula = text(config.filterByFormula);
  const api = serviceBase(input.services?.AIRTABLE_BASE_URL, "https://api.airtable.com");
  const url = `${api}/v0/${encodeURIComponent(baseId)}/${encodeURIComponent(tableId)}/listRecords`;
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json" };
  const records: Obj[] = [];
  let offset: string | undefined;
  let last = 0;
  do {
    const wait = last + PAGE_INTERVAL_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    last = Date.now();
    const init = { method: "POST", headers, body: JSON.stringify({ ...body, ...(offset ? { offset } : {}) }) };
    const res = await hostedJson(input, { service: "Airtable", field: "AIRTABLE_BASE_URL", url, init, secrets: [token] });
    const page = isObject(res) && Array.isArray(res.records) ? res.records.filter(isObject) : [];
    records.push(...page);
    offset = isObject(res) && typeof res.offset === "string" && res.offset ? res.offset : undefined;
    if (!returnAll && records.length >= limit) break;
    if (records.length > limits.chunks) throw overLimit(limits, "chunks", `Airtable table ${tableId}`, records.length);
  } while (offset);
  if (!returnAll) records.length = Math.min(records.length, limit);
  return records.map(
    (r) =>
      new Document({
        pageContent: JSON.stringify(r.fields ?? {}, null, 2),
        metadata: { url: `https://api.airtable.com/v0/${baseId}/${tableId}/${r.id}` },
      }),
  );
}

export const airtableLoader: LoaderDefinition = { name: "airtable", label: "Airtable", load: loadAirtable };
