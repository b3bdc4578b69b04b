// Shared by the document store route tests: store creation, upserts (JSON and multipart), and a
// snapshot of everything a store owns (record, chunks, vectors, records, files) to assert that a
// failed request left it as it was.
import { env } from "cloudflare:workers";
import { call, json } from "../helpers";

/** The local providers, named explicitly (the test runner binds stand-in AI and Vectorize). */
export const LOCAL = { embedding: { name: "localHashEmbeddings" }, vectorStore: { name: "localVectorStore" } };

export async function newStore(name = "docs", extra: Record<string, unknown> = {}) {
  return json("POST", "/document-store/store", { body: { name, ...extra } });
}

export const upsert = (storeId: string, body: Record<string, unknown>, expected = 200) =>
  json("POST", `/document-store/upsert/${storeId}`, { body }, expected);

export function form(
  files: Array<{ name: string; type: string; data: string | Uint8Array }>,
  fields: Record<string, unknown> = {},
): FormData {
  const f = new FormData();
  for (const file of files) f.append("files", new File([file.data], file.name, { type: file.type }));
  for (const [k, v] of Object.entries(fields)) f.append(k, typeof v === "string" ? v : JSON.stringify(v));
  return f;
}

export const upsertForm = (storeId: string, body: FormData) => call("POST", `/document-store/upsert/${storeId}`, { raw: body });

export async function snapshot(storeId: string) {
  const one = async (q: string) => (await env.DB.prepare(q).bind(storeId).first<{ n: number }>())?.n ?? 0;
  const store = await env.DB.prepare("SELECT * FROM document_store WHERE id = ?").bind(storeId).first();
  const loaders = (await env.DB.prepare("SELECT * FROM document_store_loader WHERE storeId = ? ORDER BY position").bind(storeId).all())
    .results;
  const files = (await env.FILES.list({ prefix: `docustore/${storeId}/` })).objects.map((o) => o.key).sort();
  return {
    store,
    loaders,
    chunks: await one("SELECT COUNT(*) AS n FROM document_store_file_chunk WHERE storeId = ?"),
    vectors: await one("SELECT COUNT(*) AS n FROM vector_document WHERE namespace = ?"),
    embeddings: await one("SELECT COUNT(*) AS n FROM local_embedding WHERE namespace = ?"),
    records: await one("SELECT COUNT(*) AS n FROM record_manager WHERE namespace = ?"),
    history: await one("SELECT COUNT(*) AS n FROM upsert_history WHERE chatflowid = ?"),
    files,
  };
}

export async function waitForStatus(storeId: string, done: (s: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const store = await json("GET", `/document-store/store/${storeId}`);
    if (done(store)) return store;
    if (Date.now() > until) throw new Error(`store ${storeId} still ${store.status}: ${store.loaders}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const loadersOf = (store: { loaders: string }) => JSON.parse(store.loaders);
